"""Writing one step behind (leviathan._behind.Behind): in order, on a thread, errors raised."""

from __future__ import annotations

import threading

import pytest

from leviathan import _behind
from leviathan._behind import Behind


def test_items_are_written_in_order_on_another_thread() -> None:
    written: list[tuple[int, str]] = []
    behind = Behind(lambda item: written.append((item, threading.current_thread().name)))
    for item in range(20):
        behind.put(item)
    behind.wait()
    assert [item for item, _ in written] == list(range(20))
    assert {name for _, name in written} == {"leviathan-demo-writer"}
    assert threading.current_thread().name not in {name for _, name in written}


def test_put_returns_while_the_item_is_still_being_written() -> None:
    release = threading.Event()
    started = threading.Event()
    written: list[int] = []

    def write(item: int) -> None:
        started.set()
        assert release.wait(30)
        written.append(item)

    behind = Behind(write)
    behind.put(1)  # returns with the writer blocked: the caller computes meanwhile
    assert started.wait(30)
    assert written == []
    release.set()
    behind.wait()
    assert written == [1]


def test_at_most_one_item_is_in_flight() -> None:
    active: list[int] = []
    peak: list[int] = []
    lock = threading.Lock()

    def write(item: int) -> None:
        with lock:
            active.append(item)
            peak.append(len(active))
        with lock:
            active.remove(item)

    behind = Behind(write)
    for item in range(50):
        behind.put(item)
    behind.wait()
    assert max(peak) == 1 and len(peak) == 50


def test_a_writer_error_is_raised_on_the_callers_thread() -> None:
    def write(item: int) -> None:
        if item == 2:
            raise OSError(f"disk full at item {item}")

    behind = Behind(write)
    behind.put(1)
    behind.put(2)
    with pytest.raises(OSError, match="disk full at item 2"):
        behind.wait()
    behind.wait()  # raised once


def test_a_writer_error_is_raised_by_the_next_put() -> None:
    behind = Behind(lambda item: 1 / item)
    behind.put(0)
    with pytest.raises(ZeroDivisionError):
        behind.put(1)


def test_after_an_interrupt_nothing_more_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[int] = []
    behind = Behind(written.append)
    behind.put(1)
    behind.wait()
    monkeypatch.setattr(_behind, "interrupt_requested", lambda: True)
    behind.put(2)
    behind.wait()
    assert written == [1]
