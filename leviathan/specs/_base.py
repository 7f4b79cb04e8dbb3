"""Shared foundations of the spec models: strict scalar types, bounds and the base model.

Every spec module builds on these: :data:`Real`, :data:`Integer`, :data:`Flag`
and :data:`Text` take their own kind of value and nothing else; the ``MAX_*``
bounds limit documents and the arrays a sensor would allocate; and
:class:`SpecModel` is frozen, refuses unknown keys and refuses NaN and
infinities, and its copies are validated (:meth:`SpecModel.replace`, and
``model_copy(update=...)`` likewise).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Annotated, Any, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    Strict,
    ValidationInfo,
    model_serializer,
)
from pydantic_core import PydanticCustomError

from leviathan._validation import is_integer, is_real

# Names end up in identifiers such as "<vehicle>/<sensor>", so they may not
# contain "/" or whitespace.
_NAME_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$"
_NAME_HINT = "letters, digits, '_', '.', '-'; no '/' or spaces"

# ------------------------------------------------------------- strict scalars
#
# pydantic's lax mode turns True into 1.0 and "45" into 45.0. Its strict mode
# is no cure: a strict model refuses lists for tuple fields (every JSON/TOML
# array), a strict float still takes numpy.bool_ and any object with
# __float__, and a strict int refuses numpy integers. So number fields carry
# their own before-validators (the tuple and model fields stay lax, so arrays
# and nested mappings are accepted), and bool/str fields pydantic's Strict.


def _kind(value: Any) -> str:
    return type(value).__name__


def _hint(value: Any) -> str:
    # numpy's bool is no subclass of bool; its type is named "bool" (numpy 2) or "bool_".
    if isinstance(value, bool) or _kind(value) in ("bool", "bool_"):
        return "; a boolean is not a number"
    if isinstance(value, str | bytes):
        return "; write the number without quotes"
    return ""


def _real(value: Any) -> float:
    """Accept an int or float (numpy's too) as a float; refuse bool, str and the rest."""
    if type(value) is float:
        return value
    if not is_real(value):
        raise PydanticCustomError(
            "real_number_expected",
            "expected a number (int or float), not {kind}{hint}",
            {"kind": _kind(value), "hint": _hint(value)},
        )
    try:
        return float(value)
    except OverflowError:
        raise PydanticCustomError(
            "real_number_overflow",
            "expected a number within the float64 range (magnitude below 1.8e308)",
        ) from None


def _integer(value: Any) -> int:
    """Accept an int (numpy's too); refuse bool, float (even 2.0), str and the rest."""
    if type(value) is int:
        return value
    if not is_integer(value):
        hint = _hint(value)
        if isinstance(value, numbers.Real) and not hint:
            hint = "; a whole number is written without a decimal point or exponent"
        raise PydanticCustomError(
            "integer_expected",
            "expected a whole number (int), not {kind}{hint}",
            {"kind": _kind(value), "hint": hint},
        )
    return int(value)


Real = Annotated[float, BeforeValidator(_real)]
"""A float field that also takes ints, never bools or strings."""
Integer = Annotated[int, BeforeValidator(_integer)]
"""An int field that takes ints only, never bools, floats or strings."""
Flag = Annotated[bool, Strict()]
"""A bool field that takes ``True``/``False`` only, never 1, 0 or "yes"."""
Text = Annotated[str, Strict()]
"""A str field that takes ``str`` only, never bytes."""

Vec3 = tuple[Real, Real, Real]
# The bound sits inside the before-validator, so the JSON Schema states it
# (``exclusiveMinimum``/``minimum``); outside it, pydantic would write a bare "gt".
PositiveFloat = Annotated[float, Field(gt=0), BeforeValidator(_real)]
NonNegativeFloat = Annotated[float, Field(ge=0), BeforeValidator(_real)]
PositiveVec3 = tuple[PositiveFloat, PositiveFloat, PositiveFloat]
NonNegativeVec6 = tuple[
    NonNegativeFloat,
    NonNegativeFloat,
    NonNegativeFloat,
    NonNegativeFloat,
    NonNegativeFloat,
    NonNegativeFloat,
]

# ------------------------------------------------------------------ bounds
#
# Generous limits: each is far above every catalogue vehicle and every frozen
# fixture scene, and far below what would exhaust memory or hang a process.

MAX_DOCUMENT_BYTES = 1 << 20
"""Largest spec file :func:`load_spec` reads [bytes] (1 MiB; a catalogue vehicle is 3-4 kB)."""

MAX_DOCUMENT_DEPTH = 32
"""Deepest nesting of objects/tables and arrays in a document [-], the root counting as 1.

A vehicle document nests 5 deep (vehicle, sensors, sensor, mount, vector). The
limit is checked before parsing, so a document nested 100,000 deep is refused
with :class:`SpecError` instead of exhausting the parser's recursion.
"""

MAX_DOCUMENT_ELEMENTS = 100_000
"""Most values in one document [-]: every object/table, array and scalar counts once
(keys are not counted separately). A catalogue vehicle has 132 to 178."""

MAX_SONAR_RAY_COUNT = 1 << 22
"""Most rays one imaging-sonar ping may trace, ``bearing_count * elevation_sample_count``
[-] (4,194,304; the reference survey sonar traces 256 x 64 = 16,384)."""

MAX_SONAR_CELL_COUNT = 1 << 22
"""Most image cells of one sonar frame, ``range_bin_count * bearing_count`` [-]
(4,194,304, e.g. 4,096 bins x 1,024 bearings; the reference sonar has 512 x 256).
Every per-cell channel of a frame (returns, primary contributor, validity) has this size."""

MAX_SONAR_TOPK_SLOT_COUNT = 1 << 24
"""Most top-K contributor slots of one sonar frame, ``range_bin_count * bearing_count *
top_k`` [-] (16,777,216; the reference sonar has 131,072 x 4 = 524,288). Every top-K
channel of a frame has this size."""

MAX_CAMERA_PIXEL_COUNT = 1 << 25
"""Most pixels (and rays) of one camera image, ``width_px * height_px`` [-]
(33,554,432, above 8K UHD 7680 x 4320; the catalogue cameras have 1280 x 720)."""

MAX_DVL_BEAM_COUNT = 256
"""Most acoustic beams of one DVL [-] (a Janus DVL has 4)."""


class SpecModel(BaseModel):
    """Common base of every specification model.

    Frozen (specs are values, safe to share and hash), refuses unknown keys
    (a typo is an error, not a silently ignored setting) and refuses NaN and
    infinities in every float field. Fields are typed with :data:`Real`,
    :data:`Integer`, :data:`Flag` and :data:`Text`, so no value is coerced from
    another kind (a bool or a string is never a number, a float never an int).
    """

    __content_type__ = "leviathan.specs.SpecModel"

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes``, validated exactly as a new document would be.

        Every field rule and cross-field check runs on the result, so a bad value is
        refused here, naming the field, instead of reaching ``render`` (where a
        negative ``elevation_sample_count`` would fail deep inside numpy). Fields not
        changed keep their values (nested specs are reused as they are: already
        valid); a field that is not the model's is refused like an unknown key.

        Example::

            sonar = get_vehicle("reference_survey_vehicle").sensor("sonar")
            coarse = sonar.replace(elevation_sample_count=256, name="coarse_sonar")

        Args:
            **changes: Field name to new value.

        Returns:
            A new, validated model of the same type.

        Raises:
            pydantic.ValidationError: A value a document could not hold (a
                ``ValueError``; its message names each refused field).
        """
        # Only the fields set so far (plus the changed ones) are passed, so that the
        # copy's set of explicitly given fields is the original's, as with pydantic.
        data = {name: getattr(self, name) for name in self.model_fields_set}
        data.update(changes)
        return type(self).model_validate(data)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy of the spec; with ``update``, validated: the same as :meth:`replace`.

        pydantic's own ``model_copy(update=...)`` skips validation, so a bad value
        would pass silently and break something far away; a spec copy never does.
        """
        if update:
            return self.replace(**dict(update))
        return super().model_copy(deep=deep)


# ------------------------------------------------------------ shared fields


def _name_field(what: str) -> Any:
    return Field(
        min_length=1,
        pattern=_NAME_PATTERN,
        description=f"{what} ({_NAME_HINT})",
    )


def _must_exceed(value: float, info: ValidationInfo, other: str) -> float:
    """Refuse ``value <= info.data[other]``; skipped when ``other`` itself failed."""
    lower = info.data.get(other)
    if lower is not None and not value > lower:
        raise ValueError(f"{info.field_name} ({value!r}) must be greater than {other} ({lower!r})")
    return value


def _above(other: str) -> AfterValidator:
    """A field's check that its value exceeds the field ``other`` declared before it
    (:func:`_must_exceed`): ``range_max_m: Annotated[Real, _above("range_min_m")]``."""

    def check(value: float, info: ValidationInfo) -> float:
        return _must_exceed(value, info, other)

    return AfterValidator(check)


def _range_min_field(window: str = "range window") -> Any:
    return Field(ge=0, description=f"Near edge of the {window} [m]")


def _range_max_field(window: str = "range window") -> Any:
    return Field(description=f"Far edge of the {window} [m], > range_min_m")


_RangeMax = Annotated[Real, _above("range_min_m")]
"""A sonar's far range edge [m]: a number above its ``range_min_m``."""


def _range_bin_width(spec: Any) -> float:
    """Width of one range bin [m] (``range_bin_width_m`` of the sonar specs)."""
    return (spec.range_max_m - spec.range_min_m) / spec.range_bin_count


def _oversized(factors: Mapping[str, int], what: str, bound_name: str, bound: int) -> str | None:
    """Describe a product of sizes above its bound, e.g. ``a x b = 3 x 4 = 12 rays``; else None."""
    size = math.prod(factors.values())
    if size <= bound:
        return None
    return (
        f"{' x '.join(factors)} = {' x '.join(f'{v:,}' for v in factors.values())} = "
        f"{size:,} {what}, more than {bound_name} = {bound:,}"
    )


def _refuse_oversized(problems: list[str | None], fix: str) -> None:
    found = [problem for problem in problems if problem is not None]
    if found:
        raise ValueError("; ".join(found) + f"; {fix}")


def _schedule_field(description: str = "Sampling schedule in integer nanoseconds") -> Any:
    return Field(description=description)


def _mount_field(
    description: str = "Mount T_link_sensor of the sensor FRD frame (x along the boresight)",
) -> Any:
    return Field(description=description)


def _hardware_note_field(
    description: str = (
        "Provenance of the hardware values, e.g. 'declared test value, not a device specification'"
    ),
) -> Any:
    return Field(min_length=1, description=description)


def _omitted_while_none(*names: str) -> Any:
    """A model's serializer that leaves out each field of ``names`` while it is None.

    Assigned in a class body (``_omit_absent = _omitted_while_none("hull")``), so a
    document that leaves those fields out dumps, saves and hashes as the keys it states
    (and as it did before an optional field was added).
    """

    def omit(
        self: BaseModel, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        data = handler(self)
        for name in names:
            if getattr(self, name) is None:
                data.pop(name, None)
        return data

    return model_serializer(mode="wrap")(omit)


def _refuse_oversized_sonar(
    rays: Mapping[str, int], cells: Mapping[str, int], top_k: int, fix: str
) -> None:
    """Refuses a sonar whose rays per ping, cells or top-K slots (cells x ``top_k``) pass
    :data:`MAX_SONAR_RAY_COUNT`, :data:`MAX_SONAR_CELL_COUNT` or
    :data:`MAX_SONAR_TOPK_SLOT_COUNT`, naming each product and ``fix``."""
    _refuse_oversized(
        [
            _oversized(rays, "rays per ping", "MAX_SONAR_RAY_COUNT", MAX_SONAR_RAY_COUNT),
            _oversized(cells, "cells", "MAX_SONAR_CELL_COUNT", MAX_SONAR_CELL_COUNT),
            _oversized(
                {**cells, "top_k": top_k},
                "top-K slots",
                "MAX_SONAR_TOPK_SLOT_COUNT",
                MAX_SONAR_TOPK_SLOT_COUNT,
            ),
        ],
        fix,
    )
