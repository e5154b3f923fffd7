"""bench/gcwatch.py: it sees every collection the process runs, and tells which timed
intervals had one inside."""

from __future__ import annotations

import gc

from bench import gcwatch


def test_the_watcher_notes_each_collection_with_its_generation_until_stopped() -> None:
    watcher = gcwatch.Watcher()
    watcher.start()
    try:
        gc.collect(0)
        gc.collect(1)
    finally:
        watcher.stop()
    gc.collect(1)
    generations = [g for _start, _took, g in watcher.collections]
    assert generations[-2:] == [0, 1] and len(generations) in (2, 3)  # (an automatic one may come first)
    assert all(took >= 0 for _start, took, _g in watcher.collections)


def test_intervals_with_a_collection_inside_are_told_apart_and_each_collection_counts_once() -> None:
    collections = [(1.0000, 0.001, 1), (2.0005, 0.0001, 0), (5.0, 0.002, 2)]
    assert gcwatch.overlapping(collections, 0.9995, 1.0002) == [collections[0]]  # it began inside
    assert gcwatch.overlapping(collections, 1.0005, 1.0020) == [collections[0]]  # it was running at the start
    assert gcwatch.overlapping(collections, 3.0, 4.0) == []
    windows = [(0.999, 1.009), (1.0005, 1.0035), (2.000, 2.004), (3.0, 3.002)]
    text = gcwatch.summary(collections, windows)
    assert text.startswith("3 of 4 timed intervals had a garbage collection inside (at any process; median 4.00 ms, "
                           "the others 2.00 ms)")
    assert "collections inside: generation 0: 1, median 0.10 ms, generation 1: 1, median 1.00 ms; 3 collections in all" in text
