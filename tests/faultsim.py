"""Faults for the in-memory table: links cut and restored, peers killed and resumed.

`FaultNetwork` is a `TableNetwork` whose peers keep what a live peer keeps on disk: the
records of their fairness log (delivered and side messages, interleaved as handled)
and a journal of everything they sent. A cut link drops every frame between two peers
until it is restored; a killed peer loses all memory (and whatever was in flight to
it) and comes back, when resumed, through `p2p.rejoin.restore` exactly as
`bandit-lan join --resume` does. A peer whose game ended stays for the others as
`p2p.farewell` says (§11.4), then leaves: from then on it neither sends nor hears
anything, as a live peer that closed its links (`see_off=False`: it leaves at once).
Nothing it sends while it stays is dropped at random: the farewell relies on what TLS
gives a live peer, that a link loses frames only by going down (which cuts and kills
model); the random drops exercise retransmission during the game.
"""

from __future__ import annotations

from typing import Any

from engine import Prng, make_bot
from p2p.farewell import SEE_OFF_LIMIT, Farewell
from p2p.journal import JournalContents
from p2p.log import Header, LogContents
from p2p.order import MESSAGES as ORDER_MESSAGES
from p2p.rejoin import restore
from p2p.table import MESSAGES as TABLE_MESSAGES
from p2p.table import Intake, SeatDriver
from p2p.transport import link_schemas
from tests.ordersim import Envelope, make_signer
from tests.tablesim import TableNetwork

SCHEMAS = link_schemas(*ORDER_MESSAGES, *TABLE_MESSAGES)


class FaultNetwork(TableNetwork):
    def __init__(self, players: int, seed: int, *, see_off: bool = True, **kwargs: Any) -> None:
        super().__init__(players, seed, **kwargs)
        self.cut: set[frozenset[int]] = set()
        self.dead: set[int] = set()
        self.see_off = see_off
        self.farewells: dict[int, Farewell] = {}  # seat -> whom it stays for, its game over
        self.gone: set[int] = set()  # seats that ended their game and left
        self.journals: list[list[Envelope]] = [[] for _ in range(players)]
        self.seeds = [t.machine.secrets.seed for t in self.tables]  # type: ignore[union-attr]
        self.bot_names = kwargs.get("bots", ("normal",))
        self.resumes = 0

    # -- faults ------------------------------------------------------------------------

    def cut_link(self, a: int, b: int) -> None:
        self._links_change(lambda: self.cut.add(frozenset((a, b))))
        self._farewell_link(a, b, up=False)

    def restore_link(self, a: int, b: int) -> None:
        self._links_change(lambda: self.cut.discard(frozenset((a, b))))
        self._farewell_link(a, b, up=True)

    def kill(self, seat: int) -> None:
        """SIGKILL: the peer's memory is gone; its log records and journal remain."""
        self._links_change(lambda: self.dead.add(seat))
        self._queue = [item for item in self._queue if item[2] != seat]
        self.farewells.pop(seat, None)
        for other in range(len(self.tables)):
            self._farewell_link(other, seat, up=False)

    def depart(self, seat: int) -> None:
        """The seat's process goes without waiting for its game to end (it left, §9.8): it
        says goodbye on every link and closes them."""
        self._links_change(lambda: self.gone.add(seat))
        self.farewells.pop(seat, None)
        for other in range(len(self.tables)):
            self._farewell_link(other, seat, up=False, clean=True)

    # -- leaving after the game (§11.4) ----------------------------------------------------

    def _farewell_link(self, seat: int, other: int, *, up: bool, clean: bool = False) -> None:
        """A link of `seat` and `other` came up or went down: both farewells hear of it; a
        peer staying for the others sends an ack on a link that came back (as live)."""
        for a, b in ((seat, other), (other, seat)):
            farewell = self.farewells.get(a)
            if farewell is None:
                continue
            if up:
                farewell.link_up(b)
                self._post(a, b, self.peers[a].orderer.ack(self.now))
            else:
                farewell.link_down(b, clean=clean)

    def _linked(self, a: int, b: int) -> bool:
        return not ({a, b} & (self.dead | self.gone)) and frozenset((a, b)) not in self.cut

    def _farewells_due(self) -> None:
        """Begin the farewell of every peer whose game just ended; let go those that are done."""
        for seat, table in enumerate(self.tables):
            if seat in self.farewells or seat in self.gone or seat in self.dead:
                continue
            if table.machine.finished or table.machine.halted:
                up = [s for s in range(len(self.tables)) if s != seat and self._linked(seat, s)]
                limit = SEE_OFF_LIMIT if self.see_off else 0.0
                self.farewells[seat] = Farewell.begin(len(self.tables), seat, self.now, up=up, gone=self.gone,
                                                      limit=limit)
                if self.see_off:  # its promise and heads at the end, as live
                    self.broadcast(seat, self.peers[seat].orderer.ack(self.now))
        for seat, farewell in list(self.farewells.items()):
            if farewell.over(self.peers[seat].orderer.holds_ours, self.now):
                del self.farewells[seat]
                self.gone.add(seat)  # it says bye on every link and closes it
                for other in range(len(self.tables)):
                    self._farewell_link(seat, other, up=False, clean=True)

    def links_down(self) -> bool:
        """Whether a link of the table is down: a live peer then makes no timer or stall
        claims (§11.3), whether it misses the link itself or another peer's acks report
        it (here known at once), since nobody is withholding anything."""
        return bool(self.dead or self.cut or self.gone)

    def _links_change(self, change: Any) -> None:
        """Apply `change`; every peer's orderer learns which of its links are down, as live,
        and while a link is down, every live peer's stall clock stands (§11.3)."""
        before = self.links_down()
        change()
        for seat, peer in enumerate(self.peers):  # each peer's acks say which links it misses (§7.1)
            peer.orderer.set_away([s for s in range(len(self.peers)) if s != seat and not self._linked(seat, s)])
        if before != self.links_down():
            for seat, table in enumerate(self.tables):
                if seat not in self.dead:
                    clock = table.machine.clocks.resume if before else table.machine.clocks.pause
                    clock(self.now)

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
        back.machine.clocks.pause(self.now)  # (it comes back to a table with a link down: its own)
        table.log = []  # (delivered positions continue in the records)
        table.intake = Intake()  # (what the machine had not taken was lost with the process)
        self._links_change(lambda: self.dead.discard(seat))
        self.resumes += 1
        self._emit(peer, table, back.unsent)
        self.broadcast(seat, peer.orderer.ack(self.now))
        for other in range(len(self.tables)):
            if other != seat and self._linked(seat, other):
                self._farewell_link(other, seat, up=True)
        self._drive(peer, table)

    # -- the network with faults -------------------------------------------------------

    def _post(self, src: int, dst: int, envelope: Envelope) -> None:
        if not self._linked(src, dst):
            return
        super()._post(src, dst, envelope)

    def _lost(self, src: int) -> bool:
        return super()._lost(src) and src not in self.farewells  # (a staying peer's TLS links lose nothing)

    def _arrive(self, dst: int, envelope: Envelope) -> None:
        if dst in self.gone:
            return
        farewell = self.farewells.get(dst)
        if farewell is not None:
            farewell.heard(self.peers[dst].orderer.seats.index(envelope.sender))
        super()._arrive(dst, envelope)
        self._farewells_due()

    def _timers(self) -> None:
        super()._timers()
        self._farewells_due()

    def deadlines(self) -> list[float]:
        return super().deadlines() + [f.until for f in self.farewells.values()]

    def broadcast(self, src: int, envelope: Envelope) -> None:
        if src in self.dead:
            return
        if envelope.sender == self.peers[src].orderer.seats[src]:
            self.journals[src].append(envelope)  # written before it leaves, as live
        super().broadcast(src, envelope)

    def send(self, seat: int, payload: dict[str, Any]) -> Envelope | None:
        if seat in self.dead:
            return None
        return super().send(seat, payload)

    def running(self, seat: int) -> bool:
        return seat not in self.dead and seat not in self.gone  # a dead or departed peer's timers do not run

    def claims_timers(self, seat: int) -> bool:
        return self.running(seat) and not self.links_down()

    def _drive(self, peer: Any, table: Any) -> None:
        if peer.seat not in self.dead:
            super()._drive(peer, table)

    def play_on(self, limit: float = 600.0) -> None:
        """Go on playing (after `start`) until every peer finished or halted."""
        self.play_until(self.finished, limit)

    def play_until(self, done: Any, limit: float = 600.0) -> None:
        """Go on playing (after `start`), in steps of 50 ms, until `done()`."""
        while self.now < limit and not done():
            self.run_until(self.now + 0.05)
            for peer, table in zip(self.peers, self.tables):
                self._drive(peer, table)

    def finished(self) -> bool:
        return all(t.machine.finished or t.machine.halted for t in self.tables)
