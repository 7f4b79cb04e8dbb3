"""``leviathan.kernels``: the NVIDIA Warp float64 backend (instance culling and BVH traversal).

Its kernels mirror :mod:`leviathan.reference_cpu.trace` function by function
and must reproduce the frozen fixture bit for bit. The backend is built in its
own issue, after the fixture landed; until then ``leviathan.sonar.render``
offers ``backend="reference"`` only.
"""
