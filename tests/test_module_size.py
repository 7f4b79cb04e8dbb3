"""Modules stay small enough to read in one sitting, or say why they cannot.

STYLE.md: "When a file passes ~500 lines, ask whether it holds two things." A module of
the installed package roots longer than :data:`MAX_LINES` must state its reason in its
module docstring, in one sentence starting with :data:`REASON`; anything else is split.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The package roots installed as leviathan, leviathan.kernels, leviathan.reference_cpu and
# leviathan.usd (pyproject's package-dir).
PACKAGE_ROOTS = ("leviathan", "kernels", "reference_cpu", "usd")
MAX_LINES = 500
REASON = "Longer than 500 lines because"


def _modules() -> list[Path]:
    return sorted(path for root in PACKAGE_ROOTS for path in (ROOT / root).rglob("*.py"))


def _line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _states_reason(path: Path) -> bool:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return REASON in " ".join(docstring.split())


def test_the_scan_finds_the_package_modules() -> None:
    found = {path.relative_to(ROOT).as_posix() for path in _modules()}
    assert {"leviathan/__init__.py", "kernels/trace.py", "usd/__init__.py"} <= found
    assert "reference_cpu/trace.py" in found


def test_every_module_over_500_lines_states_why_in_its_docstring() -> None:
    offenders = [
        f"{path.relative_to(ROOT).as_posix()}: {count} lines"
        for path in _modules()
        if (count := _line_count(path)) > MAX_LINES and not _states_reason(path)
    ]
    assert offenders == [], (
        f"modules over {MAX_LINES} lines without a stated reason (split them by concern, or "
        f"add one sentence starting {REASON!r} to the module docstring):\n" + "\n".join(offenders)
    )


def test_a_stated_reason_is_read_from_the_docstring_only(tmp_path: Path) -> None:
    in_docstring = tmp_path / "a.py"
    in_docstring.write_text(f'"""Spec.\n\n{REASON} the\nspec stays whole."""\n')
    in_comment = tmp_path / "b.py"
    in_comment.write_text(f'"""Spec."""\n\n# {REASON} nothing.\n')
    assert _states_reason(in_docstring)
    assert not _states_reason(in_comment)
