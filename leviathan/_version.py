"""The package version, declared once: pyproject.toml reads it from here (a dynamic version)."""

__version__ = "0.1.0"
