"""Garbage collection at the table's quiet moments (`p2p.quiet`): a live peer collects
and freezes what survives before the first deal, when each round's scores stand and in
lulls (no frame in or out for `quiet.LULL`) once enough was allocated, and makes it
collectable again when it leaves the table."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

import pytest
import trio

from p2p import quiet
from p2p.peer import Pace, TablePeer
from p2p.roster import TableRules
from tests.live_support import seat_live_table
from tests.test_table_games import SMALL_DECK


class Cycle:
    def __init__(self) -> None:
        self.me = self


def test_settle_collects_young_cycles_and_keeps_survivors_out_until_release() -> None:
    gc.collect()
    garbage = Cycle()
    gone = weakref.ref(garbage)
    del garbage
    kept = Cycle()
    try:
        quiet.settle()
        assert gone() is None  # young cyclic garbage is collected at the quiet moment
        assert gc.get_freeze_count() > 0
        assert not any(o is kept for o in gc.get_objects())  # frozen: later collections do not walk it
    finally:
        quiet.release()
    assert gc.get_freeze_count() == 0
    assert any(o is kept for o in gc.get_objects())


async def test_a_live_peer_settles_before_the_deal_and_at_every_round_end(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(quiet, "settle", lambda: calls.append(1))
    monkeypatch.setattr(quiet, "tidy", lambda: False)  # (lulls: the test below)
    stack, peers = await seat_live_table(tmp_path, 3, person=False, rules=TableRules(target=10, skills_text=SMALL_DECK))
    async with stack:
        async with trio.open_nursery() as nursery:
            for peer in peers:
                nursery.start_soon(peer.run)
    rounds = len(peers[0].machine.outcomes)
    assert all(p.summary().finished for p in peers) and rounds >= 1
    assert len(calls) == len(peers) * (1 + rounds)
    assert gc.get_freeze_count() == 0  # released on the way out


def test_tidy_collects_only_once_the_young_generation_holds_enough() -> None:
    quiet.settle()
    try:
        assert not quiet.wanted() and not quiet.tidy()  # nothing allocated since: a lull costs nothing
        garbage = Cycle()
        gone = weakref.ref(garbage)
        del garbage
        kept = [Cycle() for _ in range(quiet.YOUNG)]
        assert quiet.wanted()
        assert quiet.tidy()
        assert gone() is None
        assert not any(o is kept[0] for o in gc.get_objects())  # frozen with the rest
        assert not quiet.wanted()
    finally:
        quiet.release()


class LullWatch(TablePeer):
    """Notes, for each collection it made in a lull, how long before it the last frame
    came or went, and when that was."""

    collections: list[int] = []  # one item per collection made in any lull

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lulls: list[tuple[float, float]] = []

    def _use_lull(self, now: float) -> None:
        before, active_at = len(self.collections), self._active_at
        super()._use_lull(now)
        if len(self.collections) > before:
            self.lulls.append((now - active_at, active_at))


async def test_a_live_peer_collects_in_lulls_and_once_per_lull(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tidy = quiet.tidy
    collections: list[int] = []

    def counted() -> bool:
        collected = tidy()
        if collected:
            collections.append(1)
        return collected

    monkeypatch.setattr(quiet, "tidy", counted)
    monkeypatch.setattr(LullWatch, "collections", collections)
    stack, peers = await seat_live_table(tmp_path, 3, person=False, pace=Pace(think=0.05),
                                         classes={i: LullWatch for i in range(3)},
                                         rules=TableRules(target=10, skills_text=SMALL_DECK))
    async with stack:
        async with trio.open_nursery() as nursery:
            for peer in peers:
                nursery.start_soon(peer.run)
    assert all(p.summary().finished for p in peers)
    # (the three peers share this process and its garbage collector: a lull's collection by
    # one leaves the next peer's lull nothing to collect, so which of them collect is a race)
    assert any(isinstance(p, LullWatch) and p.lulls for p in peers), "bots that think between moves leave lulls"
    for peer in peers:
        assert isinstance(peer, LullWatch)
        assert all(since >= quiet.LULL for since, _ in peer.lulls)  # never while frames come and go
        starts = [active_at for _, active_at in peer.lulls]
        assert len(set(starts)) == len(starts)  # once per lull: a frame came or went between two
