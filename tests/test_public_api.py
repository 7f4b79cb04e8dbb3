"""The public API's shape: private names stay home, ``__all__`` is declared once, one path per name.

Read statically (with :mod:`ast`) from every module of the installed package
roots (pyproject's ``package-dir``), except the checks that need the live
objects (every name in ``__all__`` exists), which import each public module.

Terms used below:

* *package* of a module: ``leviathan.<first component>`` (``leviathan.world``
  for ``leviathan.world.records``, ``leviathan.time`` for ``leviathan.time``).
  Within one package anything may be imported.
* *shared internals*: the modules ``leviathan/_*.py`` (``_files``,
  ``_validation``, ...); their public names may be imported from anywhere.
* *public module*: no component of its name (after ``leviathan``) starts with
  an underscore. An internal module (``leviathan/specs/_sensors.py``) is
  re-exported by its package's thin public ``__init__.py``.
"""

from __future__ import annotations

import ast
import importlib
import tomllib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@dataclass
class Module:
    """What the checks need to know about one module, read from its source."""

    name: str
    path: Path
    tree: ast.Module
    is_package: bool
    # Top-level bindings: local name -> (absolute source module, name there).
    imported: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Local names bound to a module object: local name -> absolute module name.
    module_aliases: dict[str, str] = field(default_factory=dict)
    star_imports: list[str] = field(default_factory=list)
    # __all__ as written: literal names, and modules whose __all__ is spliced in.
    all_literals: list[tuple[str, int]] | None = None
    all_spliced: list[str] = field(default_factory=list)
    all_errors: list[str] = field(default_factory=list)

    @property
    def public(self) -> bool:
        return not any(_is_private(part) for part in self.name.split("."))

    @property
    def package(self) -> str:
        return ".".join(self.name.split(".")[:2])

    @property
    def where(self) -> str:
        return str(self.path.relative_to(ROOT))

    def resolve(self, module: str | None, level: int) -> str:
        """The absolute module name of ``from <level dots><module> import ...``."""
        if level == 0:
            return module or ""
        base = self.name.split(".")
        if not self.is_package:
            base = base[:-1]
        base = base[: len(base) - (level - 1)]
        return ".".join([*base, module] if module else base)


def _discover() -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for package, directory in _SETUPTOOLS["package-dir"].items():
        base = ROOT / directory
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base).with_suffix("")
            parts = list(rel.parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            if parts and parts[-1].startswith("__"):  # __main__: an entry point, not API
                continue
            name = ".".join([package, *parts])
            modules[name] = Module(name, path, ast.parse(path.read_text()), is_package)
    for module in modules.values():
        _read_bindings(module, modules)
    return modules


def _read_bindings(module: Module, modules: dict[str, Module]) -> None:
    for node in module.tree.body:
        if isinstance(node, ast.ImportFrom):
            source = module.resolve(node.module, node.level)
            for alias in node.names:
                if alias.name == "*":
                    module.star_imports.append(source)
                    continue
                local = alias.asname or alias.name
                if f"{source}.{alias.name}" in modules:
                    module.module_aliases[local] = f"{source}.{alias.name}"
                else:
                    module.imported[local] = (source, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    module.module_aliases[alias.asname] = alias.name
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            _read_all(module, node)
        elif (
            isinstance(node, ast.AugAssign | ast.AnnAssign)
            and getattr(node.target, "id", None) == "__all__"
        ):
            module.all_errors.append(
                f"{module.where}:{node.lineno}: declare __all__ once, as one list "
                "(spliced lists as *module.__all__ entries), not with += or an annotation"
            )


def _read_all(module: Module, node: ast.Assign) -> None:
    if module.all_literals is not None:
        module.all_errors.append(f"{module.where}:{node.lineno}: __all__ is assigned twice")
    module.all_literals = []
    if not isinstance(node.value, ast.List | ast.Tuple):
        module.all_errors.append(
            f"{module.where}:{node.lineno}: __all__ must be a list literal of names and "
            "*module.__all__ entries"
        )
        return
    for element in node.value.elts:
        if isinstance(element, ast.Constant) and isinstance(element.value, str):
            module.all_literals.append((element.value, element.lineno))
        elif (
            isinstance(element, ast.Starred)
            and isinstance(element.value, ast.Attribute)
            and element.value.attr == "__all__"
            and isinstance(element.value.value, ast.Name)
            and element.value.value.id in module.module_aliases
        ):
            module.all_spliced.append(module.module_aliases[element.value.value.id])
        else:
            module.all_errors.append(
                f"{module.where}:{element.lineno}: __all__ entry {ast.unparse(element)!r} is "
                "neither a name nor *<imported module>.__all__"
            )


MODULES = _discover()
PUBLIC = sorted(name for name, m in MODULES.items() if m.public)


def _exports(name: str, seen: frozenset[str] = frozenset()) -> list[str]:
    """``__all__`` of module ``name`` with spliced lists expanded (static)."""
    module = MODULES.get(name)
    if module is None or module.all_literals is None or name in seen:
        return []
    names = [n for n, _ in module.all_literals]
    for spliced in module.all_spliced:
        names.extend(_exports(spliced, seen | {name}))
    return names


def _origin(name: str, attr: str, depth: int = 0) -> tuple[str, str]:
    """Where the object bound to ``attr`` in module ``name`` is defined (static, best effort)."""
    module = MODULES.get(name)
    if module is None or depth > 20:
        return (name, attr)
    if attr in module.imported:
        source, original = module.imported[attr]
        return _origin(source, original, depth + 1)
    for source in module.star_imports:
        if attr in _exports(source):
            return _origin(source, attr, depth + 1)
    return (name, attr)


# --------------------------------------------------------------------------- private names


def _private_imports(module: Module) -> list[str]:
    found: list[str] = []

    def foreign(target: str) -> bool:
        return target.startswith("leviathan") and ".".join(target.split(".")[:2]) != module.package

    def private_path(target: str) -> bool:
        # leviathan._files is a shared internal; leviathan.sonar._render is not.
        parts = target.split(".")[1:]
        return any(_is_private(p) for p in parts[1:]) or (len(parts) > 1 and _is_private(parts[0]))

    aliases = dict(module.module_aliases)
    for node in ast.walk(module.tree):
        if isinstance(node, ast.ImportFrom):
            source = module.resolve(node.module, node.level)
            if not foreign(source):
                continue
            if private_path(source):
                found.append(f"{module.where}:{node.lineno}: imports from private module {source}")
                continue
            for alias in node.names:
                if _is_private(alias.name):
                    found.append(
                        f"{module.where}:{node.lineno}: imports private {alias.name} from {source}"
                    )
                elif f"{source}.{alias.name}" in MODULES:
                    aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if foreign(alias.name) and private_path(alias.name):
                    found.append(
                        f"{module.where}:{node.lineno}: imports private module {alias.name}"
                    )
                elif alias.asname:
                    aliases[alias.asname] = alias.name
    for node in ast.walk(module.tree):
        if (
            isinstance(node, ast.Attribute)
            and _is_private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and foreign(aliases[node.value.id])
        ):
            found.append(
                f"{module.where}:{node.lineno}: uses private {aliases[node.value.id]}.{node.attr}"
            )
    return found


def test_no_private_name_crosses_a_package_boundary() -> None:
    found = [line for module in MODULES.values() for line in _private_imports(module)]
    assert found == [], "private names imported across packages:\n" + "\n".join(found)


# --------------------------------------------------------------------------- __all__


def test_every_public_module_declares_all_once_as_a_list() -> None:
    found = [line for name in PUBLIC for line in MODULES[name].all_errors]
    found += [
        f"{MODULES[name].where}: public module without __all__ (declare it, or make the "
        "module internal with a leading underscore)"
        for name in PUBLIC
        if MODULES[name].all_literals is None
    ]
    assert found == [], "\n".join(found)


@pytest.mark.parametrize("name", PUBLIC)
def test_every_name_in_all_exists_once(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(getattr(module, "__all__", []))
    assert [n for n in exported if not hasattr(module, n)] == []
    duplicates = sorted({n for n in exported if exported.count(n) > 1})
    assert duplicates == [], f"{name}.__all__ lists these more than once: {duplicates}"


def test_no_all_copies_another_public_modules_list_by_hand() -> None:
    found = []
    for name in PUBLIC:
        module = MODULES[name]
        for exported, line in module.all_literals or []:
            if exported not in module.imported:
                continue
            source, original = module.imported[exported]
            if source in MODULES and MODULES[source].public and original in _exports(source):
                found.append(
                    f"{module.where}:{line}: __all__ lists {exported!r} by hand, copied from "
                    f"{source}.__all__; splice *{source.rsplit('.', 1)[-1]}.__all__ instead, "
                    f"or make {source} internal (a leading underscore) so this is its one list"
                )
    assert found == [], "\n".join(found)


def _allowed_pair(a: str, b: str) -> bool:
    """A package's ``__init__`` re-exporting one of its own direct submodules."""
    for package, child in ((a, b), (b, a)):
        if MODULES[package].is_package and child.rpartition(".")[0] == package:
            return True
    return False


def test_each_public_name_has_one_canonical_import_path() -> None:
    exporters: dict[tuple[str, str], set[str]] = defaultdict(set)
    for name in PUBLIC:
        for exported in _exports(name):
            exporters[_origin(name, exported)].add(name)
    found = [
        f"{origin[0]}.{origin[1]} is exported by {sorted(paths)}"
        for origin, paths in sorted(exporters.items())
        if len(paths) > 2 or (len(paths) == 2 and not _allowed_pair(*paths))
    ]
    assert found == [], (
        "one public name, several import paths (allowed: a package __init__ re-exporting its "
        "own submodule); make the extra modules internal or drop the re-export:\n"
        + "\n".join(found)
    )
