"""Dataset exports of LEVIATHAN runs: ROS 2 bags in MCAP, and HDF5 with the full ground truth.

* :class:`McapWriter` writes a ROS 2 bag in MCAP with standard message types
  (``marine_acoustic_msgs``, ``sensor_msgs``, ``nav_msgs``, ``tf2_msgs``), in
  both LEVIATHAN's NED/FRD frames and the ENU/FLU frames ROS expects
  (:mod:`leviathan.datasets.ros_frames` holds the conversion).
* :class:`Hdf5Writer` writes every channel of every sample losslessly, the
  complete per-cell sonar ground truth included; :func:`read_hdf5` rebuilds the
  records, and their content hashes equal the originals.
* :class:`DatasetRecorder` streams a live World into either or both while it
  steps; :func:`export_world` writes a World's history at once;
  :func:`export_dataset` re-exports a recorded run (a demo output folder).

Exports are not canonical products: they carry the records' content hashes but
add no identity of their own, and every file is written atomically.
"""

from leviathan._lazy import lazy_exports

# Imported on first use, so that ``leviathan.datasets.mcap`` does not load h5py and
# ``leviathan.datasets.hdf5`` does not load the MCAP libraries.
_HOMES = {
    "DatasetError": "leviathan.datasets._errors",
    "DatasetIntegrityError": "leviathan.datasets._errors",
    "Hdf5Dataset": "leviathan.datasets.hdf5",
    "Hdf5Writer": "leviathan.datasets.hdf5",
    "read_hdf5": "leviathan.datasets.hdf5",
    "McapWriter": "leviathan.datasets.mcap",
    "RUN_DATASET_NAME": "leviathan.datasets.run",
    "DatasetRecorder": "leviathan.datasets.run",
    "RecordBatch": "leviathan.datasets.run",
    "export_dataset": "leviathan.datasets.run",
    "export_world": "leviathan.datasets.run",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())

__all__ = [
    "RUN_DATASET_NAME",
    "DatasetError",
    "DatasetIntegrityError",
    "DatasetRecorder",
    "Hdf5Dataset",
    "Hdf5Writer",
    "McapWriter",
    "RecordBatch",
    "export_dataset",
    "export_world",
    "read_hdf5",
]
