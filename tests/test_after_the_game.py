"""§11.4: what a seat that stays for the others after its game ended makes of a message
that breaks the order's rules. Its log is closed, so nothing is recorded and nothing
stops; its player is told once a seat, by name, in the words the game uses."""

from __future__ import annotations

from pathlib import Path

import trio

from p2p.farewell import Farewell
from p2p.order import MAX_HELD
from p2p.transport import Received
from tests.live_support import seat_live_table
from tests.ordersim import make_signer, transmit


async def test_s11_4_a_message_that_breaks_the_order_after_the_game_is_told_once_by_name(tmp_path: Path) -> None:
    stack, (ann, bo) = await seat_live_table(tmp_path, 2, person=False)
    async with stack:
        order = ann.orderer
        farewell = Farewell.begin(2, ann.me, trio.current_time(), up=[bo.me])
        for seq in (MAX_HELD + 5, MAX_HELD + 6):  # (far beyond anything bo sent: §7.2)
            inner = {"type": "note", "v": 1, "from": order.seats[bo.me], "game": order.game, "lamport": 1,
                     "seq": seq, "prev": bytes(32), "heads": order._heads()}
            forged = transmit(make_signer(bo.identity)(inner))
            ann._farewell_event(farewell, Received(bo.identity.peer_id, forged))
        told = [line for line in ann.lines if line.text.startswith("After the game ended")]
        assert len(told) == 1 and told[0].seat == bo.me, [line.text for line in ann.lines]
        assert told[0].text.startswith(f"After the game ended: {ann.names[bo.me]} sent more of their messages "
                                       "ahead of one still missing than a table keeps [§7.2]"), told[0].text
        assert told[0].text.endswith("Your log was closed before it and keeps nothing of it."), told[0].text
