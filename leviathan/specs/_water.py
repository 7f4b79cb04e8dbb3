"""The water column: :class:`WaterSpec` and its current profile (:class:`CurrentLayer`)."""

from __future__ import annotations

import bisect
import math

from pydantic import Field, field_validator, model_validator

from leviathan.specs._base import Real, SpecModel, Vec3


class CurrentLayer(SpecModel):
    """One knot of a piecewise-linear current profile."""

    __content_type__ = "leviathan.specs.CurrentLayer"

    depth_m: Real = Field(ge=0, description="Depth below the sea surface [m], >= 0")
    current_ned_m_per_s: Vec3 = Field(
        description="Water velocity at this depth in world NED (north, east, down) [m/s]"
    )


class WaterSpec(SpecModel):
    """Properties of the water column.

    Only physically impossible values are refused here. Whether a medium lies
    inside an acoustic model's validity range is decided by that model, which
    reports out-of-range media as unsupported rather than invalid.
    """

    __content_type__ = "leviathan.specs.WaterSpec"

    temperature_c: Real = Field(
        default=10.0, ge=-5.0, le=40.0, description="Water temperature [°C], in [-5, 40]"
    )
    salinity_psu: Real = Field(default=35.0, ge=0.0, description="Practical salinity [PSU], >= 0")
    ph: Real = Field(default=8.0, ge=0.0, le=14.0, description="pH [-], in [0, 14]")
    current_ned_m_per_s: Vec3 = Field(
        default=(0.0, 0.0, 0.0),
        description=(
            "Uniform water velocity in world NED [m/s]; used when current_profile is empty "
            "and must stay zero when a profile is given"
        ),
    )
    current_profile: tuple[CurrentLayer, ...] = Field(
        default=(),
        description=(
            "Piecewise-linear current over depth, layers in strictly increasing depth [m]; "
            "linear between layers, held constant above the first and below the last"
        ),
    )

    @field_validator("current_profile")
    @classmethod
    def _depths_increase(cls, layers: tuple[CurrentLayer, ...]) -> tuple[CurrentLayer, ...]:
        for index in range(1, len(layers)):
            if not layers[index].depth_m > layers[index - 1].depth_m:
                raise ValueError(
                    "layer depths must be strictly increasing, but layer "
                    f"{index} has depth_m={layers[index].depth_m!r} after "
                    f"{layers[index - 1].depth_m!r}; sort the layers and remove duplicates"
                )
        return layers

    @model_validator(mode="after")
    def _one_current_source(self) -> WaterSpec:
        if self.current_profile and any(v != 0.0 for v in self.current_ned_m_per_s):
            raise ValueError(
                "give either a uniform current_ned_m_per_s or a current_profile, not both; "
                "with a profile, leave current_ned_m_per_s at (0, 0, 0)"
            )
        return self

    def current_at_depth(self, depth_m: float) -> Vec3:
        """Water velocity at a depth.

        Args:
            depth_m: Depth below the surface [m]; values outside the profile are
                clamped to the nearest layer.

        Returns:
            Current in world NED [m/s]. At a layer's depth the layer's value is
            returned exactly.

        Raises:
            ValueError: If ``depth_m`` is not finite.
        """
        if not math.isfinite(depth_m):
            raise ValueError(f"depth_m must be finite [m], got {depth_m!r}")
        layers = self.current_profile
        if not layers:
            return self.current_ned_m_per_s
        depths = [layer.depth_m for layer in layers]
        if depth_m <= depths[0]:
            return layers[0].current_ned_m_per_s
        if depth_m >= depths[-1]:
            return layers[-1].current_ned_m_per_s
        upper = bisect.bisect_right(depths, depth_m)
        lower = upper - 1
        d0, d1 = depths[lower], depths[upper]
        c0 = layers[lower].current_ned_m_per_s
        c1 = layers[upper].current_ned_m_per_s
        weight = (depth_m - d0) / (d1 - d0)
        return (
            c0[0] + weight * (c1[0] - c0[0]),
            c0[1] + weight * (c1[1] - c0[1]),
            c0[2] + weight * (c1[2] - c0[2]),
        )
