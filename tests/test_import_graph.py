"""No import circles among the package's modules: a static check with ``ast``.

Every ``.py`` file of the installed package is read, under the names the
installation gives it (``pyproject.toml``'s ``[tool.setuptools] package-dir``:
``kernels/`` is ``leviathan.kernels``, ``reference_cpu/`` is
``leviathan.reference_cpu``, ``usd/`` is ``leviathan.usd``, ...). Nothing is
imported or executed.

How an import statement becomes edges of the graph (module -> module it needs):

* Every ``import`` and ``from ... import`` statement counts, wherever it stands:
  at module level, inside a function or method, under ``if TYPE_CHECKING:`` or in
  a ``try``. A deferred import only postpones a circle, and a type-only import is
  still a dependency a reader has to follow, so neither is a way out.
* Relative imports are resolved against the importing module's package (a
  package's ``__init__`` is its own package).
* ``from P import name`` needs ``P``; when ``P.name`` is a module of the package it
  also needs ``P.name`` (``from pkg import submodule``).
* Importing ``a.b.c`` first runs the ``__init__`` of ``a`` and of ``a.b`` (the
  implicit import of a parent package), so it needs those packages too, **except**
  the packages that contain the importing module itself: they are already being
  initialised when that module runs, so importing through them runs nothing new.
  Naming a shared parent explicitly (``import a``, or ``from a import name`` where
  ``name`` is not a submodule) does need its ``__init__`` and counts.
* Imports of anything outside the package (the standard library, numpy, warp, ...)
  are not part of the graph.

A circle is a strongly connected component of more than one module (a module
importing itself is harmless and ignored). Temporary exceptions,
:data:`EXCEPTED_CYCLES` (none now: the ``leviathan.client`` <-> ``leviathan.service``
circle is gone), must name circles that exist; the test fails when an excepted
circle no longer exists, so the list cannot go stale.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class ExceptedCycle:
    """A known circle allowed for now: every module of its component matches ``prefixes``."""

    name: str
    must_contain: str
    prefixes: tuple[str, ...]
    why: str

    def covers(self, component: frozenset[str]) -> bool:
        """Whether ``component`` is this circle (contains the named module, nothing else)."""
        return self.must_contain in component and all(
            any(m == p or m.startswith(p + ".") for p in self.prefixes) for m in component
        )


EXCEPTED_CYCLES: tuple[ExceptedCycle, ...] = ()


def package_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the installed package: dotted name -> source file."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    package_dir: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    modules: dict[str, Path] = {}
    # Longest package names first, so a folder mapped on its own ("kernels" for
    # leviathan.kernels) is not also read as a subfolder of another.
    claimed: set[Path] = set()
    for package, folder in sorted(package_dir.items(), key=lambda kv: -kv[0].count(".")):
        base = (root / folder).resolve()
        for path in sorted(base.rglob("*.py")):
            if any(part.startswith(".") for part in path.relative_to(root).parts):
                continue
            if path in claimed:
                continue
            claimed.add(path)
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


def _is_package(module: str, modules: dict[str, Path]) -> bool:
    return modules[module].name == "__init__.py"


def _own_packages(module: str, modules: dict[str, Path]) -> set[str]:
    """The packages a module is being imported within (itself too, if it is a package)."""
    parts = module.split(".")
    owners = {".".join(parts[:i]) for i in range(1, len(parts))}
    if _is_package(module, modules):
        owners.add(module)
    return owners


def _with_parents(target: str, owners: set[str], modules: dict[str, Path]) -> set[str]:
    """``target`` and the parent packages importing it runs (those not already running)."""
    parts = target.split(".")
    needed = {".".join(parts[: i + 1]) for i in range(len(parts))} - owners
    return {m for m in needed if m in modules}


def _resolve_relative(module: str, level: int, name: str | None, modules: dict[str, Path]) -> str:
    package = module if _is_package(module, modules) else module.rpartition(".")[0]
    for _ in range(level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{name}" if name else package


def module_imports(module: str, modules: dict[str, Path]) -> set[str]:
    """The package modules ``module`` needs, by the rules in this file's docstring."""
    tree = ast.parse(modules[module].read_text(encoding="utf-8"), filename=str(modules[module]))
    owners = _own_packages(module, modules)
    needed: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    needed |= _with_parents(alias.name, owners, modules)
                    if alias.name in owners:  # `import pkg` of its own package: explicit
                        needed.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = (
                _resolve_relative(module, node.level, node.module, modules)
                if node.level
                else node.module
            )
            if base not in modules:
                continue
            needed |= _with_parents(base, owners, modules)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules:
                    needed |= _with_parents(sub, owners, modules)
                else:
                    # A name defined by `base` itself (or `*`): its namespace must be
                    # filled, even when `base` is a package the importer lives in.
                    needed.add(base)
    needed.discard(module)
    return needed


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package modules it imports."""
    return {m: module_imports(m, modules) for m in modules}


def strongly_connected(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Tarjan's components of ``graph`` with more than one module, deterministic order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[frozenset[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        # Iterative, so a long chain of imports cannot reach the recursion limit.
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.add(member)
                    if member == node:
                        break
                if len(members) > 1:
                    components.append(frozenset(members))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(components, key=lambda c: sorted(c))


def one_cycle(graph: dict[str, set[str]], component: Iterable[str]) -> list[str]:
    """A shortest circle through the first module of ``component`` (sorted), as a path."""
    members = set(component)
    start = min(members)
    previous: dict[str, str] = {}
    frontier = [start]
    seen = {start}
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & members):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if child not in seen:
                    seen.add(child)
                    previous[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"no circle in component {sorted(members)}")  # a component has one


def describe(graph: dict[str, set[str]], component: frozenset[str]) -> str:
    """One line naming a circle and every module of its component."""
    cycle = " -> ".join(one_cycle(graph, component))
    return f"{cycle}   (component of {len(component)}: {', '.join(sorted(component))})"


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(package_modules())


def test_the_package_is_read_under_its_installed_names() -> None:
    modules = package_modules()
    assert modules["leviathan"] == ROOT / "leviathan" / "__init__.py"
    assert modules["leviathan.kernels.trace"] == ROOT / "kernels" / "trace.py"
    assert modules["leviathan.reference_cpu"] == ROOT / "reference_cpu" / "__init__.py"
    assert modules["leviathan.usd"] == ROOT / "usd" / "__init__.py"
    assert modules["leviathan.world._world"] == ROOT / "leviathan" / "world" / "_world.py"
    # Each file is read once, under one name.
    assert len(set(modules.values())) == len(modules)


def test_no_import_cycles_among_the_package_modules(graph: dict[str, set[str]]) -> None:
    unexpected = [
        c for c in strongly_connected(graph) if not any(e.covers(c) for e in EXCEPTED_CYCLES)
    ]
    assert not unexpected, "import cycles:\n" + "\n".join(describe(graph, c) for c in unexpected)


def test_every_excepted_cycle_still_exists(graph: dict[str, set[str]]) -> None:
    # One test over the list (empty now), not one per entry: an empty parameter set
    # would show as a skip in every run.
    cycles = strongly_connected(graph)
    gone = [e for e in EXCEPTED_CYCLES if not any(e.covers(c) for c in cycles)]
    assert not gone, "\n".join(
        f"the excepted import cycle {e.name!r} is gone ({e.why}); "
        "remove it from EXCEPTED_CYCLES in tests/test_import_graph.py"
        for e in gone
    )


# Each rule: the files of a tiny package, the edges wanted of some of its modules (the
# graph of the others is not checked) and the circles it must have.
RULES: dict[str, tuple[dict[str, str], dict[str, set[str]], list[set[str]]]] = {
    "function-level and TYPE_CHECKING imports count": (
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "def f():\n    from pkg import b\n",
            "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.a\n",
        },
        {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}},
        [{"pkg.a", "pkg.b"}],
    ),
    # `from ..sub import other` inside pkg.sub: other is a submodule and pkg.sub is
    # already initialising, so only the submodule is needed; likewise `from .. import
    # top`. pkg.extra lives in another folder; importing pkg.top from it runs nothing of
    # pkg's __init__ that is not already running (pkg contains pkg.extra.k).
    "relative and submodule imports resolve": (
        {
            "pkg/__init__.py": "from pkg.sub import thing\n",
            "pkg/sub/__init__.py": "from .leaf import thing\nfrom . import other\n",
            "pkg/sub/leaf.py": "from ..sub import other\nthing = 1\n",
            "pkg/sub/other.py": "from .. import top\n",
            "pkg/top.py": "",
            "extra/__init__.py": "",
            "extra/k.py": "import pkg.top\n",
        },
        {
            "pkg": {"pkg.sub"},
            "pkg.sub": {"pkg.sub.leaf", "pkg.sub.other"},
            "pkg.sub.leaf": {"pkg.sub.other"},
            "pkg.sub.other": {"pkg.top"},
            "pkg.extra.k": {"pkg.top"},
        },
        [],
    ),
    # Importing pkg.c.d runs pkg.c's __init__ first: an edge to it too. A name of the
    # package's own __init__ needs that __init__: pkg -> pkg.b -> pkg.
    "parent packages and names from the own package count": (
        {
            "pkg/__init__.py": "from pkg.a import x\nfrom pkg.b import y\n",
            "pkg/a.py": "from pkg.c.d import z\nx = 1\n",
            "pkg/b.py": "from pkg import x\ny = 2\n",
            "pkg/c/__init__.py": "from pkg.c.d import z\n",
            "pkg/c/d.py": "z = 3\n",
        },
        {"pkg.a": {"pkg.c", "pkg.c.d"}, "pkg.b": {"pkg"}},
        [{"pkg", "pkg.b"}],
    ),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_each_import_rule_on_a_tiny_package(tmp_path: Path, rule: str) -> None:
    files, edges, circles = RULES[rule]
    (tmp_path / "pyproject.toml").write_text(
        '[tool.setuptools]\npackage-dir = { "pkg" = "pkg", "pkg.extra" = "extra" }\n'
    )
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    modules = package_modules(tmp_path)
    assert modules["pkg"] == tmp_path / "pkg" / "__init__.py"
    graph = import_graph(modules)
    assert {m: graph[m] for m in edges} == edges
    assert strongly_connected(graph) == [frozenset(c) for c in circles]
    for circle in circles:
        path = one_cycle(graph, circle)
        assert path[0] == path[-1] == min(circle) and set(path) == circle


def test_an_excepted_cycle_covers_only_its_modules() -> None:
    excepted = ExceptedCycle(
        name="client<->service",
        must_contain="leviathan.client",
        prefixes=("leviathan.client", "leviathan.service"),
        why="an example: the circle the service branch removed",
    )
    assert excepted.covers(frozenset({"leviathan.client", "leviathan.service._app"}))
    assert not excepted.covers(frozenset({"leviathan.client", "leviathan.world._world"}))
    assert not excepted.covers(frozenset({"leviathan.service", "leviathan.service._app"}))
