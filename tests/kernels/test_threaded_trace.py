"""The CPU trace split into ray batches across threads equals the one-thread trace, bit for bit.

Each ray is independent and owned by one batch, so the thread count and the batch
boundaries must never show in the result: ``t``, ``instance`` and ``triangle`` are
compared exactly against one thread and against the numpy reference, on several
instances (the per-instance culling bound carries over between launches) with
more rays than one batch holds and a ray count that leaves a ragged last batch.
"""

from __future__ import annotations

import numpy as np
import pytest
from trace_cases import grid, prepared, random_rays, random_soup

from leviathan.kernels import CPU_BATCH_RAYS, cpu_trace_threads, nearest_hits
from leviathan.reference_cpu.trace import nearest_hits as reference_nearest_hits


def _scene_and_rays():
    rng = np.random.default_rng(1717)
    scene = prepared(random_soup(rng, 600), grid(24, 40.0, 8.0, tilt=0.1), random_soup(rng, 300))
    o, d = random_rays(rng, 2 * CPU_BATCH_RAYS + 123)
    return scene, np.ascontiguousarray(o), np.ascontiguousarray(d)


def _assert_same(a, b) -> None:
    for name in ("t", "instance", "triangle"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        np.testing.assert_array_equal(x, y, err_msg=name)


@pytest.mark.parametrize("threads", [2, 3, 8])
def test_threaded_cpu_trace_equals_one_thread(threads: int) -> None:
    scene, o, d = _scene_and_rays()
    one = nearest_hits(scene, o, d, t_max=60.0, threads=1)
    many = nearest_hits(scene, o, d, t_max=60.0, threads=threads)
    assert np.count_nonzero(one.instance >= 0) > 1000  # the case exercises real hits
    assert len(set(one.instance[one.instance >= 0].tolist())) == 3
    _assert_same(many, one)


def test_default_threads_trace_equals_the_reference() -> None:
    scene, o, d = _scene_and_rays()
    _assert_same(
        nearest_hits(scene, o, d, t_max=60.0), reference_nearest_hits(scene, o, d, t_max=60.0)
    )


def test_cpu_trace_threads_is_a_positive_count() -> None:
    assert isinstance(cpu_trace_threads(), int) and cpu_trace_threads() >= 1


@pytest.mark.parametrize("threads", [0, -1, 1.5, True, "2"])
def test_bad_thread_counts_are_refused(threads: object) -> None:
    scene, o, d = _scene_and_rays()
    with pytest.raises(ValueError, match="threads"):
        nearest_hits(scene, o, d, t_max=60.0, threads=threads)  # type: ignore[arg-type]


def test_no_pool_call_outlives_a_broken_wait() -> None:
    """A failing item (as a Ctrl-C's KeyboardInterrupt breaks the wait) reaches the
    caller only once every call already running has returned, and the queue is not run
    out: the caller's frames may free the memory those calls' kernels write. (With
    ``list(pool.map(...))`` the first item's error comes back while the second still
    runs.)"""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from leviathan.kernels import map_joined

    started: list[int] = []
    finished: list[int] = []
    lock = threading.Lock()
    slow_running = threading.Event()
    stopping = threading.Event()

    def work(item: int) -> None:
        if stopping.is_set():
            return
        with lock:
            started.append(item)
        if item == 0:
            slow_running.wait(5.0)
            raise KeyboardInterrupt
        if item == 1:
            slow_running.set()
            time.sleep(0.3)
        elif not stopping.wait(5.0):  # a later item runs until the caller has caught the error
            raise AssertionError("the caller never caught the error")
        with lock:
            finished.append(item)

    with ThreadPoolExecutor(max_workers=2) as pool:
        with pytest.raises(KeyboardInterrupt):
            map_joined(pool, work, list(range(200)), stopping)
        with lock:
            at_raise = (sorted(started), sorted(finished))
    assert stopping.is_set()
    assert 1 in at_raise[1], "the slow call was still running when the caller went on"
    assert at_raise[0] == sorted([0, *at_raise[1]])  # every started call had returned
    assert len(started) <= 4  # no new item once the caller caught it: the queue was not run out
    assert (sorted(started), sorted(finished)) == at_raise  # nothing ran afterwards
