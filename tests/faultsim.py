"""Faults for the in-memory table: links cut and restored, peers killed and resumed.

`FaultNetwork` is a `TableNetwork` whose peers keep what a live peer keeps on disk: the
records of their fairness log (delivered and side messages, interleaved as handled)
and a journal of everything they sent. A cut link drops every frame between two peers
until it is restored; a killed peer loses all memory (and whatever was in flight to
it) and comes back, when resumed, through `p2p.rejoin.restore` exactly as
`bandit-lan join --resume` does.
"""

from __future__ import annotations

from typing import Any

from engine import Prng, make_bot
from p2p.journal import JournalContents
from p2p.log import Header, LogContents
from p2p.order import MESSAGES as ORDER_MESSAGES
from p2p.rejoin import restore
from p2p.table import MESSAGES as TABLE_MESSAGES
from p2p.table import SeatDriver
from p2p.transport import link_schemas
from tests.ordersim import Envelope, make_signer
from tests.tablesim import TableNetwork

SCHEMAS = link_schemas(*ORDER_MESSAGES, *TABLE_MESSAGES)


class FaultNetwork(TableNetwork):
    def __init__(self, players: int, seed: int, **kwargs: Any) -> None:
        super().__init__(players, seed, **kwargs)
        self.cut: set[frozenset[int]] = set()
        self.dead: set[int] = set()
        self.journals: list[list[Envelope]] = [[] for _ in range(players)]
        self.seeds = [t.machine.secrets.seed for t in self.tables]  # type: ignore[union-attr]
        self.bot_names = kwargs.get("bots", ("normal",))
        self.resumes = 0

    # -- faults ------------------------------------------------------------------------

    def cut_link(self, a: int, b: int) -> None:
        self._links_change(lambda: self.cut.add(frozenset((a, b))))

    def restore_link(self, a: int, b: int) -> None:
        self._links_change(lambda: self.cut.discard(frozenset((a, b))))

    def kill(self, seat: int) -> None:
        """SIGKILL: the peer's memory is gone; its log records and journal remain."""
        self._links_change(lambda: self.dead.add(seat))
        self._queue = [item for item in self._queue if item[2] != seat]

    def links_down(self) -> bool:
        """Whether a link of the table is down: a live peer then makes no timer or stall
        claims (§11.3), whether it misses the link itself or another peer's acks report
        it (here known at once), since nobody is withholding anything."""
        return bool(self.dead or self.cut)

    def _links_change(self, change: Any) -> None:
        """Apply `change`; when every link is back, every live peer restarts its stall
        clock (§11.3)."""
        before = self.links_down()
        change()
        if before and not self.links_down():
            for seat, table in enumerate(self.tables):
                if seat not in self.dead:
                    table.machine.restart_stall_clock(self.now)

    def resume(self, seat: int) -> None:
        """Restart the peer from its log records and journal (§11.3)."""
        table, peer = self.tables[seat], self.peers[seat]
        sides = [e for side, e in table.records if side]
        messages = [e for side, e in table.records if not side]
        log = LogContents(Header(self.canonical, tuple(self.signatures), seat, "sim"))
        log.messages = [(e.body, e.sig) for e in messages]
        log.sides = [(e.body, e.sig) for e in sides]
        counts = [0, 0]
        for side, _ in table.records:
            log.sequence.append((side, counts[side]))
            counts[side] += 1
        journal = JournalContents(self.game, seat, self.seeds[seat], None, 0, [])  # type: ignore[arg-type]
        journal.sent = [(e.body, e.sig) for e in self.journals[seat]]
        back = restore(
            log=log, journal=journal, seats=peer.orderer.seats, rules=table.machine.rules, keys=self.keys,
            schemas=SCHEMAS, sign=make_signer(peer.identity), now=self.now,
        )
        names = self.bot_names * len(self.tables) if len(self.bot_names) == 1 else self.bot_names
        driver = SeatDriver(back.machine, make_bot(names[seat]), Prng.derive(self.resumes + 1000, seat))
        for step in back.steps:
            driver.observe(step)
        peer.orderer = back.orderer
        table.machine, table.driver = back.machine, driver
        table.log = []  # (delivered positions continue in the records)
        self._links_change(lambda: self.dead.discard(seat))
        self.resumes += 1
        self._emit(peer, table, back.unsent)
        self.broadcast(seat, peer.orderer.ack(self.now))
        self._drive(peer, table)

    # -- the network with faults -------------------------------------------------------

    def _post(self, src: int, dst: int, envelope: Envelope) -> None:
        if src in self.dead or dst in self.dead or frozenset((src, dst)) in self.cut:
            return
        super()._post(src, dst, envelope)

    def broadcast(self, src: int, envelope: Envelope) -> None:
        if src in self.dead:
            return
        if envelope.sender == self.peers[src].orderer.seats[src]:
            self.journals[src].append(envelope)  # written before it leaves, as live
        super().broadcast(src, envelope)

    def send(self, seat: int, payload: dict[str, Any]) -> Envelope | None:  # type: ignore[override]
        if seat in self.dead:
            return None
        return super().send(seat, payload)

    def running(self, seat: int) -> bool:
        return seat not in self.dead  # a dead peer's timers do not run

    def claims_timers(self, seat: int) -> bool:
        return self.running(seat) and not self.links_down()

    def _drive(self, peer: Any, table: Any) -> None:
        if peer.seat not in self.dead:
            super()._drive(peer, table)

    def play_on(self, limit: float = 600.0) -> None:
        """Go on playing (after `start`) until every peer finished or halted."""
        while self.now < limit and not self.finished():
            self.run_until(self.now + 0.05)
            for peer, table in zip(self.peers, self.tables):
                self._drive(peer, table)

    def finished(self) -> bool:
        return all(t.machine.finished or t.machine.halted for t in self.tables)
