"""Acoustic materials: what a surface returns to the sonar, and how sure we are.

Acoustic materials are kept separate from optical reflectance and are never
derived from it. Every parameter carries its meaning, units, source and evidence
class, so a reader can tell a measured value from a declared test value.

LEVIATHAN ships only clearly labelled test/reference surfaces (Lambert surfaces
with stated mu). No physical seabed or structure material is claimed, because no
published high-frequency backscatter parameter for such materials could be
verified from a primary source. Scene content with no declared acoustic
material is reported as "acoustic property unknown" (:attr:`AcousticStatus.UNKNOWN`):
its geometry ground truth is valid, but its return is not given a value.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, TypeAlias

import numpy as np
import numpy.typing as npt

from leviathan._validation import check_non_empty_str

__all__ = [
    "TEST_LAMBERT_BRIGHT",
    "TEST_LAMBERT_DARK",
    "TEST_LAMBERT_MEDIUM",
    "TEST_REFERENCE_SOURCE",
    "AcousticMaterial",
    "AcousticStatus",
    "DeclaredMaterial",
    "EvidenceClass",
    "LambertMaterial",
    "MaterialParameter",
    "get_material",
    "material_status",
    "reference_materials",
]

TEST_REFERENCE_SOURCE = "LEVIATHAN test/reference surface; not a physical material"
"""The ``source`` of every built-in surface."""

LAMBERT_MU_UNITS = "1 (linear, per steradian per unit area)"


class EvidenceClass(enum.Enum):
    """How a material parameter's value is known."""

    __content_type__ = "leviathan.materials.EvidenceClass"

    TEST_REFERENCE = "test_reference"
    """Declared test/reference value, not a measurement."""
    PUBLISHED_PRIMARY = "published_primary"
    """From a verified primary source (paper, dataset) that was read."""
    PUBLISHED_SECONDARY = "published_secondary"
    """Quoted from a secondary source (review, textbook, other software)."""
    ASSUMED = "assumed"
    """Chosen by the user or developer without a source."""

    @property
    def description(self) -> str:
        """One-line meaning of the evidence class."""
        return _EVIDENCE_DESCRIPTIONS[self]


_EVIDENCE_DESCRIPTIONS: dict[EvidenceClass, str] = {
    EvidenceClass.TEST_REFERENCE: "declared test/reference value, not a measurement",
    EvidenceClass.PUBLISHED_PRIMARY: "from a verified primary source",
    EvidenceClass.PUBLISHED_SECONDARY: "quoted from a secondary source",
    EvidenceClass.ASSUMED: "assumed without a source",
}


class AcousticStatus(enum.IntEnum):
    """Acoustic status of a sonar sample; stored as a small integer per cell."""

    __content_type__ = "leviathan.materials.AcousticStatus"

    NONE = 0
    """No sample: the ray hit nothing inside the range window."""
    KNOWN = 1
    """Declared material whose scattering model LEVIATHAN implements."""
    UNKNOWN = 2
    """Scene content with no declared acoustic material ("acoustic property
    unknown"): geometry ground truth is valid, the return is not given a value."""
    UNSUPPORTED = 3
    """Declared material whose scattering model is not implemented."""
    INTERFACE = 4
    """The sea-surface interface; its scattering is not modelled."""


@dataclass(frozen=True)
class MaterialParameter:
    """One acoustic material parameter with its provenance.

    Attributes:
        name: Parameter name, e.g. ``"mu"``.
        value: Parameter value in ``units``; finite.
        units: Units of ``value``, e.g. ``"1 (linear, per steradian per unit area)"``.
        meaning: What the parameter is, in words.
        source: Where the value comes from (citation, or the test-surface label).
        evidence_class: How the value is known.
    """

    __content_type__ = "leviathan.materials.MaterialParameter"

    name: str
    value: float
    units: str
    meaning: str
    source: str
    evidence_class: EvidenceClass

    def __post_init__(self) -> None:
        for attr in ("name", "units", "meaning", "source"):
            check_non_empty_str(f"MaterialParameter.{attr}", getattr(self, attr))
        if isinstance(self.value, bool) or not isinstance(self.value, int | float):
            raise ValueError(
                f"MaterialParameter.value for {self.name!r} must be a real number, "
                f"got {self.value!r}"
            )
        if not math.isfinite(self.value):
            raise ValueError(
                f"MaterialParameter.value for {self.name!r} must be finite, got {self.value!r}"
            )
        object.__setattr__(self, "value", float(self.value))
        if not isinstance(self.evidence_class, EvidenceClass):
            raise ValueError(
                f"MaterialParameter.evidence_class for {self.name!r} must be an "
                f"EvidenceClass, got {self.evidence_class!r}"
            )

    def __content__(self) -> dict[str, Any]:
        """Plain JSON-like content for identity hashing."""
        return {
            "name": self.name,
            "value": self.value,
            "units": self.units,
            "meaning": self.meaning,
            "source": self.source,
            "evidence_class": self.evidence_class.value,
        }


@dataclass(frozen=True)
class LambertMaterial:
    """A Lambert scatterer: sigma_b(theta) = mu cos^2(theta).

    Attributes:
        name: Material name, unique in a catalogue.
        mu: The Lambert parameter mu [1 (linear, per steradian per unit area)];
            finite and > 0.
        description: What the material stands for.
        model: Always ``"lambert"``.
        status: Always :attr:`AcousticStatus.KNOWN`.
    """

    __content_type__ = "leviathan.materials.LambertMaterial"

    name: str
    mu: MaterialParameter
    description: str
    model: ClassVar[str] = "lambert"
    status: ClassVar[AcousticStatus] = AcousticStatus.KNOWN

    def __post_init__(self) -> None:
        check_non_empty_str("LambertMaterial.name", self.name)
        check_non_empty_str("LambertMaterial.description", self.description)
        if not isinstance(self.mu, MaterialParameter):
            raise ValueError(
                f"LambertMaterial {self.name!r}: mu must be a MaterialParameter, got {self.mu!r}"
            )
        if not self.mu.value > 0.0:
            raise ValueError(
                f"LambertMaterial {self.name!r}: mu must be > 0 (linear), got {self.mu.value!r}; "
                "give mu as a linear value, e.g. 10 ** (-20 / 10) for -20 dB"
            )

    def backscatter(self, cos_incidence: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Backscattering cross-section per unit area per steradian, mu cos^2(theta).

        Evaluated element-wise as ``mu * (c * c)``, exactly in that order.

        Args:
            cos_incidence: cos(theta) of the incidence angle to the surface
                normal [1], any shape, each in [0, 1].

        Returns:
            sigma_b [1 (linear, per steradian per unit area)], float64, same shape.

        Raises:
            ValueError: If any cosine is not finite or outside [0, 1].
        """
        c = np.asarray(cos_incidence, dtype=np.float64)
        if not np.all(np.isfinite(c)) or np.any(c < 0.0) or np.any(c > 1.0):
            raise ValueError(
                f"cos_incidence must be finite and in [0, 1] everywhere for {self.name!r}; "
                "pass |cos| of the angle between the ray and the surface normal"
            )
        return self.mu.value * (c * c)

    def __content__(self) -> dict[str, Any]:
        """Plain JSON-like content for identity hashing."""
        return {
            "name": self.name,
            "model": self.model,
            "mu": self.mu.__content__(),
            "description": self.description,
        }


@dataclass(frozen=True)
class DeclaredMaterial:
    """A declared material whose scattering model LEVIATHAN does not implement.

    Its samples are reported as :attr:`AcousticStatus.UNSUPPORTED`: geometry is
    valid, the return is not given a value.

    Attributes:
        name: Material name, unique in a catalogue.
        model: Name of the declared model, e.g. ``"jackson_apl94"``.
        parameters: The model's parameters, each with provenance.
        description: What the material stands for.
        status: Always :attr:`AcousticStatus.UNSUPPORTED`.
    """

    __content_type__ = "leviathan.materials.DeclaredMaterial"

    name: str
    model: str
    parameters: tuple[MaterialParameter, ...] = field(default=())
    description: str = "declared material (model not implemented)"
    status: ClassVar[AcousticStatus] = AcousticStatus.UNSUPPORTED

    def __post_init__(self) -> None:
        check_non_empty_str("DeclaredMaterial.name", self.name)
        check_non_empty_str("DeclaredMaterial.model", self.model)
        check_non_empty_str("DeclaredMaterial.description", self.description)
        params = tuple(self.parameters)
        for p in params:
            if not isinstance(p, MaterialParameter):
                raise ValueError(
                    f"DeclaredMaterial {self.name!r}: parameters must be MaterialParameter, "
                    f"got {p!r}"
                )
        object.__setattr__(self, "parameters", params)

    def backscatter(self, cos_incidence: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Not available: the declared model is not implemented.

        Raises:
            NotImplementedError: Always.
        """
        raise NotImplementedError(
            f"material {self.name!r} declares scattering model {self.model!r}, which "
            "LEVIATHAN does not implement; its samples are reported as UNSUPPORTED. "
            "Use a LambertMaterial for a surface with a computed return."
        )

    def __content__(self) -> dict[str, Any]:
        """Plain JSON-like content for identity hashing."""
        return {
            "name": self.name,
            "model": self.model,
            "parameters": [p.__content__() for p in self.parameters],
            "description": self.description,
        }


AcousticMaterial: TypeAlias = LambertMaterial | DeclaredMaterial


def material_status(material: AcousticMaterial | None) -> AcousticStatus:
    """Acoustic status of a surface given its declared material.

    Args:
        material: The declared acoustic material, or None when the scene
            content has none.

    Returns:
        KNOWN for a Lambert material, UNSUPPORTED for a declared material with an
        unimplemented model, UNKNOWN for no material.

    Raises:
        TypeError: If ``material`` is not an acoustic material or None.
    """
    if material is None:
        return AcousticStatus.UNKNOWN
    if isinstance(material, LambertMaterial | DeclaredMaterial):
        return material.status
    raise TypeError(
        f"material must be a LambertMaterial, DeclaredMaterial or None, "
        f"got {type(material).__name__}"
    )


def _test_lambert(name: str, mu_db: int) -> LambertMaterial:
    return LambertMaterial(
        name=name,
        mu=MaterialParameter(
            name="mu",
            value=10.0 ** (mu_db / 10.0),
            units=LAMBERT_MU_UNITS,
            meaning=f"Lambert parameter mu, {mu_db} dB; sigma_b(theta) = mu cos^2(theta)",
            source=TEST_REFERENCE_SOURCE,
            evidence_class=EvidenceClass.TEST_REFERENCE,
        ),
        description=f"Test/reference Lambert surface, mu = {mu_db} dB; not a physical material",
    )


TEST_LAMBERT_BRIGHT = _test_lambert("test_lambert_bright", -10)
"""Test surface, mu = 10^(-10/10) = 0.1 (-10 dB)."""
TEST_LAMBERT_MEDIUM = _test_lambert("test_lambert_medium", -20)
"""Test surface, mu = 10^(-20/10) = 0.01 (-20 dB)."""
TEST_LAMBERT_DARK = _test_lambert("test_lambert_dark", -30)
"""Test surface, mu = 10^(-30/10) = 0.001 (-30 dB)."""

_REFERENCE_MATERIALS: Mapping[str, AcousticMaterial] = MappingProxyType(
    {m.name: m for m in (TEST_LAMBERT_BRIGHT, TEST_LAMBERT_MEDIUM, TEST_LAMBERT_DARK)}
)


def reference_materials() -> Mapping[str, AcousticMaterial]:
    """The built-in test/reference surfaces by name (read-only)."""
    return _REFERENCE_MATERIALS


def get_material(name: str) -> AcousticMaterial:
    """Look up a built-in test/reference surface by name.

    Args:
        name: Material name, e.g. ``"test_lambert_medium"``.

    Returns:
        The material.

    Raises:
        KeyError: If no built-in material has that name; the message lists the
            available names.
    """
    try:
        return _REFERENCE_MATERIALS[name]
    except KeyError:
        available = ", ".join(sorted(_REFERENCE_MATERIALS))
        raise KeyError(
            f"no built-in acoustic material named {name!r}; available: {available}. "
            "LEVIATHAN ships only test/reference surfaces; declare other materials yourself."
        ) from None
