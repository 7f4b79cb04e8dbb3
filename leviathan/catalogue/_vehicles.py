"""The built-in vehicles: TOML documents shipped as package data, loaded once.

Each ``vehicles/<name>.toml`` holds one :class:`~leviathan.specs.VehicleSpec`
and is read with :func:`~leviathan.specs.load_spec`, the public loader, so the
catalogue takes no path a user's document does not.
"""

from __future__ import annotations

import functools
from importlib.resources import as_file, files

from leviathan.specs import VehicleSpec, load_spec

# The folder of vehicle documents inside this package (package data).
_DOCUMENTS = "vehicles"
_SUFFIX = ".toml"


def _documents() -> list[str]:
    """File names of the vehicle documents shipped with the package, sorted."""
    folder = files(__package__).joinpath(_DOCUMENTS)
    return sorted(entry.name for entry in folder.iterdir() if entry.name.endswith(_SUFFIX))


@functools.cache
def _build() -> dict[str, VehicleSpec]:
    vehicles: dict[str, VehicleSpec] = {}
    for file_name in _documents():
        resource = files(__package__).joinpath(_DOCUMENTS, file_name)
        # as_file gives a real path even when the package is installed zipped.
        with as_file(resource) as path:
            vehicle = load_spec(path, VehicleSpec)
        # The file name is how a reader finds a vehicle, so it must be its name.
        expected = file_name.removesuffix(_SUFFIX)
        if vehicle.name != expected:
            raise ValueError(
                f"catalogue document {_DOCUMENTS}/{file_name} declares name={vehicle.name!r}; "
                f"a catalogue document must be named after its vehicle: rename the file to "
                f"{vehicle.name}{_SUFFIX} or set name = {expected!r}"
            )
        vehicles[vehicle.name] = vehicle
    return dict(sorted(vehicles.items()))


def vehicle_names() -> tuple[str, ...]:
    """Return the names of the built-in vehicles, sorted."""
    return tuple(_build())


def get_vehicle(name: str) -> VehicleSpec:
    """Return a built-in vehicle spec by name.

    Raises:
        KeyError: If there is no such vehicle; the message lists the available names.
    """
    vehicles = _build()
    if name not in vehicles:
        raise KeyError(f"no vehicle {name!r} in the catalogue; available: {', '.join(vehicles)}")
    return vehicles[name]


def catalogue() -> dict[str, VehicleSpec]:
    """Return every built-in vehicle, keyed by name in sorted order (a new dict each call)."""
    return dict(_build())
