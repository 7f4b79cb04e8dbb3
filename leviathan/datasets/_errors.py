"""Errors of the dataset writers and readers."""

from __future__ import annotations

__all__ = ["DatasetError", "DatasetIntegrityError"]


class DatasetError(ValueError):
    """A dataset cannot be written or read as asked.

    Raised for records a writer refuses (capture groups out of time order, a
    sensor or vehicle that was not declared), for a file that is not a
    LEVIATHAN dataset or has a format version this reader does not know, and
    for a file whose structure is incomplete (a missing group or dataset).
    The message names the field or path, the value found and what was expected.
    """


class DatasetIntegrityError(DatasetError):
    """A record read back from a dataset does not have the content hash stored with it.

    Attributes:
        where: HDF5 path of the record (e.g. ``/sensors/survey/sonar/00000003``).
        expected: The content hash stored in the file.
        found: The content hash of the record rebuilt from the file.
    """

    def __init__(self, message: str, *, where: str, expected: str, found: str) -> None:
        super().__init__(message)
        self.where = where
        self.expected = expected
        self.found = found
