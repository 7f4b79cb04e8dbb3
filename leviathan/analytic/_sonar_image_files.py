"""Writing an analytic sonar image to a folder: PNG views, the report JSON, the arrays (npz).

What ``leviathan sonar-image`` writes; not canonical (every file says ``analytic``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from leviathan._files import atomic_files, check_output_path, write_atomically, write_npz
from leviathan.analytic._fan import sonar_image_png
from leviathan.analytic._sonar_image import SonarImage

__all__ = ["write_sonar_image"]


def write_sonar_image(
    out: str | os.PathLike[str],
    image: SonarImage,
    *,
    views: Sequence[str] = ("fan",),
    report: bool = True,
    arrays: bool = False,
) -> list[Path]:
    """Write ``sonar_<view>.png`` per view, ``sonar_report.json`` and ``sonar_image.npz``.

    The files appear together or not at all (:func:`leviathan._files.atomic_files`);
    the folder is created if missing (its parent must exist) and its other files are
    left alone. Nothing is written if a view is unknown.

    Args:
        out: Output folder.
        image: The analytic image.
        views: Any of ``"fan"`` and ``"bscan"``.
        report: Write the report JSON.
        arrays: Write the arrays (:meth:`SonarImage.arrays`) as npz.

    Returns:
        The paths written, in order.
    """
    for view in views:
        if view not in ("fan", "bscan"):
            raise ValueError(f"views: expected 'fan' and/or 'bscan', got {view!r}")
    folder = check_output_path(out, folder=True)
    names = []
    # All files or none: written into a temporary sibling, then moved in together.
    with atomic_files(folder) as staging:
        for view in views:
            names.append(f"sonar_{view}.png")
            sonar_image_png(image, staging / names[-1], view=view)
        if report:
            names.append("sonar_report.json")
            write_atomically(staging / names[-1], image.report.to_json_text().encode("utf-8"))
        if arrays:
            names.append("sonar_image.npz")
            write_npz(staging / names[-1], image.arrays())
    return [folder / name for name in names]
