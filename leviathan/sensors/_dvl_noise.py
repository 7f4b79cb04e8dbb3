"""Analytic DVL error model: per-beam noise, bottom-lock dropout, outliers (not canonical).

Works on a canonical DVL sample (:func:`leviathan.sensors.measure_dvl`): its beam
directions, the geometric validity and slant range of each beam, and the true
velocity of the sensor over the ground ``v`` (sensor frame). For beam ``k`` with
unit direction ``d_k`` (sensor frame):

1. **Dropout.** A geometrically valid beam is lost with probability
   ``p_k = 1 - (1 - p0)(1 - L(h_k; h_max, w_h))(1 - L(θ_k; θ_max, w_θ))``,
   ``L(x; x0, w) = 1 / (1 + exp(-(x - x0) / w))`` (50 % at ``x0``, rising over
   about ``4 w``), with ``p0`` the base dropout, ``h_k = R_k cos a`` the beam's
   altitude along the boresight and ``θ_k`` its incidence on the bottom: the
   angle between the beam and the normal of the plane through the valid beams'
   hit points (the world vertical when fewer than three beams hit). A term is
   left out when its ``max_*`` is not given.
2. **Beam velocity.** A surviving beam measures ``r_k = d_k · v + σ n_k``; with
   probability ``p_out`` it is an outlier and ``σ_out n'_k`` is added as well.
3. **Velocity.** With at least three surviving beams the DVL is locked and the
   velocity is the least-squares solution of ``d_k · v̂ = r_k`` over them; without
   a lock it is missing (NaN).

Draw order (the reproducibility contract): per ping, ``beam_count x 2`` uniforms
(dropout, outlier) then ``beam_count x 2`` normals (noise, outlier size), in C
order, always, whatever the parameters and the geometry.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DVLNoiseModel", "apply_dvl_noise", "dvl_recorder", "logistic"]

MIN_BEAMS_FOR_LOCK = 3
"""Beams a lock needs (three non-coplanar beams fix a 3D velocity)."""


class DVLNoiseModel(BaseModel):
    """Datasheet-style error parameters of one DVL (analytic tier)."""

    __content_type__ = "leviathan.analytic.DVLNoiseModel"

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid", allow_inf_nan=False)

    kind: Literal["dvl"] = "dvl"
    beam_velocity_noise_m_s: float = Field(
        0.0, ge=0.0, description="Along-beam velocity noise, 1σ per beam and ping [m/s]"
    )
    dropout_probability: float = Field(
        0.0, ge=0.0, le=1.0, description="Base probability that a beam is lost per ping [-]"
    )
    max_altitude_m: float | None = Field(
        None, gt=0.0, description="Beam altitude where half the beams are lost [m]; None: no term"
    )
    altitude_rolloff_m: float = Field(
        2.0, gt=0.0, description="Width w_h of the altitude roll-off [m]"
    )
    max_incidence_deg: float | None = Field(
        None,
        gt=0.0,
        le=90.0,
        description="Incidence on the bottom where half the beams are lost [deg]; None: no term",
    )
    incidence_rolloff_deg: float = Field(
        5.0, gt=0.0, description="Width w_θ of the incidence roll-off [deg]"
    )
    outlier_probability: float = Field(
        0.0, ge=0.0, le=1.0, description="Probability that a surviving beam is an outlier [-]"
    )
    outlier_std_m_s: float = Field(0.0, ge=0.0, description="Std of an outlier's error [m/s]")


def logistic(x: np.ndarray, centre: float, width: float) -> np.ndarray:
    """``1 / (1 + exp(-(x - centre) / width))``, elementwise (0 for NaN input)."""
    z = np.clip(-(np.asarray(x, dtype=np.float64) - centre) / width, -700.0, 700.0)
    out = 1.0 / (1.0 + np.exp(z))
    return np.where(np.isnan(out), 0.0, out)


def _incidence_deg(
    directions_world: np.ndarray, ranges: np.ndarray, origin: np.ndarray, valid: np.ndarray
) -> np.ndarray:
    """Incidence [deg] of each beam on the plane through the valid hit points."""
    normal = np.array([0.0, 0.0, 1.0])
    if np.count_nonzero(valid) >= 3:
        points = origin + directions_world[valid] * ranges[valid, None]
        centred = points - points.mean(axis=0)
        candidate = np.linalg.svd(centred)[2][-1]
        if np.all(np.isfinite(candidate)):
            normal = candidate
    cosine = np.abs(directions_world @ normal)
    return np.degrees(np.arccos(np.clip(cosine, 0.0, 1.0)))


def apply_dvl_noise(
    sample: Any, model: DVLNoiseModel, generator: np.random.Generator
) -> dict[str, np.ndarray]:
    """The noisy measurement of one canonical DVL sample.

    Args:
        sample: A canonical ``kind="dvl"`` :class:`~leviathan.sensors.SensorSample`.
        model: The error parameters.
        generator: The sensor's own generator (draws as in the module docstring).

    Returns:
        ``velocity_sensor_m_s`` (3,) [m/s], NaN without a lock;
        ``beam_velocity_m_s`` [beam_count] along-beam velocities, NaN for lost beams;
        ``beam_valid`` uint8 [beam_count] after dropout; ``beam_dropout_probability``
        [beam_count]; ``beam_incidence_deg`` [beam_count]; ``beam_outlier`` uint8;
        ``lock`` uint8 (); ``true_velocity_sensor_m_s`` (3,) [m/s].
    """
    if not isinstance(model, DVLNoiseModel):
        raise TypeError(f"model: expected a DVLNoiseModel, got {type(model).__name__}")
    if getattr(sample, "kind", None) != "dvl":
        raise TypeError(f"sample: expected a canonical DVL SensorSample, got {sample!r:.80}")
    ch, meta = sample.channels, sample.metadata
    dirs = np.asarray(meta["beam_directions_sensor"], dtype=np.float64)
    beams = dirs.shape[0]
    true_v = np.asarray(ch["true_velocity_sensor_m_s"], dtype=np.float64)
    ranges = np.asarray(ch["beam_range_m"], dtype=np.float64)
    geometric = np.asarray(ch["beam_valid"]).astype(bool)

    uniforms = generator.random((beams, 2))
    normals = generator.standard_normal((beams, 2))

    rotation = np.asarray(meta["T_world_sensor"]["rotation"], dtype=np.float64)
    origin = np.asarray(meta["T_world_sensor"]["translation"], dtype=np.float64)
    dirs_world = dirs @ rotation.T
    incidence = _incidence_deg(dirs_world, ranges, origin, geometric)
    cos_a = math.cos(math.radians(meta["spec"]["beam_angle_deg"]))
    altitude = ranges * cos_a
    keep = np.full(beams, 1.0 - model.dropout_probability)
    if model.max_altitude_m is not None:
        keep = keep * (1.0 - logistic(altitude, model.max_altitude_m, model.altitude_rolloff_m))
    if model.max_incidence_deg is not None:
        keep = keep * (
            1.0 - logistic(incidence, model.max_incidence_deg, model.incidence_rolloff_deg)
        )
    drop_p = np.where(geometric, 1.0 - keep, 1.0)
    valid = geometric & (uniforms[:, 0] >= drop_p)
    outlier = valid & (uniforms[:, 1] < model.outlier_probability)

    radial = dirs @ true_v + model.beam_velocity_noise_m_s * normals[:, 0]
    radial = radial + np.where(outlier, model.outlier_std_m_s * normals[:, 1], 0.0)
    radial = np.where(valid, radial, np.nan)
    lock = int(np.count_nonzero(valid)) >= MIN_BEAMS_FOR_LOCK
    if lock:
        velocity = np.linalg.lstsq(dirs[valid], radial[valid], rcond=None)[0]
    else:
        velocity = np.full(3, np.nan)
    return {
        "velocity_sensor_m_s": velocity,
        "true_velocity_sensor_m_s": true_v.copy(),
        "beam_velocity_m_s": radial,
        "beam_valid": valid.astype(np.uint8),
        "beam_dropout_probability": drop_p,
        "beam_incidence_deg": incidence,
        "beam_outlier": outlier.astype(np.uint8),
        "lock": np.array(1 if lock else 0, dtype=np.uint8),
    }


def dvl_recorder(noise: DVLNoiseModel | None, generator: Any, period_ns: int) -> Any:
    """The scenario recorder of a DVL (:class:`leviathan.sensors.AnalyticTier`): rows of the
    measured and true velocity, beams and lock, the error model applied when declared."""

    def record(sample: Any) -> dict[str, Any]:
        ch = sample.channels
        if noise is not None:
            row = dict(apply_dvl_noise(sample, noise, generator))
        else:
            true_v = np.array(ch["true_velocity_sensor_m_s"])
            lock = bool(ch["lock"])
            row = {
                "velocity_sensor_m_s": true_v if lock else np.full(3, np.nan),
                "true_velocity_sensor_m_s": true_v,
                "beam_valid": np.array(ch["beam_valid"]),
                "lock": np.array(ch["lock"]),
            }
        row["altitude_m"] = np.array(ch["altitude_m"])
        return row

    return record
