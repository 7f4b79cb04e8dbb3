"""The test suite is arranged by unit: importable without path edits, named after behaviour.

* No test module changes ``sys.path`` (or ``PYTHONPATH`` in its own process): shared
  helpers live in ``tests/`` beside the root conftest, which pytest puts on the path.
* No test module is named after the optimisation round that added it (``fast_paths``,
  ``round2``); its tests belong with the unit's own tests, and the implementations a
  fast path is checked against live in ``tests/reference_impls.py`` as ``reference_*``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import reference_impls

TESTS = Path(__file__).resolve().parent
_ROUND_NAMES = re.compile(r"fast_?paths?|round_?\d+|_old\b|_new\b|optimi[sz]")


def _test_sources() -> list[Path]:
    return sorted(TESTS.rglob("*.py"))


def _edits_sys_path(tree: ast.AST) -> list[int]:
    """Lines where ``sys.path`` is assigned, extended or inserted into, or PYTHONPATH set."""
    lines = []
    for node in ast.walk(tree):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func.value
        elif isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            target = next((t for t in targets if isinstance(t, ast.Attribute)), None)
        if target is not None and ast.unparse(target) == "sys.path":
            lines.append(node.lineno)
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Store)
            and ast.unparse(node.value) == "os.environ"
            and ast.unparse(node.slice) == "'PYTHONPATH'"
        ):
            lines.append(node.lineno)
    return lines


def test_the_scan_reads_the_whole_suite() -> None:
    names = {p.relative_to(TESTS).as_posix() for p in _test_sources()}
    assert {"conftest.py", "dashboard/conftest.py", "reference_impls.py"} <= names


def test_no_test_module_edits_sys_path() -> None:
    offenders = [
        f"{path.relative_to(TESTS)}:{line}"
        for path in _test_sources()
        for line in _edits_sys_path(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert offenders == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import sys\nsys.path.insert(0, 'x')\n", [2]),
        ("import sys\nsys.path.append('x')\n", [2]),
        ("import sys\nsys.path = ['x']\n", [2]),
        ("import sys\nsys.path += ['x']\n", [2]),
        ("import os\nos.environ['PYTHONPATH'] = 'x'\n", [2]),
        ("import sys\nprint(sys.path)\n'sys.path.insert'\n", []),
    ],
)
def test_the_sys_path_check_finds_each_kind_of_edit(source: str, found: list[int]) -> None:
    assert _edits_sys_path(ast.parse(source)) == found


def test_no_test_module_is_named_after_an_optimisation_round() -> None:
    offenders = [p.name for p in _test_sources() if _ROUND_NAMES.search(p.stem)]
    assert offenders == []


def test_reference_implementations_are_named_reference() -> None:
    functions = [
        node.name
        for node in ast.parse(Path(reference_impls.__file__).read_text(encoding="utf-8")).body
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
    ]
    assert functions and all(name.startswith("reference_") for name in functions)
    for name in functions:
        assert name in reference_impls.__doc__, f"{name} is missing from the module's table"


def _warning_modules_of_conftest() -> tuple[str, ...]:
    tree = ast.parse((TESTS / "conftest.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "WARNING_MODULES":
            return tuple(ast.literal_eval(node.value))
    raise AssertionError("tests/conftest.py defines no WARNING_MODULES")


def test_the_controller_imports_every_module_that_defines_a_warning() -> None:
    root = TESTS.parent
    defining = set()
    for package in ("leviathan", "kernels", "reference_cpu", "usd"):
        for path in sorted((root / package).rglob("*.py")):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                bases = [
                    getattr(b, "id", getattr(b, "attr", "")) for b in getattr(node, "bases", [])
                ]
                if isinstance(node, ast.ClassDef) and any(b.endswith("Warning") for b in bases):
                    parts = path.relative_to(root).with_suffix("").parts
                    prefix = () if parts[0] == "leviathan" else ("leviathan",)
                    defining.add(".".join(prefix + parts))
    assert defining, "the scan found no warning class"
    assert sorted(defining) == sorted(_warning_modules_of_conftest())
