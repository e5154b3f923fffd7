"""Cheats timed around a reshuffle chain that runs while a reveal waits for its shares
(R7, §9.4): ordered messages wait behind the reveal, the chain's steps among them, and
intents wait in the FIFO until it completes, at a moment that differs from peer to peer.

- §9.11: the table must say it waits for the reveal's shares (not for the chain's next
  step, which cannot come before them), so a share withheld there is claimed and named.
- §9.5: a top card turned by an intent applied from the FIFO was turned by that intent's
  message at every peer, whatever message each peer took last, so honest peers judge a
  snap on it alike.
"""

from __future__ import annotations

from typing import Any

from engine import Phase, Snap
from p2p.order import is_side
from p2p.table import Step, TableMachine
from tests.malicious import Cheat, CheatingTable
from tests.test_table_games import SMALL
from tests.tablesim import arising

CHEATER = 2


class Withholder(TableMachine):
    """A machine that sends no share for any reveal from `armed_from` on."""

    armed_from: int | None = None

    def _flush_shares(self, step: Step) -> None:
        if self.armed_from is not None:
            self._share_items = [i for i in self._share_items if i["need"] < self.armed_from]
            self._sealed_items = [i for i in self._sealed_items if i["need"] < self.armed_from]
        super()._flush_shares(step)


class EmptiesThePile(Cheat):
    """Seat 2 snaps stale cards (a penalty card each, R6) until the draw pile will be empty
    when its turn starts: its next draw or penalty card reshuffles (R7)."""

    pending = False

    def drain(self, net: CheatingTable) -> None:
        m = net.tables[CHEATER].machine
        e = m.engine
        z = e.zones()
        if e.snapped_this_turn(CHEATER) or len(z.discard) < 2 or e.turn_seat is None or self.pending or e.needs:
            return
        before_me = e.turn_seat == (CHEATER - 1) % len(m.seats)
        if (before_me and e.phase is not Phase.START and len(z.draw) == 1) or len(z.draw) >= 3:
            mine = [s for s, c in enumerate(z.tableaux[CHEATER]) if c is not None]
            self.pending = True
            net.tables[CHEATER].driver.snaps_in_flight += 1
            net.send(CHEATER, {"type": "snap", "v": 1, "round": m.round_number, "top": z.discard[-2],
                               "owner": CHEATER, "slot": mine[0], "seen": []})

    def settled(self, net: CheatingTable) -> None:
        """Its last stale snap was applied: the bot may snap again."""
        e, driver = net.tables[CHEATER].machine.engine, net.tables[CHEATER].driver
        if self.pending and e.snapped_this_turn(CHEATER):
            self.pending = False
            driver.snaps_in_flight = max(0, driver.snaps_in_flight - 1)


class StaleSnapThenTake(EmptiesThePile):
    name = "share withheld for a reveal opened while a reshuffle chain runs"

    def install(self, net: CheatingTable, seat: int) -> None:
        net.replace_machine(seat, Withholder)

    def act(self, net: CheatingTable, seat: int) -> None:
        m = net.tables[seat].machine
        e = m.engine
        self.settled(net)
        if self.tried or not m.playing or m.round_number < 1 or e.needs:
            return
        if e.turn_seat != seat:
            self.drain(net)
            return
        z = e.zones()
        if e.phase is not Phase.START or z.draw or len(z.discard) < 2 or e.snapped_this_turn(seat):
            return
        slots = [s for s, c in enumerate(z.tableaux[seat]) if c is not None]
        hidden = [s for s in slots if not e.view(seat).is_public(z.tableaux[seat][s])]
        if not hidden:
            return
        self.tried = True
        driver = net.tables[seat].driver
        driver.acts_in_flight = driver.snaps_in_flight = 10**6  # the bot stays quiet from now on
        m.armed_from = m._needs_opened  # withhold every share from the next reveal on
        r = m.round_number
        net.send(seat, {"type": "snap", "v": 1, "round": r, "top": z.discard[-2], "owner": seat,
                        "slot": slots[0], "seen": []})
        net.send(seat, {"type": "take", "v": 1, "round": r, "turn": e.turn, "top": z.discard[-1], "slot": hidden[-1]})


class DelayedShares(CheatingTable):
    """Once `slow` is set, seat 0's shares reach seat 1 0.4 s late: an ordinary delay."""

    slow = False

    def _post(self, src: int, dst: int, envelope: Any) -> None:
        if self.slow and src == 0 and dst == 1 and is_side(envelope.inner):
            self.schedule(self.now + 0.4, lambda: CheatingTable._post(self, src, dst, envelope))
            return
        super()._post(src, dst, envelope)


class SnapOnQueuedTop(EmptiesThePile):
    name = "a snap on a card turned by an intent that waited behind a reveal"

    def __init__(self) -> None:
        super().__init__()
        self.phase = "setup"
        self.passing = False
        self.step: dict[str, Any] | None = None  # its last step of chain 1, held back
        self.claim_at = 0.0
        self.info: dict[str, Any] = {}

    def content(self, net: CheatingTable, payload: dict[str, Any]) -> dict[str, Any] | None:
        if not self.passing and self.phase == "await_step" and payload["type"] == "shuffle":
            self.step, self.phase = payload, "burst"
            net.schedule(net.now + 0.001, lambda: self.burst(net))
            return None
        return payload

    def outgoing(self, net: CheatingTable, dst: int, envelope: Any) -> list[Any]:
        inner = envelope.inner
        if inner.get("type") == "stalled" and inner.get("round") == 0 and dst == 0 and net.now < self.claim_at:
            net.schedule(self.claim_at, lambda: net.inject(0, envelope))  # to seat 0, 0.2 s late
            return []
        return [envelope]

    def burst(self, net: CheatingTable) -> None:
        r = net.tables[CHEATER].machine.round_number
        assert isinstance(net, DelayedShares)
        net.slow, self.claim_at = True, net.now + 0.2
        self.passing = True
        for payload in (
            {"type": "exchange", "v": 1, "round": r, "turn": self.info["turn"], "slot": self.info["P"]},  # R5 B
            self.step,  # chain 1 complete: the drawn card's reveal opens
            {"type": "snap", "v": 1, "round": r, "top": self.info["X"], "owner": CHEATER, "slot": self.info["Q"],
             "seen": []},
            {"type": "stalled", "v": 1, "round": 0, "what": "shares", "need": 0, "seats": [0]},  # another round
        ):
            net.send(CHEATER, payload)
        self.passing, self.tried, self.phase = False, True, "done"

    def act(self, net: CheatingTable, seat: int) -> None:
        m = net.tables[CHEATER].machine
        e = m.engine
        self.settled(net)
        if self.phase in ("await_step", "burst", "done") or not m.playing or m.round_number < 1 or e.needs:
            return
        z = e.zones()
        mine = z.tableaux[CHEATER]
        if not (e.turn_seat == CHEATER and e.phase is Phase.START):
            if self.phase == "drain" and e.turn_seat is not None:
                self.drain(net)
            return
        view = e.view(CHEATER)
        public = [s for s, c in enumerate(mine) if c is not None and view.is_public(c)]
        hidden = [s for s, c in enumerate(mine) if c is not None and not view.is_public(c)]
        driver = net.tables[CHEATER].driver
        if self.phase == "setup" or not public:
            if hidden:  # first a card everybody knows into its tableau (R5 C)
                driver.acts_in_flight += 1
                net.send(CHEATER, {"type": "take", "v": 1, "round": m.round_number, "turn": e.turn, "top": z.discard[-1],
                                   "slot": hidden[0]})
                self.phase = "drain"
            return
        others = [s for s, c in enumerate(mine) if c is not None and s != public[0]]
        if z.draw or len(z.discard) < 2 or not others:
            return
        driver.acts_in_flight = driver.snaps_in_flight = 10**6  # the bot stays quiet from now on
        self.info = {"turn": e.turn, "P": public[0], "X": mine[public[0]], "Q": others[0]}
        self.phase = "await_step"
        net.send(CHEATER, {"type": "draw", "v": 1, "round": m.round_number, "turn": e.turn})  # R7: reshuffle first


def verdicts_on_snap(net: CheatingTable, seat: int, top: int) -> list[tuple[str, int]]:
    """("applied" or "refused", position) of every snap of seat 2's on card `top`, at `seat`."""
    out = []
    for step in net.tables[seat].steps:
        out += [("applied", a.position) for a in step.applied
                if isinstance(a.event, Snap) and a.seat == CHEATER and a.event.top == top]
        out += [("refused", r.position) for r in step.refused
                if isinstance(r.intent, Snap) and r.seat == CHEATER and r.intent.top == top]
    return out


def test_s9_11_a_share_withheld_while_a_reshuffle_chain_runs_is_claimed_and_named() -> None:
    """Seat 2 empties the draw pile with stale snaps (a penalty card each, R6), then on its
    turn snaps stale once more (a penalty card from an empty pile: R7 reshuffles, chain 1
    starts) and at once takes the discard top into a hidden slot (a reveal to all of the
    card it gives up), whose share it never sends. The honest seats claim the share after
    their stall time and the game ends naming seat 2 (§9.4), within ten stall times."""
    def play(seed: int) -> CheatingTable:
        net = CheatingTable(3, seed, StaleSnapThenTake(), CHEATER, rules=SMALL)
        net.run(limit=600.0)
        return net

    net = arising(play, lambda net: net.cheat.tried, range(5, 17))  # (game 5 is the first that gets there)
    for seat in net.honest:
        m = net.tables[seat].machine
        assert m.halted is not None, f"seat {seat} still waits after {net.now:.0f} s: {m.awaited()}"
        assert m.halted.seat == CHEATER and m.halted.section == "§9.4"


def test_s9_5_honest_seats_judge_alike_a_snap_on_a_card_a_queued_intent_turned() -> None:
    """Seat 2 draws from an empty pile (R7: the drawn card's reveal waits for chain 1),
    holds back its own last step of the chain, then sends at once: an exchange that puts
    a card everybody knows on the discard pile (queued behind the reveal), the step (the
    reveal opens), a snap on that card, and a stall claim for another round (dropped).
    Seat 0's shares reach seat 1 0.4 s late, and the claim reaches seat 0 0.2 s late, so
    the two take the claim and the reveal's last share in opposite orders. Both credit the
    new top to the exchange, apply the snap, and neither blames the other."""
    def play(seed: int) -> DelayedShares:
        net = DelayedShares(3, seed, SnapOnQueuedTop(), CHEATER, rules=SMALL)
        net.run(limit=900.0)
        return net

    def arose(net: DelayedShares) -> bool:  # (in most games the exchange ends the game, and the snap is late)
        return net.cheat.tried and [kind for kind, _ in verdicts_on_snap(net, 0, net.cheat.info["X"])] == ["applied"]

    net = arising(play, arose, range(30, 90))
    card = net.cheat.info["X"]
    verdicts = {seat: [kind for kind, _ in verdicts_on_snap(net, seat, card)] for seat in net.honest}
    assert verdicts[0] == verdicts[1] == ["applied"], verdicts
    for seat in net.honest:
        m = net.tables[seat].machine
        assert m.halted is None or m.halted.seat not in net.honest, f"seat {seat} blames an honest seat: {m.halted}"
