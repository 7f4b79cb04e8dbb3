"""The imaging sonar behind the sensor protocol.

The physics lives in :mod:`leviathan.sonar` (:func:`leviathan.sonar.render`,
the list of ray-casting, per-sample physics and binning stages); this module
only forms the sensor pose from the committed state and hands the sample
context to it. Speckle is keyed by the World's root seed, which enters the
frame (and its identity) only when the spec enables speckle.
"""

from __future__ import annotations

from leviathan.frames import sensor_pose
from leviathan.sensors._protocol import SampleContext, register_sensor_kind
from leviathan.sonar import SonarFrame, render
from leviathan.specs import ImagingSonarSpec

__all__ = ["ImagingSonarSensor"]


class ImagingSonarSensor:
    """Imaging-sonar pings: :func:`leviathan.sonar.render` on a sample context."""

    kind = "imaging_sonar"
    spec_type = ImagingSonarSpec
    product_type = SonarFrame
    # Sees the scene; the surfaces' motion never enters its product.
    reads_surfaces = False

    def sample(self, spec: ImagingSonarSpec, context: SampleContext) -> SonarFrame:
        """One ping of ``spec`` from the committed pose of ``context``."""
        return render(
            context.scene,
            spec,
            sensor_pose(context.T_world_body, spec.mount.transform()),
            **context.ids(),
            seed=context.root_seed if spec.speckle else None,
            water=context.water,
            backend=context.backend,
            device=context.device,
        )


register_sensor_kind(ImagingSonarSensor())
