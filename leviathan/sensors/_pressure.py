"""Canonical pressure (depth) sensor: absolute pressure at the sensor from the committed depth.

Physics. The sensor frame is FRD placed by its mount; the pressure port is the
sensor origin, at depth ``d = z`` of ``T_world_sensor = T_world_body @
T_body_sensor`` (world NED: z down, 0 at the sea surface). Below the surface the
water column is hydrostatic at constant density::

    p = p_s + ρ(T, S) · g · d          (d > 0; p = p_s at or above the surface)

with ``p_s = spec.surface_pressure_pa`` (the atmosphere's, 101325 Pa by default),
``g = 9.81 m/s²`` (the World's gravity, :data:`~leviathan.sensors.GRAVITY_NED`,
the same the dynamics and the IMU use) and ``ρ`` the water's density at one
atmosphere from its temperature and practical salinity (``spec.water``), by the
UNESCO one-atmosphere international equation of state (Millero and Poisson 1981,
UNESCO technical paper 38, 1981; temperature converted to IPTS-68 as ``t68 =
1.00024 t90``)::

    ρ_w = 999.842594 + 6.793952e-2 t − 9.095290e-3 t² + 1.001685e-4 t³
          − 1.120083e-6 t⁴ + 6.536332e-9 t⁵
    ρ   = ρ_w + S (0.824493 − 4.0899e-3 t + 7.6438e-5 t² − 8.2467e-7 t³ + 5.3875e-9 t⁴)
          + S^1.5 (−5.72466e-3 + 1.0227e-4 t − 1.6546e-6 t²) + 4.8314e-4 S²

(polynomials evaluated by Horner's rule on Python floats, in this order). The
water's compressibility is left out: the density rises by about 0.45 % per
1000 dbar, so the hydrostatic pressure is low by about ``2.4e-6 · d / m``
relative (0.025 % at 100 m, 0.24 % at 1000 m, measured against TEOS-10's
``gsw.p_from_z`` at the latitude where its gravity is 9.81 m/s², which also
counts the small rise of gravity with depth; a test checks the bound). The
atmosphere above the surface is not modelled: a sensor out of the water reads
``p_s``, and ``submerged`` says so.

Noise is keyed: ``pressure_pa = p + noise_std_pa · normal(seed, sensor_id,
sample_index, "pressure", [0])``, drawn only when ``noise_std_pa > 0``.

The analytic tier's datasheet model (:class:`PressureNoiseModel`: white noise, a
turn-on offset, drift, resolution and full scale) replaces the keyed noise there.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from leviathan._validation import check_seed
from leviathan.frames import sensor_pose
from leviathan.random import normal
from leviathan.ros import header
from leviathan.sensors._context import SampleContext
from leviathan.sensors._declarations import AnalyticTier, RosEncoding, RosTopic, channel_doc
from leviathan.sensors._kinematics import GRAVITY_NED, BodyKinematics
from leviathan.sensors._protocol import register_sensor_kind
from leviathan.sensors._sample import SensorSample, _check_sample_inputs, _noise_record
from leviathan.specs import PressureSpec, WaterSpec

__all__ = [
    "PRESSURE_EFFECT",
    "PRESSURE_MODEL_VERSION",
    "PressureNoiseModel",
    "PressureSensor",
    "measure_pressure",
    "seawater_density_kg_m3",
]

PRESSURE_MODEL_VERSION = "leviathan.pressure.v1"
"""Name and version of the pressure model; part of every pressure sample's identity."""

PRESSURE_EFFECT = "pressure"
"""Keyed-randomness effect of the pressure noise (index 0)."""

_INDEX = np.zeros(1, dtype=np.int64)


def seawater_density_kg_m3(temperature_c: float, salinity_psu: float) -> float:
    """Density of sea water at one atmosphere [kg/m³] (UNESCO 1981, see the module docstring).

    Args:
        temperature_c: In-situ temperature, ITS-90 [°C] (valid -2..40).
        salinity_psu: Practical salinity [PSU] (valid 0..42).

    Returns:
        ρ(S, t, 0) [kg/m³], e.g. 1027.675 at 5 °C, 35 PSU.
    """
    t = 1.00024 * float(temperature_c)
    s = float(salinity_psu)
    rho_w = 999.842594 + t * (
        6.793952e-2 + t * (-9.095290e-3 + t * (1.001685e-4 + t * (-1.120083e-6 + t * 6.536332e-9)))
    )
    a = 0.824493 + t * (-4.0899e-3 + t * (7.6438e-5 + t * (-8.2467e-7 + t * 5.3875e-9)))
    b = -5.72466e-3 + t * (1.0227e-4 + t * -1.6546e-6)
    return rho_w + s * a + s * math.sqrt(s) * b + 4.8314e-4 * s * s


def measure_pressure(
    spec: PressureSpec,
    kin: BodyKinematics,
    *,
    sensor_id: str,
    sample_index: int,
    time_ns: int,
    water: WaterSpec | None = None,
    seed: int | None = None,
) -> SensorSample:
    """Take one pressure sample from the committed pose (see the module docstring).

    Args:
        spec: Pressure spec (surface pressure, noise std, mount).
        kin: Committed body kinematics; only the pose is used.
        sensor_id: Stable sensor id, ``"vehicle/sensor"``; part of the noise key.
        sample_index: Index n of the sample in the sensor's schedule, >= 0.
        time_ns: Sample time [ns].
        water: The water (temperature and salinity give the density); default
            :class:`WaterSpec` defaults (10 °C, 35 PSU).
        seed: Root seed for keyed noise; required when ``noise_std_pa > 0``.

    Returns:
        A ``kind="pressure"`` :class:`SensorSample` with float64 scalar channels
        ``pressure_pa`` (measured, absolute [Pa]), ``true_pressure_pa`` (noise-free
        [Pa]) and ``true_depth_m`` (the port's depth [m], negative above the surface),
        and uint8 ``submerged`` (1 below the surface).

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If an identifier is malformed, or noise is enabled without a seed.
    """
    ids = _check_sample_inputs(spec, PressureSpec, (sensor_id, sample_index, time_ns), kin=kin)
    water = WaterSpec() if water is None else water
    if not isinstance(water, WaterSpec):
        raise TypeError(f"water: expected a WaterSpec, got {type(water).__name__}")
    std = float(spec.noise_std_pa)
    check_seed(seed, needed_by="pressure noise (noise_std_pa > 0)" if std > 0.0 else None)

    T_world_sensor = sensor_pose(kin.T_world_body, spec.mount.transform())
    depth = float(T_world_sensor.translation[2])
    rho = seawater_density_kg_m3(water.temperature_c, water.salinity_psu)
    g = float(GRAVITY_NED[2])
    surface = float(spec.surface_pressure_pa)
    submerged = depth > 0.0
    true_p = surface + rho * g * depth if submerged else surface
    p = true_p
    if std > 0.0:
        p = true_p + float(normal(seed, sensor_id, sample_index, PRESSURE_EFFECT, _INDEX)[0]) * std
    channels = MappingProxyType(
        {
            "pressure_pa": np.array(p),
            "true_pressure_pa": np.array(true_p),
            "true_depth_m": np.array(depth),
            "submerged": np.array(1 if submerged else 0, dtype=np.uint8),
        }
    )
    metadata = {
        "model": PRESSURE_MODEL_VERSION,
        "spec": {"surface_pressure_pa": surface, "noise_std_pa": std},
        "T_world_sensor": T_world_sensor.to_dict(),
        "water": {
            "temperature_c": float(water.temperature_c),
            "salinity_psu": float(water.salinity_psu),
        },
        "density_kg_m3": rho,
        "gravity_m_s2": g,
        "noise": [_noise_record(PRESSURE_EFFECT, drawn=std > 0.0, seed=seed)],
    }
    return SensorSample(
        kind="pressure",
        **ids,
        channels=channels,
        metadata=metadata,
    )


# --------------------------------------------------------------------------- analytic tier


class PressureNoiseModel(BaseModel):
    """Datasheet error model of a pressure sensor (analytic tier, not canonical).

    ``p_meas = clip(q(p + b_on + b_drift(t) + n), 0, full_scale_pa)``: white noise
    ``n`` (std ``noise_std_pa`` per sample), a turn-on offset ``b_on`` (one draw
    of std ``offset_std_pa`` when the sensor starts), a drift ``b_drift`` (random
    walk of ``drift_pa_per_sqrt_h``: ``b_k = b_{k-1} + D sqrt(Δt / 3600 s) w_k``),
    quantised to ``resolution_pa`` (``q(x) = resolution · round(x / resolution)``,
    ties to even; none when 0) and clipped to the full-scale range (``saturated`` marks it).
    Draw order: one normal for the offset at start, then two per sample (white,
    drift), whatever the parameters.
    """

    __content_type__ = "leviathan.sensors.PressureNoiseModel"

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid", allow_inf_nan=False)

    kind: Literal["pressure"] = "pressure"
    noise_std_pa: float = Field(0.0, ge=0, description="White noise per sample [Pa]")
    offset_std_pa: float = Field(0.0, ge=0, description="Turn-on offset std [Pa]")
    drift_pa_per_sqrt_h: float = Field(0.0, ge=0, description="Drift random walk [Pa/√h]")
    resolution_pa: float = Field(0.0, ge=0, description="Output resolution [Pa]; 0: none")
    full_scale_pa: float | None = Field(
        None, gt=0, description="Full-scale absolute pressure [Pa]; None: unbounded"
    )


def _analytic_recorder(noise: PressureNoiseModel | None, generator: Any, period_ns: int) -> Any:
    """Rows of the true and measured pressure under the datasheet model (when declared)."""
    offset = 0.0 if noise is None else float(generator.standard_normal()) * noise.offset_std_pa
    drift = [0.0]
    step = math.sqrt(period_ns / 1e9 / 3600.0)

    def record(sample: SensorSample) -> dict[str, Any]:
        true_p = float(sample.channels["true_pressure_pa"])
        row: dict[str, Any] = {
            "true_pressure_pa": np.array(true_p),
            "true_depth_m": np.array(sample.channels["true_depth_m"]),
        }
        p, saturated = true_p, False
        if noise is not None:
            white, walk = generator.standard_normal(2).tolist()
            drift[0] += noise.drift_pa_per_sqrt_h * step * walk
            p = true_p + offset + drift[0] + noise.noise_std_pa * white
            if noise.resolution_pa > 0.0:
                p = noise.resolution_pa * round(p / noise.resolution_pa)
            upper = math.inf if noise.full_scale_pa is None else noise.full_scale_pa
            saturated = not 0.0 <= p <= upper
            p = min(max(p, 0.0), upper)
        row["pressure_pa"] = np.array(p)
        row["saturated"] = np.array(1 if saturated else 0, dtype=np.uint8)
        return row

    return record


# --------------------------------------------------------------------------- declarations

_FLUID_PRESSURE = "sensor_msgs/msg/FluidPressure"


def _fluid_pressure(sample: SensorSample, frame_id: str) -> list[tuple[str, dict[str, Any]]]:
    """``sensor_msgs/FluidPressure``: the measured absolute pressure [Pa] and its variance."""
    std = float(sample.metadata["spec"]["noise_std_pa"])
    message = {
        "header": header(sample.time_ns, frame_id),
        "fluid_pressure": float(sample.channels["pressure_pa"]),
        # 0 is "variance unknown" in sensor_msgs/FluidPressure; a noise-free sensor says so.
        "variance": std * std,
    }
    return [("", message)]


class PressureSensor:
    """Pressure samples: :func:`measure_pressure` on a sample context."""

    kind = "pressure"
    spec_type = PressureSpec
    product_type = SensorSample
    # The pose and the water only: no scene, no surfaces.
    reads_scene = False
    reads_surfaces = False
    channels = MappingProxyType(
        {
            "pressure_pa": channel_doc("Pa", "-", "scalar", "measured absolute pressure"),
            "true_pressure_pa": channel_doc(
                "Pa", "-", "scalar", "noise-free absolute pressure p_s + rho g d at the port"
            ),
            "true_depth_m": channel_doc(
                "m",
                "world NED z",
                "scalar",
                "depth of the pressure port (negative above the surface)",
            ),
            "submerged": channel_doc(
                "-", "-", "scalar", "1 when the port is below the sea surface"
            ),
        }
    )
    ros = RosEncoding(
        frame="sensor",
        topics=(RosTopic("", _FLUID_PRESSURE),),
        encode=_fluid_pressure,
        definitions={
            # ros2/common_interfaces sensor_msgs/msg/FluidPressure.msg (comments left out).
            "sensor_msgs/FluidPressure": (
                "std_msgs/Header header\nfloat64 fluid_pressure\nfloat64 variance\n"
            ),
        },
    )
    analytic = AnalyticTier(
        noise_model=PressureNoiseModel,
        start=_analytic_recorder,
        plot_units={"pressure_pa": ("pressure error [Pa]", 1.0)},
    )

    def summary(self, spec: PressureSpec) -> str:
        """Surface pressure and noise, in one line."""
        return f"surface {spec.surface_pressure_pa:g} Pa, noise {spec.noise_std_pa:g} Pa"

    def sample(self, spec: PressureSpec, context: SampleContext) -> SensorSample:
        """One pressure sample of ``spec`` at the committed pose of ``context``."""
        return measure_pressure(
            spec,
            context.kinematics,
            **context.ids(),
            water=context.water,
            seed=context.root_seed,
        )


register_sensor_kind(PressureSensor())
