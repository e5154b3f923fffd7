"""Garbage collection at the table's quiet moments (`p2p.quiet`): a live peer collects
and freezes what survives before the first deal and when each round's scores stand,
and makes it collectable again when it leaves the table."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest
import trio

from p2p import quiet
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
    stack, peers = await seat_live_table(tmp_path, 3, person=False, rules=TableRules(target=10, skills_text=SMALL_DECK))
    async with stack:
        async with trio.open_nursery() as nursery:
            for peer in peers:
                nursery.start_soon(peer.run)
    rounds = len(peers[0].machine.outcomes)
    assert all(p.summary().finished for p in peers) and rounds >= 1
    assert len(calls) == len(peers) * (1 + rounds)
    assert gc.get_freeze_count() == 0  # released on the way out
