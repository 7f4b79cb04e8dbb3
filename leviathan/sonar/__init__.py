"""Canonical forward-looking imaging sonar: rendering, frames and display products."""

from leviathan.reference_cpu.sonar import (
    BASIS_CONTRIBUTION,
    BASIS_GEOMETRIC,
    BASIS_GEOMETRIC_NO_ABSORPTION,
    BASIS_NONE,
    CELL_FLAGS,
    FLAG_EMPTY,
    FLAG_MIXED_STATUS,
    FLAG_MULTIPLE_INSTANCES,
    FLAG_SEA_SURFACE,
    FLAG_TRUNCATED,
    FLAG_UNKNOWN_MATERIAL,
    FLAG_UNSUPPORTED_MATERIAL,
    FLAG_UNSUPPORTED_MEDIUM,
    FLAG_VALID,
)
from leviathan.sonar.frame import CHANNEL_NAMES, SonarFrame
from leviathan.sonar.render import BACKENDS, render

__all__ = [
    "BACKENDS",
    "BASIS_CONTRIBUTION",
    "BASIS_GEOMETRIC",
    "BASIS_GEOMETRIC_NO_ABSORPTION",
    "BASIS_NONE",
    "CELL_FLAGS",
    "CHANNEL_NAMES",
    "FLAG_EMPTY",
    "FLAG_MIXED_STATUS",
    "FLAG_MULTIPLE_INSTANCES",
    "FLAG_SEA_SURFACE",
    "FLAG_TRUNCATED",
    "FLAG_UNKNOWN_MATERIAL",
    "FLAG_UNSUPPORTED_MATERIAL",
    "FLAG_UNSUPPORTED_MEDIUM",
    "FLAG_VALID",
    "SonarFrame",
    "render",
]
