"""ROS 2 bags in MCAP: LEVIATHAN's samples and ground truth as standard ROS 2 messages.

:class:`McapWriter` streams capture groups and vehicle tracks into an MCAP file
with the ``ros2`` profile: ROS 2 CDR messages, schemas in ``ros2msg`` text
(:mod:`leviathan.datasets.ros_messages`), zstd-compressed chunks, and the
``offered_qos_profiles`` every channel carries when ``ros2 bag`` records it. It
opens in any MCAP viewer (Foxglove, ``ros2 bag`` with the MCAP storage plugin)
with no LEVIATHAN code. The container is written by ``mcap`` and the messages
serialised by ``mcap-ros2-support``, the MCAP maintainers' own libraries:
``mcap`` is the reference Python implementation of the format (chunking,
indexes, summary, CRCs), ``mcap-ros2-support`` encodes CDR straight from the
``.msg`` text, so no ROS installation or generated message classes are needed,
and both bring their compressors (zstandard, lz4) as dependencies.

Topics (``<v>`` a vehicle, ``<s>`` one of its sensors; every vehicle and sensor
declared gets its topics, with or without messages):

==============================  ===============================================  ==============
topic                           type                                             header frame
==============================  ===============================================  ==============
``/tf_static``                  ``tf2_msgs/msg/TFMessage``, once (latched)       as in the tree
``/tf``                         ``tf2_msgs/msg/TFMessage``, every track tick     ``map``
``/<v>/odometry``               ``nav_msgs/msg/Odometry``, every track tick      ``map``
``/<v>/odometry_ned``           ``nav_msgs/msg/Odometry``, every track tick      ``world_ned``
``/<v>/<s>[/<suffix>]``         what the sensor's kind declares                  by the kind
==============================  ===============================================  ==============

A sensor's topics, message types, header frame convention and messages are its
kind's (:class:`leviathan.sensors.RosEncoding`, declared in the kind's module
with what each field holds): the imaging sonar publishes
``marine_acoustic_msgs/ProjectedSonarImage`` and the DVL ``marine_acoustic_msgs/Dvl``
on ``/<v>/<s>`` in ``<v>/<s>_acoustic``, the IMU ``sensor_msgs/Imu`` and the
pressure sensor ``sensor_msgs/FluidPressure`` in ``<v>/<s>``, the camera
``sensor_msgs/Image`` (``image``, ``rgb8``; ``depth``, ``32FC1``) and
``sensor_msgs/CameraInfo`` (``camera_info``) in ``<v>/<s>_optical``. A kind that
declares no encoding gets its frames but no topic, and the writer warns.

The odometry's child frames are ``<v>/base_link`` and ``<v>/base_link_frd``.

Frames (:mod:`leviathan.ros` holds every conversion). One parent per frame;
``/tf`` carries the vehicles' poses, ``/tf_static`` everything else::

    map                                   ENU (REP 103/105)
    ├── world_ned                         static: LEVIATHAN's NED world, same origin
    └── <v>/base_link                     /tf: the body in FLU, origin at the CG
        └── <v>/base_link_frd             static: LEVIATHAN's FRD body, (x, -y, -z)
            └── <v>/<s>_frd               static: the mount T_body_sensor (x = boresight)
                ├── <v>/<s>               static: the sensor in FLU, (x, -y, -z)
                ├── <v>/<s>_optical       kinds with the "optical" convention: OpenCV
                │                         axes (x right, y down, z forward; REP 103)
                └── <v>/<s>_acoustic      the "acoustic" convention: z = boresight,
                                          x = -z_frd, y = y_frd (marine_acoustic_msgs)

Time: every stamp is ``(t // 10**9, t % 10**9)`` of the sample's or tick's
integer ``time_ns`` and every message's MCAP ``log_time`` and ``publish_time``
are ``time_ns`` itself. Within one :meth:`McapWriter.write` call messages go
out in time order (at one instant: ``/tf``, the odometry, then the samples in
sensor-id order); ``/tf_static`` is written once, at the first message's time.

Odometry is ground truth, so every covariance is 0: the pose of the CG in the
parent frame, the twist in the child frame (nav_msgs convention).

File-level metadata records: ``leviathan.manifest`` (``{"json": ...}``, the
manifest given to :meth:`McapWriter.close` or else to the constructor),
``leviathan.vehicles`` (each vehicle's document as JSON) and
``leviathan.export`` (this format's version).

This module holds the writer; the odometry and tf messages are built in
``_mcap_messages`` and the topic and frame plan in ``_mcap_topics`` beside it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from leviathan._files import atomic_path
from leviathan.datasets._errors import DatasetError
from leviathan.datasets._mcap_messages import _check_time, _json, _odometry, _Rows
from leviathan.datasets._mcap_topics import _plan_topics
from leviathan.datasets._writer import _Aborted, _ClosesOnExit, check_track_rows
from leviathan.ros import header, message_definition, quaternion, vector3
from leviathan.sensors import sensor_declarations
from leviathan.specs import VehicleSpec
from leviathan.world import CaptureGroup, VehicleTrackRecord

__all__ = ["MCAP_FORMAT_VERSION", "QOS_TRANSIENT_LOCAL", "QOS_VOLATILE", "McapWriter"]

MCAP_FORMAT_VERSION = "leviathan.mcap.v1"
"""Name and version of this file layout (topics, frames, conventions), in ``leviathan.export``."""


def _qos(durability: int) -> str:
    # As ros2 bag (Humble and later) records a publisher's offered profile: history and
    # depth are unknown to the recorder (3, 0), durations infinite (INT64_MAX ns), RELIABLE (1),
    # liveliness AUTOMATIC (1); durability 1 = TRANSIENT_LOCAL, 2 = VOLATILE (rmw/types.h).
    infinite = "    sec: 9223372036\n    nsec: 854775807\n"
    return (
        "- history: 3\n  depth: 0\n  reliability: 1\n"
        f"  durability: {durability}\n"
        f"  deadline:\n{infinite}  lifespan:\n{infinite}  liveliness: 1\n"
        f"  liveliness_lease_duration:\n{infinite}  avoid_ros_namespace_conventions: false"
    )


QOS_VOLATILE = _qos(2)
"""``offered_qos_profiles`` of every channel but ``/tf_static``: reliable, volatile."""

QOS_TRANSIENT_LOCAL = _qos(1)
"""``offered_qos_profiles`` of ``/tf_static``: reliable, transient local (a latched topic)."""

# --------------------------------------------------------------------------- writer


class McapWriter(_ClosesOnExit):
    """Streams capture groups and vehicle tracks into a ROS 2 bag in MCAP (see the module doc).

    The file is written to a temporary sibling and renamed into place by
    :meth:`close`; :meth:`abort` (or an exception inside ``with``) removes it
    and leaves whatever was at ``path`` as it was. A call that is refused
    (records out of order, an undeclared sensor or vehicle) aborts the writer
    the same way before raising, so no partial file is ever left.

    Args:
        path: The ``.mcap`` file to write.
        vehicles: Vehicle document by World vehicle name (sensor ids are
            ``"<name>/<sensor>"``). Names become topic and frame names, so vehicle
            and sensor names must be ROS 2 name tokens (letters, digits and
            underscores, not starting with a digit, no ``__``).
        manifest: JSON-like provenance, stored as the ``leviathan.manifest`` record.

    Raises:
        DatasetError: A wrong suffix, a name that cannot be a ROS topic or frame,
            two sensors whose topics or frames collide, a DVL without exactly 4
            beams, or a manifest that is not JSON-like. Nothing is created.
        OSError: ``path`` cannot be written (its ``filename`` names it).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        vehicles: Mapping[str, VehicleSpec],
        manifest: Mapping[str, Any],
    ) -> None:
        from mcap.writer import CompressionType
        from mcap_ros2.writer import Writer

        self._path = Path(path)
        if self._path.suffix.lower() != ".mcap":
            raise DatasetError(f"path: expected a file ending in .mcap, got {str(path)!r}")
        self._manifest_json = self._checked_manifest(manifest, "manifest")
        self._topics, self._sensors, self._vehicle_json, self._static = _plan_topics(vehicles)
        self._closed = False
        self._atomic = atomic_path(self._path)
        tmp = self._atomic.__enter__()
        try:
            self._file = open(tmp, "wb")  # held open across write() calls
            self._ros = Writer(self._file, compression=CompressionType.ZSTD)
            self._schemas = {
                name: self._ros.register_msgdef(name, message_definition(name))
                for name in sorted({t for _, t in self._topics.values()})
            }
            for topic, (_, type_name) in self._topics.items():
                self._register_channel(topic, type_name)
        except BaseException:
            self._discard()
            raise
        self._sequence = dict.fromkeys(self._topics, 0)
        self._static_written = False
        self._last_group_ns: int | None = None
        self._last_rows: dict[str, tuple[int, int]] = {}

    # ----------------------------------------------------------------- setup

    @staticmethod
    def _checked_manifest(manifest: Any, field: str) -> str:
        if not isinstance(manifest, Mapping):
            raise DatasetError(f"{field}: expected a mapping, got {type(manifest).__name__}")
        return _json(manifest, field)

    def _register_channel(self, topic: str, type_name: str) -> None:
        # mcap-ros2-support registers a topic's channel at its first message, without channel
        # metadata, but the ros2 profile requires offered_qos_profiles on every channel (and
        # /tf_static must say transient local). So register each channel here, with its QoS,
        # through the writer's MCAP writer, and enter it in the topic table write_message uses.
        channel_ids = getattr(self._ros, "_channel_ids", None)
        mcap_writer = getattr(self._ros, "_writer", None)
        if not isinstance(channel_ids, dict) or mcap_writer is None:
            raise RuntimeError(
                "this mcap-ros2-support version keeps no _channel_ids/_writer; McapWriter needs "
                "0.5 or 0.6 to register channels with their QoS"
            )
        qos = QOS_TRANSIENT_LOCAL if topic == "/tf_static" else QOS_VOLATILE
        channel_ids[topic] = mcap_writer.register_channel(
            topic=topic,
            message_encoding="cdr",
            schema_id=self._schemas[type_name].id,
            metadata={"offered_qos_profiles": qos},
        )

    # ----------------------------------------------------------------- streaming

    def write(self, groups: Sequence[CaptureGroup], tracks: Sequence[VehicleTrackRecord]) -> None:
        """Appends capture groups and track rows, in time order within the call.

        Every sample's messages are built by its kind's encoder
        (:class:`leviathan.sensors.RosEncoding`) while the call is checked, before
        anything of it is written.

        Args:
            groups: Capture groups, each later than every group written before.
            tracks: At most one record per vehicle, each continuing that vehicle's rows
                (its first tick one after the last tick written, consecutive ticks,
                increasing times).

        Raises:
            DatasetError: A record out of order, an undeclared vehicle or sensor, a
                sample of another kind than declared, or a time a ROS stamp cannot
                hold. The writer is aborted first (no file is left).
            TypeError: ``tracks`` holds something other than track records (aborted too).
        """
        with self._open_or_abort("write"):
            groups, rows, messages = self._checked(groups, tracks)
            self._emit(groups, rows, messages)

    def _checked(
        self, groups: Any, tracks: Any
    ) -> tuple[list[CaptureGroup], list[_Rows], dict[tuple[int, str], list]]:
        """Validates a whole call, and builds its sample messages, before anything is written."""
        groups, tracks = list(groups), list(tracks)
        messages: dict[tuple[int, str], list[tuple[str, dict[str, Any]]]] = {}
        last = self._last_group_ns
        for i, group in enumerate(groups):
            if not isinstance(group, CaptureGroup):
                raise DatasetError(
                    f"groups[{i}]: expected a CaptureGroup, got {type(group).__name__}"
                )
            _check_time(f"groups[{i}].time_ns", group.time_ns)
            if last is not None and group.time_ns <= last:
                raise DatasetError(
                    f"groups[{i}].time_ns: {group.time_ns} ns is not after the last capture group "
                    f"written ({last} ns); write groups once each, in time order"
                )
            last = group.time_ns
            for sid, sample in group.samples.items():
                where = f"groups[{i}].samples[{sid!r}]"
                messages[(group.time_ns, sid)] = self._sample_messages(
                    where, sid, sample, group.time_ns
                )
        check_track_rows(tracks, self._vehicle_json, self._last_rows)
        rows: list[_Rows] = []
        for j, track in enumerate(tracks):
            if len(track) == 0:
                continue
            for k, t in enumerate(track.times_ns.tolist()):
                _check_time(f"tracks[{j}].times_ns[{k}]", t)
            rows.append(_Rows(track))
        return groups, rows, messages

    def _sample_messages(
        self, where: str, sid: str, sample: Any, time_ns: int
    ) -> list[tuple[str, dict[str, Any]]]:
        """``(topic, message)`` of one sample, from its kind's encoder, after checking it."""
        plan = self._sensors.get(sid)
        if plan is None:
            raise DatasetError(
                f"{where}: sensor id {sid!r} was not declared; declared: {sorted(self._sensors)}"
            )
        kind, topic, frame_id = plan
        declared = sensor_declarations(kind)
        if not isinstance(sample, declared.product_type) or getattr(sample, "kind", kind) != kind:
            got = getattr(sample, "kind", type(sample).__name__)
            raise DatasetError(f"{where}: expected a {kind} sample, got a {got} sample")
        if sample.time_ns != time_ns:
            raise DatasetError(
                f"{where}.time_ns: {sample.time_ns} ns differs from its group's {time_ns} ns"
            )
        if topic is None or declared.ros is None:
            return []  # the kind publishes nothing (said once, when the topics were planned)
        try:
            encoded = declared.ros.encode(sample, frame_id)
        except ValueError as error:
            raise DatasetError(f"{where}.{error}") from None
        out = []
        for suffix, message in encoded:
            full = f"{topic}/{suffix}" if suffix else topic
            if full not in self._topics:
                raise DatasetError(
                    f"{where}: the {kind} encoder returned a message for {full}, which its "
                    f"RosEncoding does not declare (declared: "
                    f"{[t.suffix for t in declared.ros.topics]})"
                )
            out.append((full, message))
        return out

    def _message(self, topic: str, time_ns: int, message: dict[str, Any]) -> None:
        sequence = self._sequence[topic]
        self._sequence[topic] = sequence + 1
        self._ros.write_message(
            topic,
            self._schemas[self._topics[topic][1]],
            message,
            log_time=time_ns,
            publish_time=time_ns,
            sequence=sequence,
        )

    def _write_static(self, time_ns: int) -> None:
        stamp = header(time_ns, "")
        transforms = [
            {
                "header": {**stamp, "frame_id": t["parent"]},
                "child_frame_id": t["child"],
                "transform": {"translation": t["translation"], "rotation": t["rotation"]},
            }
            for t in self._static
        ]
        self._message("/tf_static", time_ns, {"transforms": transforms})
        self._static_written = True

    def _emit(
        self,
        groups: list[CaptureGroup],
        rows: list[_Rows],
        messages: dict[tuple[int, str], list[tuple[str, dict[str, Any]]]],
    ) -> None:
        at: dict[int, list[tuple[_Rows, int]]] = {}
        for r in sorted(rows, key=lambda r: r.name):
            for i, t in enumerate(r.times_ns):
                at.setdefault(t, []).append((r, i))
        by_time = {g.time_ns: g for g in groups}
        times = sorted(set(at) | set(by_time))
        if times and not self._static_written:
            self._write_static(times[0])
        for t in times:
            if t in at:
                self._emit_rows(t, at[t])
            if t in by_time:
                for sid in by_time[t].samples:
                    for topic, message in messages[(t, sid)]:
                        self._message(topic, t, message)
        for r in rows:
            self._last_rows[r.name] = (r.last_tick, r.times_ns[-1])
        for g in groups:
            self._last_group_ns = g.time_ns

    def _emit_rows(self, t: int, rows: list[tuple[_Rows, int]]) -> None:
        transforms = [
            {
                "header": header(t, "map"),
                "child_frame_id": f"{r.name}/base_link",
                "transform": {
                    "translation": vector3(r.position_enu[i]),
                    "rotation": quaternion(r.q_enu[i]),
                },
            }
            for r, i in rows
        ]
        self._message("/tf", t, {"transforms": transforms})
        for r, i in rows:
            self._message(
                f"/{r.name}/odometry",
                t,
                _odometry(
                    t, "map", f"{r.name}/base_link", r.position_enu[i], r.q_enu[i], r.twist_flu[i]
                ),
            )
            self._message(
                f"/{r.name}/odometry_ned",
                t,
                _odometry(
                    t,
                    "world_ned",
                    f"{r.name}/base_link_frd",
                    r.position_ned[i],
                    r.q_ned[i],
                    r.twist_frd[i],
                ),
            )

    # ----------------------------------------------------------------- finishing

    def close(self, *, manifest: Mapping[str, Any] | None = None) -> Path:
        """Finalises the file (summary, indexes, metadata) and renames it into place.

        Args:
            manifest: Replaces the manifest given to the constructor (e.g. with a run
                hash known only at the end), or None to keep it.

        Returns:
            The path written.

        Raises:
            DatasetError: If the writer is closed already, or ``manifest`` is not
                JSON-like (the writer is aborted first).
        """
        with self._open_or_abort("close"):
            if manifest is not None:
                self._manifest_json = self._checked_manifest(manifest, "manifest")
            if not self._static_written:
                self._write_static(0)
            self._ros.add_metadata("leviathan.manifest", {"json": self._manifest_json})
            self._ros.add_metadata("leviathan.vehicles", dict(self._vehicle_json))
            self._ros.add_metadata("leviathan.export", {"format": MCAP_FORMAT_VERSION})
            self._ros.finish()
            self._file.close()
            self._closed = True
            # On a failed sync or rename atomic_path removes the temporary file itself.
            atomic, self._atomic = self._atomic, None
            atomic.__exit__(None, None, None)
        return self._path

    def abort(self) -> None:
        """Removes the temporary file; whatever was at ``path`` stays as it was. Idempotent."""
        if getattr(self, "_atomic", None) is None:
            return
        self._closed = True
        self._discard()

    def _discard(self) -> None:
        atomic, self._atomic = self._atomic, None
        if atomic is None:
            return
        file = getattr(self, "_file", None)
        if file is not None and not file.closed:
            file.close()
        # Leaving atomic_path with an exception removes the temporary file; __exit__
        # returns False (the exception is ours and goes nowhere).
        aborted = _Aborted()
        atomic.__exit__(_Aborted, aborted, None)
