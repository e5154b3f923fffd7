"""§9.8, §9.4, §10.1: a seat's own `leave`, delivered in the agreed order (and so in its
log) but held by its table behind a reveal whose shares have not reached it when its
wait for the leave runs out. The others' game ended at that leave; so does the leaver's
log, and it audits clean."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import trio

from engine.events import Discard, Draw, Ready
from engine.phases import Phase
from p2p.agreement import compare
from p2p.audit import audit
from p2p.identity import Identity
from p2p.log import FairnessLog, read_log
from p2p.peer import TablePeer
from p2p.wire import decode_map
from tests.live_support import dealt, seat_live_table, start_seats, until


async def test_s9_8_a_leave_held_behind_a_reveal_as_the_wait_runs_out_ends_the_log_at_it(tmp_path: Path) -> None:
    """The first player draws and discards; the leaver's table takes the discard and
    waits for the first player's share of it (delayed here: a starved process that has
    not read it yet), and its player leaves then. The leave is ordered next, so it is
    delivered and logged at the leaver, and held behind that reveal (§9.4); the others,
    who hold the share, end their game at it. The leaver's wait (0.5 s here) runs out
    before the share is taken: its log closed as if the leave had not come back, with
    `left` and the leave in its end though the leave is its last message, and its own
    audit said the log was altered. It ends at the leave instead (no `left`), and audits
    clean, naming the departure and the shares it never got; the same log left open, or
    another seat's log that lacks the share, still ends waiting for it (§10.2)."""
    stack, seats = await seat_live_table(tmp_path, 3, person=False)
    for seat in seats:  # (no bot decides: the only moves are the test's, so the leave is ordered next)
        seat.driver = None

    async with stack:
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                summaries = start_seats(nursery, seats)
                await until(lambda: all(dealt(seat) for seat in seats), *seats)
                first = seats[0].machine.engine.first_player
                assert first is not None
                by_seat = {seat.me: seat for seat in seats}
                player, leaver = by_seat[first], by_seat[(first + 1) % 3]
                leaver._await_leave = partial(TablePeer._await_leave, leaver, 0.5)  # type: ignore[method-assign]
                late: list[Any] = []
                side_deliveries = leaver.orderer.side_deliveries

                def delayed() -> Iterator[tuple[int, Any]]:
                    """The first player's shares in its turn do not reach the leaver's table yet."""
                    for seat, side in side_deliveries():
                        if seat == first and side.inner["type"] == "shares" and leaver.machine.engine.turn_seat == first:
                            late.append(side)
                        else:
                            yield seat, side

                leaver.orderer.side_deliveries = delayed  # type: ignore[method-assign]
                for seat in seats:  # (the ready barrier passes: the first turn begins, R4)
                    assert seat.submit(Ready(seat.me))
                playing = player.machine.engine
                await until(lambda: playing.turn_seat == first and playing.phase is Phase.START, player)
                assert player.submit(Draw(first))
                await until(lambda: playing.phase is Phase.DRAWN and playing.next_need is None, player)
                assert player.submit(Discard(first))  # (its card turned up: the first player's share alone, §8.5)
                await until(lambda: any(first in missing for missing in leaver.machine.waiting_for_shares.values())
                            and not leaver.machine.holding, leaver)
                await leaver.leave("it was stopped")
                await until(lambda: len(summaries) == 3, *seats)
    assert late, "the first player's share of the discard was never held back"
    ended = read_log(leaver.log.path)
    leave = ended.messages[-1]
    assert [s.inner["type"] for s in leaver.orderer.sent_of("leave")] == ["leave"]
    assert leave[0] == leaver.orderer.sent_of("leave")[0].body  # (its leave is in its log, as delivered)
    mine = audit(leaver.log.path)
    assert mine.ok, mine.first_failure
    assert mine.left is not None and mine.left.seat == leaver.me, mine.left
    assert ended.left is None and ended.leave is None and ended.absent is None
    assert any("held it behind" in note.text for note in ended.notes), [note.text for note in ended.notes]
    logs = [audit(seat.log.path) for seat in seats]
    assert all(log.ok and log.left is not None and log.left.seat == leaver.me for log in logs)
    assert all(read_log(seat.log.path).messages[-1][0] == leave[0] for seat in seats)
    agreement = compare(logs)
    assert agreement.ok, agreement.parting
    # Only the writer's own leave, in a log its writer closed, ends a log so (§10.2).
    unclosed = copied(leaver.log.path, tmp_path / "unclosed.bandit-log", leaver.identity)
    other = by_seat[(first + 2) % 3]
    shares = [i for i, (body, _) in enumerate(read_log(other.log.path).sides)
              if decode_map(body)["from"] == player.identity.peer_id]
    lacking = copied(other.log.path, tmp_path / "lacking.bandit-log", other.identity, drop_side=shares[-1],
                     why=f"{other.names[leaver.me]} left the table (it was stopped)")
    for path in (unclosed, lacking):
        found = audit(path)
        assert not found.ok and found.left is None and found.first_failure is not None
        assert "the log ends waiting for the shares of reveal" in found.first_failure.what, found.first_failure


def copied(original: Path, path: Path, writer: Identity, *, drop_side: int | None = None,
           why: str | None = None) -> Path:
    """`original` as its writer could write it again: without its side record `drop_side`,
    and closed with `why` (left open without it)."""
    contents = read_log(original)
    log = FairnessLog.create(path, contents.header, writer)
    for (side, index), (_, body, sig) in zip(contents.sequence, contents.records()):
        if not (side and index == drop_side):
            log._write({"type": "log.side" if side else "log.msg", "v": 1, "body": body, "sig": sig})
    if why is None:
        log.drop()
    else:
        log.close(why)
    return path
