"""A seat whose run is over (ended, or cancelled) sends nothing more (§9.8): what its
client still asks of it is refused, and it says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from engine import Ready, legal_intents
from tests.live_support import running, seat_live_table, until


async def test_s9_8_a_seat_whose_run_was_cancelled_sends_nothing_for_an_intent_or_a_leave(tmp_path: Path) -> None:
    """A client that outlives its seat's run (a cancelled run: the seat's task group
    stopped by its caller) and then submits an intent or leaves: the seat signed and sent
    them over links of a game it no longer plays, into a log it had closed. Now each says
    that nothing was sent (False) and sends nothing."""
    stack, peers = await seat_live_table(tmp_path, 2)
    me = peers[0]
    sent: list[dict[str, Any]] = []
    async with stack:
        with trio.fail_after(60):
            with trio.CancelScope() as scope:
                async with running(peers):
                    await until(lambda: Ready(me.me) in legal_intents(me.view()), me)
                    scope.cancel()
            assert me.progress.ended and me.log.closed
            me._send = sent.append  # type: ignore[method-assign]  # noqa: SLF001
            told = me.submit(Ready(me.me))
            assert sent == [], "a seat whose run was cancelled sent an intent"
            assert told is False
            told = await me.leave()
            assert sent == [], "a seat whose run was cancelled sent a leave"
            assert told is False
