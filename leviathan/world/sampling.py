"""Taking one sensor sample from a World's committed state."""

from __future__ import annotations

from typing import Any

import numpy as np

from leviathan.dynamics import accelerations
from leviathan.scene import Scene
from leviathan.specs import CameraSpec, DVLSpec, ImagingSonarSpec, IMUSpec

__all__ = ["body_kinematics", "take_sample"]


def body_kinematics(world: Any, vehicle: Any):
    """Kinematics of a vehicle's committed state, with accelerations under its last command."""
    from leviathan.sensors import BodyKinematics

    state = vehicle.state
    acc = accelerations(vehicle.model, state, vehicle.command_n, world.environment.current_ned)
    return BodyKinematics(
        T_world_body=state.T_world_body,
        velocity_body_m_s=np.asarray(state.velocity_body[:3]),
        angular_velocity_body_rad_s=np.asarray(state.velocity_body[3:]),
        linear_acceleration_body_m_s2=np.asarray(acc["linear_acceleration_body"]),
        angular_acceleration_body_rad_s2=np.asarray(acc["angular_acceleration_body"]),
    )


def take_sample(
    world: Any,
    vehicle: Any,
    spec: Any,
    scene: Scene,
    *,
    sensor_id: str,
    sample_index: int,
    time_ns: int,
) -> Any:
    """One immutable, hashed sample of ``spec`` on ``vehicle`` at the committed tick."""
    T_world_body = vehicle.state.T_world_body
    backend, device = world.tracing
    if isinstance(spec, ImagingSonarSpec):
        from leviathan.sonar import render

        return render(
            scene,
            spec,
            T_world_body @ spec.mount.transform(),
            sensor_id=sensor_id,
            sample_index=sample_index,
            time_ns=time_ns,
            seed=world.root_seed if spec.speckle else None,
            water=world.environment.water,
            backend=backend,
            device=device,
        )
    ids = {"sensor_id": sensor_id, "sample_index": sample_index, "time_ns": time_ns}
    if isinstance(spec, DVLSpec):
        from leviathan.sensors import measure_dvl

        kin = body_kinematics(world, vehicle)
        return measure_dvl(
            scene, spec, kin, seed=world.root_seed, backend=backend, device=device, **ids
        )
    if isinstance(spec, IMUSpec):
        from leviathan.sensors import measure_imu

        return measure_imu(spec, body_kinematics(world, vehicle), seed=world.root_seed, **ids)
    if isinstance(spec, CameraSpec):
        from leviathan.sensors import render_camera

        return render_camera(scene, spec, T_world_body, backend=backend, device=device, **ids)
    raise TypeError(
        f"spec: no sampler for sensor kind {getattr(spec, 'kind', type(spec).__name__)!r}"
    )
