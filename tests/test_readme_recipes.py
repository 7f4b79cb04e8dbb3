"""The README's "Recipes" run as written: every code block, in order, from the repository root.

So that a recipe cannot rot: a renamed function, a changed field or a mesh file
whose SHA-256 no longer matches fails here. The recipes must also run without a
LEVIATHAN warning (a recipe that degrades what it shows is a bad recipe).
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : None if end < 0 else end]


def _python_blocks(section: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", section, flags=re.S | re.M)


def test_the_recipes_section_has_each_recipe() -> None:
    section = _section(README.read_text(encoding="utf-8"), "Recipes")
    for title in (
        "Seabed and targets from mesh files",
        "Changing a sensor spec",
        "DVL velocity in the body frame",
        "Reading one cell's truth",
    ):
        assert f"**{title}.**" in section, title
    assert len(_python_blocks(section)) == 4


def test_the_two_commands_section_keeps_exactly_two_commands() -> None:
    section = _section(README.read_text(encoding="utf-8"), "The two commands")
    commands = [line.strip() for line in section.splitlines() if line.startswith("    ")]
    assert commands == ["python3 dev.py demo", "python3 dev.py test"]


@pytest.mark.slow
def test_every_recipe_runs_as_written(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    namespace: dict = {"__name__": "readme_recipes"}
    out = io.StringIO()
    blocks = _python_blocks(_section(README.read_text(encoding="utf-8"), "Recipes"))
    with warnings.catch_warnings():
        warnings.filterwarnings("error", module=r"leviathan(\.|$)")
        warnings.filterwarnings("error", category=UserWarning, message=r".*(sonar|sample)")
        for i, block in enumerate(blocks):
            with contextlib.redirect_stdout(out):
                exec(compile(block, f"README.md recipe {i + 1}", "exec"), namespace)
    printed = out.getvalue().splitlines()
    assert len(printed) == 4, printed
    rock_triangles, rock_digest = printed[0].split()
    assert int(rock_triangles) == namespace["rock"].mesh.triangle_count == 320
    assert rock_digest == "1ba3d49daf61"
    assert printed[1].startswith("('elevation_sample_count',)")
    lock = int(printed[2].split()[0])
    assert lock == 1  # 4.6 m over the seabed patch: bottom lock, a finite velocity
    assert printed[3].split()[0] in {"seabed", "rock"}
