"""Cheating peers, for tests only (never shipped: nothing in p2p/ or cli/ imports this).

Two harnesses:

* `CheatingTable`: the seeded in-memory table of `tests.tablesim` where one seat runs a
  `Cheat`: a set of hooks on what that seat's machine decides (`install`), on the
  payloads it sends (`content`), on every frame it puts on a link, one recipient at a
  time (`outgoing`: forks for equivocation, backdated stamps, replays) and on its turn to
  act (`act`). Every other seat follows the §11.2 policy exactly as the live peer does
  (`p2p.policy`): a message the order refuses is judged on receipt, an abort sends a
  ``leave`` and stops the seat, a machine violation stops it; every verdict is kept, and
  written to the seat's fairness log as a note.
* `CheatingPeer` (for `tests.live_support`): a live `TablePeer` over the real TLS mesh
  that, once the game is under way, puts on its links what no honest peer would: a
  forged signature, a frame over the size limit, garbage, a replay of another game.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from engine import TURN_PHASES, Phase, Snap
from p2p.deck import make_sealed_share, make_share
from p2p.deck.group import add, hash_to_point, mul, mul_base
from p2p.deck.sampling import random_scalar
from p2p.errors import ProtocolError
from p2p.identity import Identity, verify_signature
from p2p.log import FairnessLog, header_for
from p2p.order import MAX_STAMP, OrderError, message_hash
from p2p.peer import TablePeer
from p2p.roster import TableRules
from p2p.policy import Verdict, on_link_fault, on_order_error, on_refusal, on_violation
from p2p.signing import SIGNED_DOMAIN, SignedMessage, sign, signed_frame, signed_message
from p2p.table import Step, TableMachine
from p2p.wire import encode, encode_frame
from tests.ordersim import SimPeer, transmit
from tests.tablesim import TablePeer as SimTable
from tests.tablesim import TableNetwork
from tests.test_table_games import SMALL_DECK

Envelope = SignedMessage


# -- the in-memory table -------------------------------------------------------------


class Cheat:
    """What the cheating seat does differently. Every hook defaults to honesty."""

    name = "honest"
    table: dict[str, Any] = {}  # options of the table it is tried at (e.g. the honest seats' pace)

    def __init__(self) -> None:
        self.tried = False  # set once the cheat was actually committed

    def install(self, net: CheatingTable, seat: int) -> None:
        """Called once, before the game starts (to replace the seat's machine, say)."""

    def content(self, net: CheatingTable, payload: dict[str, Any]) -> dict[str, Any] | None:
        """A content payload about to be stamped and sent (None: do not send it)."""
        return payload

    def outgoing(self, net: CheatingTable, dst: int, envelope: Envelope) -> list[Envelope]:
        """What to put on the link to `dst` instead of `envelope` (content, side or ack)."""
        return [envelope]

    def act(self, net: CheatingTable, seat: int) -> None:
        """Called whenever the cheating seat's bot may act."""


class CheatingTable(TableNetwork):
    """A table where seat `cheater` runs `cheat` and every other seat is honest."""

    def __init__(self, players: int, seed: int, cheat: Cheat, cheater: int, **kw: Any) -> None:
        super().__init__(players, seed, **kw)
        self.cheat = cheat
        self.cheater = cheater
        self.verdicts: list[list[Verdict]] = [[] for _ in range(players)]
        self.stopped: list[str | None] = [None] * players  # why a seat left the game (None: it plays on)
        self._link_of: dict[int, int] = {}  # id(frame in flight) -> the seat that put it on the link
        cheat.install(self, cheater)

    # the cheat's hooks ----------------------------------------------------------------

    def send(self, seat: int, payload: dict[str, Any]) -> Envelope:
        if seat == self.cheater:
            changed = self.cheat.content(self, payload)
            if changed is None:
                return None  # type: ignore[return-value]
            payload = changed
        return super().send(seat, payload)

    def _post(self, src: int, dst: int, envelope: Envelope) -> None:
        if self.stopped[src] is not None:
            return
        frames = self.cheat.outgoing(self, dst, envelope) if src == self.cheater else [envelope]
        for frame in frames:
            self._link_of[id(frame)] = src
            super()._post(src, dst, frame)

    def inject(self, dst: int, envelope: Envelope) -> None:
        """Put a frame of the cheater's making on its link to `dst` (no orderer involved)."""
        self._link_of[id(envelope)] = self.cheater
        super()._post(self.cheater, dst, envelope)

    def resign(self, inner: dict[str, Any]) -> Envelope:
        """`inner` (with the cheater's ``from``) signed by the cheater."""
        return signed_message(self.peers[self.cheater].identity, inner)

    # the honest seats' policy (§11.2), as `p2p.peer.TablePeer` applies it ------------------

    def _arrive(self, dst: int, envelope: Envelope) -> None:
        if self.stopped[dst] is not None:
            return
        peer = self.peers[dst]
        link = self._link_of.get(id(envelope))
        key = self.keys.get(envelope.sender)
        if key is None or not verify_signature(key, envelope.sig, SIGNED_DOMAIN + envelope.body):
            fault = ProtocolError("§4.5", f"bad signature on a {envelope.inner.get('type')!r} message")
            self._judge(dst, on_link_fault(fault, link), tell_others=True)  # what the transport does (§4.5)
            return
        try:
            peer.orderer.receive(transmit(envelope), self.now, relayed=self.relayed(envelope))
            self._ack_if_due(peer)  # (first, as a live peer does)
            self.on_deliveries(peer)
        except OrderError as error:
            peer.errors.append(error)
            for evidence in error.evidence:  # shown to the others, as a live peer does
                self.broadcast(dst, evidence)
            seat_of = peer.orderer.seats.index
            signer = seat_of(error.peer) if error.peer in peer.orderer.seats else None
            self._judge(dst, on_order_error(error, signer, link), tell_others=True)
        if self.stopped[dst] is None and peer.orderer.ack_due():
            self.broadcast(dst, peer.orderer.ack(self.now))

    def _judge(self, seat: int, verdict: Verdict, *, tell_others: bool = False) -> None:
        self.verdicts[seat].append(verdict)
        if not verdict.aborts or self.stopped[seat] is not None:
            return
        if tell_others and seat != self.cheater:
            names = [m.name for m in self.roster.members]
            super().send(seat, {"type": "leave", "v": 1, "reason": verdict.leave_reason(names)})
        self.stopped[seat] = f"{verdict.section}: {verdict.reason}"

    def _emit(self, peer: SimPeer, table: SimTable, step: Step) -> None:
        if self.stopped[peer.seat] is not None:
            return
        super()._emit(peer, table, step)
        for refused in step.refused:
            if refused.seat != peer.seat:
                self._judge(peer.seat, on_refusal(refused))
        if step.violation is not None and peer.seat != self.cheater:
            self._judge(peer.seat, on_violation(step.violation))

    def on_deliveries(self, peer: SimPeer) -> None:
        if self.stopped[peer.seat] is None:
            super().on_deliveries(peer)

    def _drive(self, peer: SimPeer, table: SimTable) -> None:
        if self.stopped[peer.seat] is not None:
            return
        if peer.seat == self.cheater:
            self.cheat.act(self, peer.seat)
        super()._drive(peer, table)

    def running(self, seat: int) -> bool:
        return self.stopped[seat] is None  # a seat that left the game runs no timers

    # running and judging ----------------------------------------------------------------

    @property
    def honest(self) -> list[int]:
        return [i for i in range(len(self.peers)) if i != self.cheater]

    def over_for(self, seat: int) -> bool:
        m = self.tables[seat].machine
        return m.finished or m.halted is not None or self.stopped[seat] is not None

    def run(self, limit: float = 36000.0) -> None:
        self.start()
        while self.now < limit and not all(self.over_for(i) for i in self.honest):
            self.run_until(self.now + 1.0)
            for peer, table in zip(self.peers, self.tables):
                self._drive(peer, table)

    def write_logs(self, folder: Path) -> list[Path]:
        """Each honest seat's fairness log as a live peer writes it, its notes included."""
        folder.mkdir(parents=True, exist_ok=True)
        names = [m.name for m in self.roster.members]
        paths = []
        for seat, table in enumerate(self.tables):
            path = folder / f"seat{seat}.bandit-log"
            log = FairnessLog.create(path, header_for(self.canonical, self.signatures, seat), self.peers[seat].identity)
            for side in table.sides:
                log.append_side(side)
            for d in table.log:
                log.append(d.envelope)
            for error in self.peers[seat].errors:
                if error.evidence:
                    log.evidence(error.section, error.peer, error.evidence)
            for verdict in self.verdicts[seat]:
                culprit = self.peers[verdict.seat].orderer.seats[verdict.seat] if verdict.seat is not None else None
                log.note(verdict.note(names), peer=culprit, section=verdict.section)
            log.close("the game ended" if table.machine.finished else self.stopped[seat] or "stopped")
            paths.append(path)
        return paths

    def replace_machine(self, seat: int, cls: type[TableMachine], **extra: Any) -> TableMachine:
        """Give `seat` a machine of class `cls` (a cheating subclass), same game and secrets."""
        old = self.tables[seat].machine
        machine = cls(game_id=old.context.game_id, seats=old.seats, rules=old.rules, me=seat, secrets=old.secrets)
        for name, value in extra.items():
            setattr(machine, name, value)
        self.tables[seat].machine = machine
        self.tables[seat].driver.machine = machine
        return machine


def game_under_way(machine: TableMachine) -> bool:
    return machine.round_number >= 1 and machine.playing and machine.engine.phase in TURN_PHASES


# -- cheats of the table (§8, §9) and of the rules (R1-R10) -----------------------------


class OutOfTurn(Cheat):
    """R5: draws while another seat's turn is being played."""

    name = "out-of-turn intent"
    # the turn's player takes its time (as people do), so the draw is judged during that
    # turn (R5) and not after it (a stale turn, §9.5), whatever the seeded latencies
    table = {"act_delay": 0.3}

    def act(self, net: CheatingTable, seat: int) -> None:
        m = net.tables[seat].machine
        if not self.tried and game_under_way(m) and m.engine.turn_seat not in (None, seat) and not m.engine.needs:
            self.tried = True
            net.send(seat, {"type": "draw", "v": 1, "round": m.round_number, "turn": m.engine.turn})


class IllegalAction(Cheat):
    """R3: on its own turn, before drawing, uses a power it does not have."""

    name = "illegal action"

    def act(self, net: CheatingTable, seat: int) -> None:
        m = net.tables[seat].machine
        e = m.engine
        if not self.tried and game_under_way(m) and e.turn_seat == seat and e.phase is Phase.START and not e.needs:
            self.tried = True
            other = (seat + 1) % len(m.seats)
            net.send(seat, {"type": "swap", "v": 1, "round": m.round_number, "turn": e.turn, "own_slot": 0,
                            "owner": other, "slot": 0})


class BlindSnap(Cheat):
    """§9.5: snaps a card turned up by a reveal without naming the shares that showed it
    (as a claim made before seeing the card would), each such card once, until one of its
    snaps is judged: one that another snap covers first is only a race lost (R6)."""

    name = "snap on a card it had not seen"

    def __init__(self) -> None:
        super().__init__()
        self._tops: set[int] = set()

    def act(self, net: CheatingTable, seat: int) -> None:
        m = net.tables[seat].machine
        view = m.engine.view(seat)
        shown = m._top_visibility[0] == "reveal"  # (one a message showed is seen by whoever follows it)
        if (shown and m.playing and view.can_snap and view.top is not None and view.top_face is not None
                and view.top not in self._tops and not self._judged(net, seat)):
            self.tried = True
            self._tops.add(view.top)
            payload = m.submit(Snap(seat, view.top, seat, 0))
            payload["seen"] = []
            net.send(seat, payload)

    @staticmethod
    def _judged(net: CheatingTable, seat: int) -> bool:
        return any(r.seat == seat and r.section == "§9.5" for step in net.tables[net.honest[0]].steps for r in step.refused)


class WrongShareMachine(TableMachine):
    """Publishes another card's decryption share in place of one it owes."""

    cheat: Cheat

    def _flush_shares(self, step: Step) -> None:
        if self._share_items and not self.cheat.tried and len(self._share_items) > 1:
            self.cheat.tried = True
            first, second = self._share_items[0], self._share_items[1]
            self._share_items[0] = dict(first, share=second["share"])
        super()._flush_shares(step)


class WrongShare(Cheat):
    """§8.5: a decryption share that is not its share of that card (its proof fails)."""

    name = "wrong decryption share"

    def install(self, net: CheatingTable, seat: int) -> None:
        net.replace_machine(seat, WrongShareMachine, cheat=self)


LONG_SMALL = TableRules(target=100, skills_text=SMALL_DECK)


class SealedShareMachine(TableMachine):
    """Where it owes its share sealed to a second viewer of a card (§8.5), either seals
    garbage (`leak=False`), publishes the plain share, which would put every share of
    that card in the log (`leak=True`), or (`accomplice=True`) seals it, with a true
    proof, to the third seat instead of the reveal's recipient, to show that seat the card."""

    cheat: Cheat
    leak: bool
    accomplice: bool = False

    def _flush_shares(self, step: Step) -> None:
        if self._sealed_items and not self.cheat.tried:
            self.cheat.tried = True
            item = self._sealed_items.pop(0)
            if self.leak or self.accomplice:
                assert self._keys is not None and self._round is not None and self.me is not None
                deck = next(d for d, p in self._round.location.values() if d.chain == item["chain"] and p == item["position"])
            if self.leak:
                share = make_share(self._keys, deck, item["position"], os.urandom)
                self._share_items.append({"need": item["need"], **share.to_wire()})
            elif self.accomplice:
                audience = self._unsigned[item["need"]].collect.audience
                other = next(p for i, p in enumerate(self.seats) if i != self.me and p != audience)
                sealed = make_sealed_share(self._keys, deck, item["position"], other, os.urandom)
                self._sealed_items.insert(0, {"need": item["need"], **sealed.to_wire()})
            else:
                self._sealed_items.insert(0, dict(item, v=item["u"]))
        super()._flush_shares(step)


class WrongSealedShare(Cheat):
    """§8.5: a sealed share that does not hold its share of the card (its proof fails)."""

    name = "wrong sealed share"
    table = {"rules": LONG_SMALL}  # a longer game: a card shown to a second player comes up

    def install(self, net: CheatingTable, seat: int) -> None:
        net.replace_machine(seat, SealedShareMachine, cheat=self, leak=False)


class AccompliceSeal(Cheat):
    """§8.5: seals the share it owes a card's second viewer to another seat instead (a
    true seal, of its true share): that seat could read a card it was never shown."""

    name = "share sealed to another seat than the reveal's"
    table = {"rules": LONG_SMALL}

    def install(self, net: CheatingTable, seat: int) -> None:
        net.replace_machine(seat, SealedShareMachine, cheat=self, leak=False, accomplice=True)


class LeakedShare(Cheat):
    """§8.5: publishes in the clear the share it owes sealed, to show everybody a card
    only two players may see."""

    name = "share published instead of sealed"
    table = {"rules": LONG_SMALL}

    def install(self, net: CheatingTable, seat: int) -> None:
        net.replace_machine(seat, SealedShareMachine, cheat=self, leak=True)


class BadKeyProof(Cheat):
    """§8.3: publishes its key with a proof of knowledge that does not verify."""

    name = "bad proof"

    def content(self, net: CheatingTable, payload: dict[str, Any]) -> dict[str, Any] | None:
        if payload["type"] == "keys" and not self.tried:
            self.tried = True
            return dict(payload, s=payload["e"])
        return payload


class OpeningDoesNotOpen(Cheat):
    """§8.7: at the round's end, opens its shuffle step with a salt it did not commit to."""

    name = "shuffle commitment that does not open"

    def content(self, net: CheatingTable, payload: dict[str, Any]) -> dict[str, Any] | None:
        if payload["type"] == "opening" and not self.tried:
            self.tried = True
            steps = [dict(s) for s in payload["steps"]]
            steps[0]["salt"] = hashlib.sha256(steps[0]["salt"]).digest()
            return dict(payload, steps=steps)
        return payload


class LastOpeningMachine(TableMachine):
    """§8.7: honest until the game's last round is scored, then opens its shuffle step of
    that round with a salt it did not commit to (the result was provisional, §8.9)."""

    tried = False

    def _send_opening(self, rnd: Any, step: Step) -> None:
        super()._send_opening(rnd, step)
        if self.engine.over and step.send and step.send[-1]["type"] == "opening":
            opening = step.send[-1]
            steps = [dict(s) for s in opening["steps"]]
            steps[0]["salt"] = hashlib.sha256(steps[0]["salt"]).digest()
            step.send[-1] = dict(opening, steps=steps)
            self.tried = True


class ForgingShuffler(TableMachine):
    """Shuffles honestly, then tampers with one position of its output deck (chain 0 of
    round 1). As the last seat to shuffle it chooses final positions."""

    cheat: ForgedCard

    def catch_up(self) -> Step:
        step = super().catch_up()
        deal = self._round.chains[0].chain_id if self._round is not None else None
        payload = next((p for p in step.send if p["type"] == "shuffle" and p["chain"] == deal), None)
        if payload is None or self.cheat.tried:
            return step
        self.cheat.tried = True
        self._forge(payload)
        return step

    def _forge(self, payload: dict[str, Any]) -> None:
        deck = bytearray(payload["deck"])
        n = len(self.seats)
        assert self._joint is not None and self.secrets is not None
        cheat_source = self.secrets.stream("cheat")
        y = self._joint.point

        def encrypt(point: bytes) -> bytes:
            r = random_scalar(cheat_source)
            return mul_base(r) + add(point, mul(r, y))

        def cell(j: int) -> tuple[bytes, bytes]:
            return bytes(deck[64 * j : 64 * j + 32]), bytes(deck[64 * j + 32 : 64 * j + 64])

        kind = self.cheat.kind
        if kind in ("not-a-card public", "not-a-card private"):
            target = 4 * n if kind.endswith("public") else 2
            junk = hash_to_point(b"not a card", b"bandit-lan tests")
            deck[64 * target : 64 * target + 64] = encrypt(junk)
        elif kind == "duplicate":  # the first discard becomes a copy of seat 0's slot 2
            c1, c2 = cell(2)
            r = random_scalar(cheat_source)
            deck[64 * 4 * n : 64 * 4 * n + 64] = add(c1, mul_base(r)) + add(c2, mul(r, y))
        elif kind == "replaced":  # its own slot 0 becomes card 0 of the deck, whatever it was
            target = 4 * self.cheat.seat
            deck[64 * target : 64 * target + 64] = encrypt(self.context.card_points[0])
        elif kind == "verbatim":  # position 1 an exact copy of position 0: caught on receipt (§8.4)
            deck[64:128] = deck[0:64]
        payload["deck"] = bytes(deck)


class ForgedCard(Cheat):
    """§8.4/§8.9: a shuffle step that is not a permutation of its input (its proof, made
    for the honest deck, cannot cover it)."""

    NAMES = {
        "not-a-card public": "non-card in its shuffle, placed to be shown to all",
        "not-a-card private": "non-card in its shuffle, placed to be shown to one",
        "duplicate": "duplicated card in its shuffle",
        "replaced": "replaced card in its shuffle",
        "verbatim": "ciphertext copied unchanged in its shuffle",
    }

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.name = self.NAMES[kind]
        self.seat = -1

    def install(self, net: CheatingTable, seat: int) -> None:
        self.seat = seat
        net.replace_machine(seat, ForgingShuffler, cheat=self)


class FalseChallenge(Cheat):
    """§9.10: challenges the round's shuffles although every reveal it saw was fine."""

    name = "false challenge"

    def act(self, net: CheatingTable, seat: int) -> None:
        m = net.tables[seat].machine
        if not self.tried and game_under_way(m):
            self.tried = True
            net.send(seat, {"type": "challenge", "v": 1, "round": m.round_number, "card": 0, "check": "not-a-card"})


class OtherDigest(Cheat):
    """§9.7: opens its shuffles with another engine state than the table's."""

    name = "different engine state at round end"

    def content(self, net: CheatingTable, payload: dict[str, Any]) -> dict[str, Any] | None:
        if payload["type"] == "opening" and not self.tried:
            self.tried = True
            return dict(payload, digest="0" * 64)
        return payload


class UnseenHeads(Cheat):
    """§7.5: its ``ready`` claims to have received a message of seat 0 that does not exist
    (its own order signs it, so everything after it follows consistently)."""

    name = "claims to have seen what it had not"

    def __init__(self) -> None:
        super().__init__()
        self.armed = False

    def install(self, net: CheatingTable, seat: int) -> None:
        orderer = net.peers[seat].orderer
        true_heads = orderer._heads

        def heads(*, vouched: bool = False) -> list[list[Any]]:
            out = true_heads(vouched=vouched)
            if self.armed and vouched:  # (in content)
                self.armed = False
                out[0] = [out[0][0] + 1000, hashlib.sha256(b"nothing").digest()]
            return out

        orderer._heads = heads  # type: ignore[method-assign]

    def content(self, net: CheatingTable, payload: dict[str, Any]) -> dict[str, Any] | None:
        if payload["type"] == "ready" and not self.tried:
            self.tried = self.armed = True
        return payload


class WithholdingMachine(TableMachine):
    """Never publishes its shares of one reveal (need `withheld`)."""

    cheat: WithheldShare

    def _flush_shares(self, step: Step) -> None:
        kept = [item for item in self._share_items if item["need"] != self.cheat.need]
        if len(kept) != len(self._share_items):
            self.cheat.tried = True
        self._share_items = kept
        super()._flush_shares(step)


class WithheldShare(Cheat):
    """§9.4: sends everything else, but never its share of one reveal."""

    name = "withheld share"

    def __init__(self, need: int = 0) -> None:
        super().__init__()
        self.need = need

    def install(self, net: CheatingTable, seat: int) -> None:
        net.replace_machine(seat, WithholdingMachine, cheat=self)


class Withhold(Cheat):
    """§9.11: never sends its first message of one type (its key, its beacon reveal, its
    shuffle step, its opening), and nothing of that type after it."""

    def __init__(self, kind: str, words: str) -> None:
        super().__init__()
        self.kind = kind
        self.name = f"withheld {words}"

    def content(self, net: CheatingTable, payload: dict[str, Any]) -> dict[str, Any] | None:
        if payload["type"] == self.kind:
            self.tried = True
            return None
        return payload


# -- cheats of the order (§7) ----------------------------------------------------------


class Equivocation(Cheat):
    """§7.2: from its first ``ready`` on, shows one group of peers another chain: there
    the ``ready`` is a ``leave``, and every later message and ack is re-signed to follow."""

    name = "equivocation"

    def __init__(self, other_side: set[int]) -> None:
        super().__init__()
        self.other_side = other_side
        self.fork_seq: int | None = None
        self.forked: dict[bytes, Envelope] = {}  # hash of the true message -> its twin
        self.twin_hash: dict[bytes, bytes] = {}

    def outgoing(self, net: CheatingTable, dst: int, envelope: Envelope) -> list[Envelope]:
        inner = envelope.inner
        if dst not in self.other_side or "sseq" in inner:
            return [envelope]
        if inner["type"] == "ack":
            last_hash = bytes(inner["last"][1])
            if last_hash not in self.twin_hash:
                return [envelope]
            return [net.resign(dict(inner, last=[inner["last"][0], self.twin_hash[last_hash]]))]
        if self.fork_seq is None and inner["type"] == "ready":
            self.fork_seq = int(inner["seq"])
        if self.fork_seq is None or int(inner["seq"]) < self.fork_seq:
            return [envelope]
        true_hash = message_hash(envelope.body)
        if true_hash not in self.forked:
            if int(inner["seq"]) == self.fork_seq:
                twin = {k: v for k, v in inner.items() if k not in ("round", "type")}
                twin.update(type="leave", reason="left the table")
            else:
                twin = dict(inner, prev=self.twin_hash[bytes(inner["prev"])])
            self.tried = True
            forked = net.resign(twin)
            self.forked[true_hash] = forked
            self.twin_hash[true_hash] = message_hash(forked.body)
        return [self.forked[true_hash]]


class SideEquivocation(Cheat):
    """§7.2 on the side chain (§7.8): its first ``shares`` message with several items goes
    to the seats in `other_side` with its items in another order (valid shares, another
    body under the same sseq); every later side message follows that fork."""

    name = "equivocation in the side chain"

    def __init__(self, other_side: set[int]) -> None:
        super().__init__()
        self.other_side = other_side
        self.twins: dict[bytes, Envelope] = {}
        self.twin_hash: dict[bytes, bytes] = {}

    def outgoing(self, net: CheatingTable, dst: int, envelope: Envelope) -> list[Envelope]:
        inner = envelope.inner
        if dst not in self.other_side or "sseq" not in inner:
            return [envelope]
        true_hash = message_hash(envelope.body)
        if true_hash not in self.twins:
            if bytes(inner["sprev"]) in self.twin_hash:
                twin = dict(inner, sprev=self.twin_hash[bytes(inner["sprev"])])
            elif not self.tried and len(inner["items"]) > 1:
                self.tried = True
                twin = dict(inner, items=list(reversed(inner["items"])))
            else:
                return [envelope]
            self.twins[true_hash] = net.resign(twin)
            self.twin_hash[true_hash] = message_hash(self.twins[true_hash].body)
        return [self.twins[true_hash]]


class BackdatedStamp(Cheat):
    """§7.3: stamps its ``ready`` no higher than its previous message."""

    name = "backdated Lamport stamp"

    def __init__(self) -> None:
        super().__init__()
        self.backdated: dict[bytes, Envelope] = {}
        self.last_stamp = 0

    def outgoing(self, net: CheatingTable, dst: int, envelope: Envelope) -> list[Envelope]:
        inner = envelope.inner
        if "sseq" in inner or inner["type"] == "ack":
            return [envelope]
        key = message_hash(envelope.body)
        if key not in self.backdated:
            if inner["type"] == "ready" and not self.tried:
                self.tried = True
                self.backdated[key] = net.resign(dict(inner, lamport=self.last_stamp))
            else:
                self.last_stamp = max(self.last_stamp, int(inner["lamport"]))
                return [envelope]
        return [self.backdated[key]]


class InflatedStamp(Cheat):
    """§7.3: stamps its ``ready`` at the top of the range, far above what it names (an
    honest clock that took it would stamp past 2^62 and be refused in an honest name)."""

    name = "stamp above what it names"

    def __init__(self) -> None:
        super().__init__()
        self.inflated: dict[bytes, Envelope] = {}

    def outgoing(self, net: CheatingTable, dst: int, envelope: Envelope) -> list[Envelope]:
        inner = envelope.inner
        if "sseq" in inner or inner["type"] != "ready":
            return [envelope]
        key = message_hash(envelope.body)
        if key not in self.inflated:
            self.tried = True
            self.inflated[key] = net.resign(dict(inner, lamport=MAX_STAMP - 1))
        return [self.inflated[key]]


class ForeignReplay(Cheat):
    """§7.1: once play is under way, replays to everybody a message it signed at another
    table (same seats, another game id)."""

    name = "replayed message (another game)"

    def act(self, net: CheatingTable, seat: int) -> None:
        m = net.tables[seat].machine
        if self.tried or not game_under_way(m):
            return
        self.tried = True
        old = next(d.envelope.inner for d in net.tables[seat].log if d.seat == seat)  # its own keys, say
        replay = net.resign(dict(old, game=hashlib.sha256(b"an earlier game").digest()))
        for dst in net.honest:
            net.inject(dst, replay)


class RoundReplay(Cheat):
    """§9.3: in round 2, sends its round-1 beacon reveal again (re-stamped: a new message
    with old content)."""

    name = "replayed message (earlier round)"

    def __init__(self) -> None:
        super().__init__()
        self.kept: dict[str, Any] | None = None
        # a game to 20 can end after one round; this cheat needs a second
        self.table = {"rules": LONG_SMALL}

    def content(self, net: CheatingTable, payload: dict[str, Any]) -> dict[str, Any] | None:
        if payload["type"] == "beacon.reveal" and payload["round"] == 1:
            self.kept = dict(payload)
        return payload

    def act(self, net: CheatingTable, seat: int) -> None:
        m = net.tables[seat].machine
        if not self.tried and self.kept is not None and m.round_number == 2 and game_under_way(m):
            self.tried = True
            net.send(seat, dict(self.kept))


# -- the live peer --------------------------------------------------------------------


@dataclass
class LiveCheat:
    """A frame the live cheating seat sends to every other seat once play is under way
    (`frame(cheater, recipient's peer id)` makes it, raw bytes of a §4.2 frame)."""

    name: str
    frame: Callable[[CheatingPeer, bytes], bytes]
    tried: bool = False
    sent_to: list[bytes] = field(default_factory=list)
    later: int = 0  # inputs the cheater handles after its frame to one seat before it sends it to the others


class CheatingPeer(TablePeer):
    """A live seat (real TLS links) that plays honestly until `cheat` fires once."""

    cheat: LiveCheat | None = None

    def _after_processing(self, *, from_timers: bool = False, changed: bool = True) -> None:
        super()._after_processing(from_timers=from_timers, changed=changed)
        cheat = self.cheat
        if cheat is None or self._done.is_set() or not game_under_way(self.machine):
            return
        if not cheat.tried:
            cheat.tried = True
            first = list(self.mesh.peers())[:1] if cheat.later else None
            self._cheat_to(first)
        elif cheat.later and cheat.sent_to:
            cheat.later -= 1
            if not cheat.later:
                self._cheat_to(None)

    def _cheat_to(self, peers: list[bytes] | None) -> None:
        """Send the cheat's frame to `peers` (None: every linked seat it was not sent to)."""
        assert self.cheat is not None
        for peer_id in peers if peers is not None else self.mesh.peers():
            if peer_id not in self.cheat.sent_to:
                self.mesh._queue(peer_id, self.cheat.frame(self, peer_id))
                self.cheat.sent_to.append(peer_id)

    def own_message(self) -> SignedMessage:
        """A message this seat signed and sent in this game (its keys)."""
        return next(iter(self.orderer._sent))


def forged_signature(peer: CheatingPeer, dst: bytes) -> bytes:
    """§4.5: its own message, signed with a signature that is not its own."""
    mine = peer.own_message()
    return encode_frame(signed_frame(mine.body, bytes(64)))


def impersonation(peer: CheatingPeer, dst: bytes) -> bytes:
    """§4.5: a message that claims another seat as its author, signed by the cheater."""
    victim = next(p for p in peer.machine.seats if p not in (peer.identity.peer_id, dst))
    inner = dict(peer.own_message().inner, **{"from": victim})
    body = encode(inner)
    return encode_frame(signed_frame(body, peer.identity.sign(b"bandit-lan/v1/signed\x00" + body)))


def oversized_frame(peer: CheatingPeer, dst: bytes) -> bytes:
    """§4.2: a frame that announces 2 MiB (the limit is 1 MiB)."""
    return (2 << 20).to_bytes(4, "big") + bytes(64)


def malformed_header(peer: CheatingPeer, dst: bytes) -> bytes:
    """§7.1: its own message, correctly signed, whose `lamport` is a string."""
    inner = dict(peer.own_message().inner)
    inner["lamport"] = str(inner["lamport"])
    body, sig = sign(peer.identity, inner)
    return encode_frame(signed_frame(body, sig))


def garbled_frame(peer: CheatingPeer, dst: bytes) -> bytes:
    """§4.3: a frame whose payload is not msgpack at all."""
    payload = b"\xc1" * 16  # 0xc1 is never used by msgpack
    return len(payload).to_bytes(4, "big") + payload


def foreign_replay(identities: Sequence[Identity]) -> Callable[[CheatingPeer, bytes], bytes]:
    """§7.1: replays, over its own link, a message that a third seat (one of `identities`,
    neither the cheater nor the recipient) genuinely signed at another table."""

    def frame(peer: CheatingPeer, dst: bytes) -> bytes:
        victim = next(i for i in identities if i.peer_id not in (peer.identity.peer_id, dst))
        inner = dict(peer.own_message().inner, **{"from": victim.peer_id, "game": hashlib.sha256(b"old game").digest()})
        body, sig = sign(victim, inner)
        return encode_frame(signed_frame(body, sig))

    return frame


def _own_envelope(peer: CheatingPeer, inner: dict[str, Any]) -> Envelope:
    body, sig = sign(peer.identity, inner)
    return Envelope(peer.identity.peer_id, inner, body, sig)


def equivocation() -> Callable[[CheatingPeer, bytes], bytes]:
    """§7.2: its next message, and, under the same seq, a ``leave`` for every seat but one."""
    made: dict[str, Any] = {}

    def frame(peer: CheatingPeer, dst: bytes) -> bytes:
        if not made:
            m = peer.machine
            true = peer.orderer.send({"type": "skip-power", "v": 1, "round": m.round_number, "turn": m.engine.turn},
                                     trio.current_time())
            twin = {k: v for k, v in true.inner.items() if k not in ("round", "turn", "type")}
            made.update(true=true, twin=_own_envelope(peer, dict(twin, type="leave", reason="left the table")), first=dst)
        chosen = made["true"] if dst == made["first"] else made["twin"]  # the first seat alone gets the true one
        return encode_frame(signed_frame(chosen.body, chosen.sig))

    return frame


def forged_ack_signature() -> Callable[[CheatingPeer, bytes], bytes]:
    """§4.5 (with §7.3): over its own link, an ack whose signature is not its own, which
    the receiver may take on the link's word (§4.5); then its next message stamped below
    that ack's promise, so the ack becomes evidence and its signature is checked."""
    made: list[bytes] = []

    def frame(peer: CheatingPeer, dst: bytes) -> bytes:
        if not made:
            m = peer.machine
            ack = peer.orderer.ack(trio.current_time())
            promise = dict(ack.inner, lamport=ack.inner["lamport"] + 10)
            body = encode(promise)
            true = peer.orderer.send({"type": "skip-power", "v": 1, "round": m.round_number, "turn": m.engine.turn},
                                     trio.current_time())
            made.append(encode_frame(signed_frame(body, bytes(64))) + encode_frame(signed_frame(true.body, true.sig)))
        return made[0]

    return frame


def backdated_stamp() -> Callable[[CheatingPeer, bytes], bytes]:
    """§7.3: its next message, stamped no higher than the one before it."""
    made: list[Envelope] = []

    def frame(peer: CheatingPeer, dst: bytes) -> bytes:
        if not made:
            m = peer.machine
            true = peer.orderer.send({"type": "skip-power", "v": 1, "round": m.round_number, "turn": m.engine.turn},
                                     trio.current_time())
            before = peer.orderer._sent[-2].inner["lamport"]
            made.append(_own_envelope(peer, dict(true.inner, lamport=before)))
        return encode_frame(signed_frame(made[0].body, made[0].sig))

    return frame
