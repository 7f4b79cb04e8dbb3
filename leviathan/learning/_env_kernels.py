"""Device code of the vector environment: actions to commands, ended flags, mask conversion.

NOT CANONICAL (float32); :class:`~leviathan.learning.env.UnderwaterVectorEnv` launches these.
"""

from __future__ import annotations

import warp as wp

wp.set_module_options({"fuse_fp": False, "fast_math": False, "enable_backward": False})


@wp.kernel
def commands_from_actions(
    actions: wp.array2d(dtype=wp.float32),
    low_n: wp.array(dtype=wp.float32),
    high_n: wp.array(dtype=wp.float32),
    commands_n: wp.array2d(dtype=wp.float32),
):
    i, j = wp.tid()
    a = wp.clamp(actions[i, j], wp.float32(-1.0), wp.float32(1.0))
    commands_n[i, j] = low_n[j] + (a + wp.float32(1.0)) * wp.float32(0.5) * (high_n[j] - low_n[j])


@wp.kernel
def ended_flags(
    terminated: wp.array(dtype=wp.bool),
    truncated: wp.array(dtype=wp.bool),
    ended: wp.array(dtype=wp.bool),
):
    i = wp.tid()
    ended[i] = terminated[i] or truncated[i]


@wp.kernel
def _bool_to_int(flags: wp.array(dtype=wp.bool), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    out[i] = wp.where(flags[i], 1, 0)


def int_mask(mask: wp.array) -> wp.array:
    """``mask`` as int32 flags on its device (itself when it already is int32)."""
    if mask.dtype == wp.int32:
        return mask
    out = wp.empty(mask.shape, dtype=wp.int32, device=mask.device)
    wp.launch(_bool_to_int, dim=mask.shape, inputs=[mask], outputs=[out], device=mask.device)
    return out
