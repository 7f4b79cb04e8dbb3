"""The frozen fixtures: writing one once, finding it, and checking a backend against it.

Three fixtures, each named (:data:`FIXTURE_NAMES`): ``sonar_v1``, the imaging
sonar's 28 scenes (:mod:`leviathan.parity._scenes`), ``sidescan_v1``, the
side-scan's scenes (:mod:`leviathan.parity._side_scan_scenes`), and ``multibeam_v1``,
the multibeam's pings (:mod:`leviathan.parity._multibeam_scenes`). Every function
takes ``fixture=`` (default ``"sonar_v1"``, the behaviour before there were two).

Layout of ``fixtures/<fixture>/`` (installed as the package data
``leviathan.fixtures.<fixture>``, so an installed LEVIATHAN carries it):

* ``<scene>.npz``: every channel of the reference frame (compressed; dtype and
  shape preserved; read with ``allow_pickle=False``).
* ``manifest.json``: per scene the frame's ``content_hash``, each channel's
  SHA-256 (``leviathan.identity.content_hash``), dtype and shape, and the
  SHA-256 of the ``.npz`` file; plus the versions that generated it.

The writer refuses to write into an existing, non-empty directory and has no
update switch: the fixture is never regenerated. If a change alters the
reference's output on a frozen scene, the change is wrong, not the fixture.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from leviathan._files import atomic_directory, write_atomically, write_npz
from leviathan.identity import content_hash
from leviathan.parity._multibeam_scenes import (
    MULTIBEAM_SCENE_NAMES,
    build_multibeam_scene,
    multibeam_scene_cases,
)
from leviathan.parity._scenes import SCENE_NAMES, build_scene, scene_cases
from leviathan.parity._side_scan_scenes import (
    SIDE_SCAN_SCENE_NAMES,
    build_side_scan_scene,
    side_scan_scene_cases,
)

FIXTURE_FORMAT = "leviathan.sonar_fixture.v1"
SIDE_SCAN_FIXTURE_FORMAT = "leviathan.side_scan_fixture.v1"
MULTIBEAM_FIXTURE_FORMAT = "leviathan.multibeam_fixture.v1"
FIXTURE_PACKAGE = "leviathan.fixtures"
"""The package whose data holds the fixtures, one folder each."""
FIXTURE_ENVIRONMENT_VARIABLE = "LEVIATHAN_FIXTURES"
"""Environment variable naming another ``sonar_v1`` directory (overrides the installed one)."""
SIDE_SCAN_FIXTURE_ENVIRONMENT_VARIABLE = "LEVIATHAN_SIDESCAN_FIXTURES"
"""Environment variable naming another ``sidescan_v1`` directory."""
MULTIBEAM_FIXTURE_ENVIRONMENT_VARIABLE = "LEVIATHAN_MULTIBEAM_FIXTURES"
"""Environment variable naming another ``multibeam_v1`` directory."""


class _Kind(NamedTuple):
    format: str
    environment_variable: str
    scene_names: tuple[str, ...]
    build: Any
    cases: Any


_KINDS: dict[str, _Kind] = {
    "sonar_v1": _Kind(
        FIXTURE_FORMAT, FIXTURE_ENVIRONMENT_VARIABLE, SCENE_NAMES, build_scene, scene_cases
    ),
    "sidescan_v1": _Kind(
        SIDE_SCAN_FIXTURE_FORMAT,
        SIDE_SCAN_FIXTURE_ENVIRONMENT_VARIABLE,
        SIDE_SCAN_SCENE_NAMES,
        build_side_scan_scene,
        side_scan_scene_cases,
    ),
    "multibeam_v1": _Kind(
        MULTIBEAM_FIXTURE_FORMAT,
        MULTIBEAM_FIXTURE_ENVIRONMENT_VARIABLE,
        MULTIBEAM_SCENE_NAMES,
        build_multibeam_scene,
        multibeam_scene_cases,
    ),
}
FIXTURE_NAMES: tuple[str, ...] = tuple(_KINDS)
"""The frozen fixtures, in the order ``leviathan parity`` checks them."""


def _kind(fixture: str) -> _Kind:
    if fixture not in _KINDS:
        raise ValueError(f"fixture: expected one of {list(FIXTURE_NAMES)}, got {fixture!r}")
    return _KINDS[fixture]


def _how_to_point(fixture: str) -> str:
    return (
        f"pass --fixtures DIR (or set {_kind(fixture).environment_variable}) to a folder "
        "holding manifest.json and the scene .npz files"
    )


class FixtureError(RuntimeError):
    """The fixture is missing, incomplete or corrupted."""


def default_fixture_dir(fixture: str = "sonar_v1") -> Path:
    """Where a frozen fixture is read from when no directory is given.

    Its environment variable (``$LEVIATHAN_FIXTURES`` for ``sonar_v1``,
    ``$LEVIATHAN_SIDESCAN_FIXTURES`` for ``sidescan_v1``) if set; else the
    ``<fixture>/`` folder of the
    ``leviathan.fixtures`` package data, found with :mod:`importlib.resources`
    (the installed copy in a wheel install, ``fixtures/sonar_v1`` of the
    checkout in an editable one).

    Raises:
        FixtureError: The package data is not installed, or not on the file
            system (a zipped install); the message says how to point at a copy.
    """
    env = os.environ.get(_kind(fixture).environment_variable)
    if env:
        return Path(env)
    try:
        anchor = importlib.resources.files(FIXTURE_PACKAGE)
    except ModuleNotFoundError as error:
        raise FixtureError(
            f"fixture: the package data {FIXTURE_PACKAGE} is not installed (an editable install "
            "made before it existed: reinstall with `pip install -e .`); or "
            + _how_to_point(fixture)
        ) from error
    manifest = anchor / fixture / "manifest.json"
    if not isinstance(manifest, Path):
        # A zip or other non-file-system install: np.load and the hash checks need real files.
        raise FixtureError(
            f"fixture: {FIXTURE_PACKAGE} is installed at {anchor}, not as folders on the file "
            "system; " + _how_to_point(fixture)
        )
    return manifest.parent


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def freeze_fixture(directory: str | Path, *, fixture: str = "sonar_v1") -> Path:
    """Renders every scene of ``fixture`` with the reference and writes the fixture once.

    Refuses an existing non-empty directory. The files are written into a
    temporary sibling folder that is renamed into place at the end
    (:func:`leviathan._files.atomic_directory`), so nothing half-written is
    left behind.

    Raises:
        FileExistsError: ``directory`` already holds files.
    """
    target = Path(directory)
    if target.exists() and any(target.iterdir()):
        raise FileExistsError(
            f"directory: {target} already holds a fixture; the fixture is frozen and is never "
            "regenerated (if the reference's output changed, the code is wrong)"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_directory(target) as staging:
        scenes = []
        for case in _kind(fixture).cases():
            frame = case.render(backend="reference")
            file = f"{case.name}.npz"
            write_npz(staging / file, {k: np.asarray(v) for k, v in frame.channels.items()})
            scenes.append(
                {
                    "name": case.name,
                    "description": case.description,
                    "file": file,
                    "file_sha256": _file_sha256(staging / file),
                    "content_hash": frame.content_hash,
                    "channels": {
                        k: {"sha256": content_hash(v), "dtype": v.dtype.str, "shape": list(v.shape)}
                        for k, v in frame.channels.items()
                    },
                }
            )
        import leviathan

        manifest = {
            "format": _kind(fixture).format,
            "scene_count": len(scenes),
            "generated_with": {
                "leviathan": leviathan.__version__,
                "numpy": np.__version__,
                "python": platform.python_version(),
                "machine": platform.machine(),
            },
            "scenes": scenes,
        }
        write_atomically(
            staging / "manifest.json",
            (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode(),
        )
    return target


def load_manifest(directory: str | Path | None = None, *, fixture: str = "sonar_v1") -> dict:
    """Reads and checks a fixture's manifest."""
    kind = _kind(fixture)
    root = Path(directory) if directory is not None else default_fixture_dir(fixture)
    path = root / "manifest.json"
    if not root.is_dir():
        what = "is not a folder" if root.exists() else "does not exist"
        raise FixtureError(
            f"fixture: the fixture directory {root} {what}; " + _how_to_point(fixture)
        )
    if not path.is_file():
        raise FixtureError(f"fixture: no manifest.json in {root}; " + _how_to_point(fixture))
    manifest = json.loads(path.read_text())
    if manifest.get("format") != kind.format:
        raise FixtureError(
            f"fixture: {path} has format {manifest.get('format')!r}, expected {kind.format!r}"
        )
    names = [s["name"] for s in manifest["scenes"]]
    if tuple(names) != kind.scene_names:
        raise FixtureError(
            f"fixture: manifest scenes {names} differ from the defined scenes "
            f"{list(kind.scene_names)}"
        )
    return manifest


@dataclass
class SceneCheck:
    """Outcome of checking one scene: ``ok`` when every channel and the hash match bit for bit."""

    __content_type__ = "leviathan.parity.fixture.SceneCheck"

    name: str
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the scene is bit-identical to the fixture."""
        return not self.mismatches


def check_scene(
    name: str,
    entry: dict,
    root: Path,
    *,
    backend: str = "reference",
    device: str | None = None,
    fixture: str = "sonar_v1",
) -> SceneCheck:
    """Renders one scene and compares it with its frozen entry, channel by channel."""
    result = SceneCheck(name)
    path = root / entry["file"]
    if _file_sha256(path) != entry["file_sha256"]:
        raise FixtureError(f"fixture: {path} does not match its manifest hash (corrupted fixture)")
    frame = _kind(fixture).build(name).render(backend=backend, device=device)
    with np.load(path, allow_pickle=False) as stored:
        frozen = {k: stored[k] for k in stored.files}
    if set(frozen) != set(frame.channels):
        result.mismatches.append(
            f"channel set differs: frozen {sorted(frozen)} vs rendered {sorted(frame.channels)}"
        )
    for channel in sorted(set(frozen) & set(frame.channels)):
        a, b = frozen[channel], frame.channels[channel]
        if a.dtype != b.dtype or a.shape != b.shape:
            result.mismatches.append(
                f"{channel}: dtype/shape {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
            )
        elif a.tobytes() != b.tobytes():
            bytes_a = np.frombuffer(a.tobytes(), dtype=np.uint8).reshape(max(a.size, 1), -1)
            bytes_b = np.frombuffer(b.tobytes(), dtype=np.uint8).reshape(max(b.size, 1), -1)
            bad = int(np.count_nonzero(np.any(bytes_a != bytes_b, axis=1)))
            result.mismatches.append(f"{channel}: {bad} of {a.size} element(s) differ")
        elif content_hash(b) != entry["channels"][channel]["sha256"]:
            result.mismatches.append(f"{channel}: channel hash differs from the manifest")
    if frame.content_hash != entry["content_hash"]:
        result.mismatches.append(
            f"content_hash {frame.content_hash} != frozen {entry['content_hash']}"
        )
    return result


def check_fixture(
    directory: str | Path | None = None,
    *,
    backend: str = "reference",
    device: str | None = None,
    fixture: str = "sonar_v1",
) -> list[SceneCheck]:
    """Checks every frozen scene of ``fixture`` with the given backend; one check per scene."""
    root = Path(directory) if directory is not None else default_fixture_dir(fixture)
    manifest = load_manifest(root, fixture=fixture)
    return [
        check_scene(entry["name"], entry, root, backend=backend, device=device, fixture=fixture)
        for entry in manifest["scenes"]
    ]
