"""Refreshes or checks the Dashboard's vendored libraries (three.js, uPlot).

The Dashboard ships built files of two npm packages, at pinned versions, with their
licences, in ``leviathan/service/dashboard/vendor/``; ``vendor/VENDOR.json`` records
for each file its package, version, path inside the package and SHA-256.

Usage::

    python tools/refresh_vendor.py            # npm pack each pinned package, extract, record
    python tools/refresh_vendor.py --tarballs DIR   # the same from DIR/<name>-<version>.tgz
    python tools/refresh_vendor.py --check    # verify the shipped files (no network)

To move to a new version, change :data:`PACKAGES` and run it without ``--check``;
review the diff of ``VENDOR.json`` and the Dashboard in a browser before committing.
``--check`` exits 1, naming each file, when a shipped file is missing, differs from
its recorded SHA-256, is not recorded, or when ``VENDOR.json`` disagrees with
:data:`PACKAGES`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT / "leviathan" / "service" / "dashboard" / "vendor"
MANIFEST = "VENDOR.json"

PACKAGES: dict[str, dict[str, object]] = {
    "three": {
        "version": "0.187.0",
        "licence": "MIT",
        # Path inside the npm tarball ("package/" stripped) -> path under vendor/.
        "files": {
            "build/three.module.js": "three/three.module.js",
            # three.module.js imports ./three.core.js, so both sit side by side.
            "build/three.core.js": "three/three.core.js",
            "examples/jsm/controls/OrbitControls.js": "three/addons/controls/OrbitControls.js",
            "LICENSE": "three/LICENSE",
        },
    },
    "uplot": {
        "version": "1.6.32",
        "licence": "MIT",
        "files": {
            "dist/uPlot.esm.js": "uplot/uPlot.esm.js",
            "dist/uPlot.min.css": "uplot/uPlot.min.css",
            "LICENSE": "uplot/LICENSE",
        },
    },
}
"""The pinned packages: version, licence and the files taken from each."""


def sha256(path: Path) -> str:
    """The hex SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def expected_entries() -> list[dict[str, str]]:
    """The manifest's entries as :data:`PACKAGES` declares them (without checksums)."""
    return [
        {
            "package": name,
            "version": str(info["version"]),
            "licence": str(info["licence"]),
            "source": f"{name}@{info['version']}:{source}",
            "file": target,
        }
        for name, info in PACKAGES.items()
        for source, target in info["files"].items()  # type: ignore[union-attr]
    ]


def check(vendor: Path = VENDOR) -> list[str]:
    """Problems with the shipped files, one sentence each (empty: all is well)."""
    manifest_path = vendor / MANIFEST
    if not manifest_path.is_file():
        return [f"{manifest_path}: missing; run tools/refresh_vendor.py to create it"]
    try:
        entries = json.loads(manifest_path.read_text())["files"]
    except (ValueError, KeyError, TypeError) as error:
        return [f"{manifest_path}: not a vendor manifest ({error}); run tools/refresh_vendor.py"]
    problems = []
    declared = {e["file"]: e for e in expected_entries()}
    recorded = {e.get("file"): e for e in entries}
    for file, entry in declared.items():
        got = recorded.get(file)
        if got is None:
            problems.append(f"{file}: declared in PACKAGES but not in {MANIFEST}; refresh")
            continue
        for key in ("package", "version", "licence", "source"):
            if got.get(key) != entry[key]:
                problems.append(
                    f"{file}: {MANIFEST} records {key} {got.get(key)!r}, PACKAGES says "
                    f"{entry[key]!r}; refresh"
                )
    for file in recorded.keys() - declared.keys():
        problems.append(f"{file}: recorded in {MANIFEST} but not declared in PACKAGES")
    for file, got in recorded.items():
        path = vendor / str(file)
        if not path.is_file():
            problems.append(f"{file}: recorded in {MANIFEST} but missing from {vendor}")
        elif sha256(path) != got.get("sha256"):
            problems.append(
                f"{file}: SHA-256 {sha256(path)} differs from the recorded {got.get('sha256')}"
            )
    shipped = {p.relative_to(vendor).as_posix() for p in vendor.rglob("*") if p.is_file()} - {
        MANIFEST
    }
    for file in sorted(shipped - recorded.keys()):
        problems.append(f"{file}: shipped in {vendor} but not recorded in {MANIFEST}")
    return problems


def _npm_pack(name: str, version: str, into: Path) -> Path:
    out = subprocess.run(
        ["npm", "pack", f"{name}@{version}", "--silent", "--pack-destination", str(into)],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"npm pack {name}@{version} failed:\n{out.stderr.strip()}")
    return into / out.stdout.strip().splitlines()[-1]


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def refresh(*, tarballs: Path | None = None, vendor: Path = VENDOR) -> list[dict[str, str]]:
    """Extracts every declared file from its package tarball, writes it and the manifest.

    Args:
        tarballs: Folder holding ``<name>-<version>.tgz`` (as ``npm pack`` names them);
            ``None``: run ``npm pack`` for each package.
        vendor: The vendor folder to write.

    Returns:
        The manifest's entries.
    """
    entries = []
    contents: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="leviathan-vendor-") as work:
        for name, info in PACKAGES.items():
            version = str(info["version"])
            tgz = (
                _npm_pack(name, version, Path(work))
                if tarballs is None
                else tarballs / f"{name}-{version}.tgz"
            )
            if not tgz.is_file():
                raise SystemExit(f"--tarballs: {tgz} not found (npm pack {name}@{version})")
            with tarfile.open(tgz, "r:gz") as archive:
                for source, target in info["files"].items():  # type: ignore[union-attr]
                    member = archive.extractfile(f"package/{source}")
                    if member is None:
                        raise SystemExit(f"{tgz}: no file package/{source}")
                    contents[target] = member.read()
    # Everything read before anything is written: a failed refresh changes nothing.
    for entry in expected_entries():
        data = contents[entry["file"]]
        _write_atomic(vendor / entry["file"], data)
        entries.append({**entry, "sha256": hashlib.sha256(data).hexdigest()})
    manifest = {
        "about": "Vendored Dashboard libraries; refresh or check with tools/refresh_vendor.py.",
        "files": entries,
    }
    _write_atomic(vendor / MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode())
    return entries


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify the shipped files only")
    parser.add_argument("--tarballs", type=Path, help="folder of <name>-<version>.tgz files")
    parser.add_argument("--vendor", type=Path, default=VENDOR, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.check:
        problems = check(args.vendor)
        for line in problems:
            print(f"error: {line}", file=sys.stderr)
        if not problems:
            count = len(expected_entries())
            print(f"vendor: {count} files match {args.vendor / MANIFEST}")
        return 1 if problems else 0
    for entry in refresh(tarballs=args.tarballs, vendor=args.vendor):
        print(f"{entry['file']}  {entry['sha256']}  ({entry['source']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
