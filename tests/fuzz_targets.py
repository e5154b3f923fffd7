"""Fuzz targets: every place where bytes from another machine (or a log file) enter.

A target takes one input (bytes) and feeds it down the same path a live peer or the
auditor would. It returns ACCEPTED or REJECTED; a rejection is the project's typed error
(`ProtocolError` and its subclasses, `OrderError`, `DeckError`, `LogError`, the table
machine's violation, a refused intent, a refused join...) and must leave the state as
it was. Anything else escapes: an exception of another type is a bug, and so is a broken
`InvariantBroken` promise (state changed on rejection, an accepted value that does not
round-trip).

Stateful targets (order, table, lobby) take a *case*: msgpack ``[point, [step, ...]]``,
where `point` picks a state saved during a real game or lobby (`tests.fuzz_corpus`) and
each step is a message sent to it. Bytes that are not a case are read as one raw message
at the point named by their first byte, so byte-level mutation is never wasted.

    target = make_target("order")
    for seed in target.seeds():
        target.run(seed)
"""

from __future__ import annotations

import enum
import os
import socket
import tempfile
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from zeroconf import ServiceInfo

from p2p.admission import join_transcript, joiner_proof
from p2p.agreement import compare
from p2p.audit import AuditResult, audit
from p2p.report import comparison_report, game_report
from p2p.deck import BeaconCommit, BeaconReveal, DeckError, KeyShare, SealedShare, Share, ShuffleOpening, ShuffleStep
from p2p.discovery import SERVICE_TYPE, ad_from_info
from p2p.errors import ProtocolError
from p2p.identity import Identity
from p2p.lobby import links_report
from p2p.log import LogError, read_log
from p2p.order import ACK_TYPE, Delivered, OrderError, is_side, message_hash
from p2p.roster import MAX_SEATS, MIN_SEATS, parse_canonical, sign_roster
from p2p.signing import SIGNED_DOMAIN, SignedMessage, open_signed, signed_frame
from p2p.table import TableMachine
from p2p.table.machine import Step
from p2p.wire import FrameDecoder, decode, decode_map, encode
from tests import fuzz_corpus as corpus
from tests.fuzz_mutate import Codec


class Verdict(enum.Enum):
    ACCEPTED = "accepted"
    REJECTED = "rejected"


ACCEPTED, REJECTED = Verdict.ACCEPTED, Verdict.REJECTED


class InvariantBroken(AssertionError):
    """A promise of the code under test did not hold (not merely an unexpected exception)."""


def require(condition: bool, what: str) -> None:
    if not condition:
        raise InvariantBroken(what)


@dataclass
class Target:
    """One fuzz target: its name, input layout, valid inputs and the function under test."""

    name: str
    about: str
    codec: Codec
    seeds: Callable[[], list[bytes]]
    run: Callable[[bytes], Verdict]


# -- cases for stateful targets -----------------------------------------------------------------

MAX_STEPS = 6


def case(point: int, *steps: bytes) -> bytes:
    return encode([point, list(steps)])


def read_case(data: bytes) -> tuple[int, list[Any]]:
    """(point, steps) of a case; raw bytes are one step at the point of their first byte."""
    try:
        value = decode(data)
    except ProtocolError:
        value = None
    if isinstance(value, list) and len(value) == 2 and type(value[0]) is int and isinstance(value[1], list):
        return value[0], value[1][:MAX_STEPS]
    return (data[0] if data else 0), [data[1:]]


# -- link: bytes from a TLS link up to a verified message (§4) -----------------------------------


def run_link(data: bytes) -> Verdict:
    """A byte stream from a pinned peer's link: frames (§4.2), strict msgpack (§4.3), the
    schema registry (§4.4) and, for ``signed`` frames, the envelope (§4.5)."""
    g = corpus.game()
    schemas = corpus.schemas()
    decoder = FrameDecoder(peer="fuzz")
    cut = zlib.crc32(data)
    pieces = [data] if cut % 3 == 0 else [data[i : i + 1 + cut % 97] for i in range(0, len(data), 1 + cut % 97)]
    try:
        for piece in pieces:
            decoder.feed(piece)
            for frame in decoder:
                require(isinstance(frame, dict) and isinstance(frame["type"], str), "a decoded frame is a map with a type")
                require(decode(encode(frame)) == frame, "a decoded frame re-encodes to itself")
                require(schemas.check(frame) is frame, "a checked frame is returned as is")
                if frame["type"] == "signed":
                    message = open_signed(frame, g.keys, schemas)
                    require(message.sender in g.keys and message.inner == decode_map(message.body), "a verified message is what was signed")
        decoder.close()
    except ProtocolError as exc:
        require(isinstance(exc.section, str) and exc.section.startswith("§"), "an error names its section")
        if decoder._error is not None:  # noqa: SLF001
            try:
                decoder.feed(b"")
            except ProtocolError as again:
                require(again is decoder._error, "a broken decoder raises the same error again")  # noqa: SLF001
            else:
                raise InvariantBroken("a decoder that saw bad input accepted more") from None
        return REJECTED
    return ACCEPTED


def link_seeds() -> list[bytes]:
    frames = corpus.link_frames()
    return frames + [b"".join(frames[:6]), frames[0][:-1]]


# -- envelopes: what a pinned peer may sign -------------------------------------------------------


@dataclass(frozen=True)
class Sealer:
    """Signs a message body as the peer it names (any seat may be the cheat); a body
    naming nobody is signed by seat 1, and refused as unpinned."""

    identities: Sequence[Identity]

    @cached_property
    def _by_id(self) -> dict[bytes, Identity]:
        return {i.peer_id: i for i in self.identities}

    def seal(self, body: bytes) -> dict[str, Any]:
        try:
            sender = decode_map(body).get("from")
        except ProtocolError:
            sender = None
        identity = self._by_id.get(sender) if isinstance(sender, bytes) else None
        signer = identity or self.identities[1]
        return signed_frame(body, signer.sign(SIGNED_DOMAIN + body))


def _body(step: Any) -> bytes:
    """A step of a message target: the body bytes (a map is encoded, as a peer would)."""
    if isinstance(step, bytes):
        return step
    try:
        return encode(step)
    except (TypeError, ValueError, OverflowError):
        return b""


def _open(step: Any, sealer: Sealer) -> SignedMessage:
    g = corpus.game()
    return open_signed(sealer.seal(_body(step)), g.keys, corpus.schemas())


# -- order: the agreed order (§7) ------------------------------------------------------------------


@dataclass
class OrderTarget:
    """Seat 0's `Orderer` at a saved point of the game, then signed messages from the
    others: each is taken or refused with an `OrderError` that changes nothing."""

    sealer: Sealer = field(default_factory=lambda: Sealer(corpus.game().identities))

    def run(self, data: bytes) -> Verdict:
        g = corpus.game()
        index, steps = read_case(data)
        point = g.order_points[index % len(g.order_points)]
        orderer = g.thaw_orderer(point.state)
        verdict = ACCEPTED
        for step in steps:
            try:
                envelope = _open(step, self.sealer)
            except ProtocolError:
                verdict = REJECTED  # the link is closed; the others play on
                continue
            if envelope.sender == orderer.seats[orderer.me]:
                continue  # our own messages never come back over a link
            before = g.freezer.freeze(orderer)
            try:
                orderer.receive(envelope, point.now)
            except OrderError as exc:
                require(exc.peer == envelope.sender, "an order error names the sender")
                require(g.freezer.freeze(orderer) == before, f"a refused message changed the orderer's state ({exc})")
                return REJECTED  # the game stops here
            list(orderer.side_deliveries())
            for delivered in orderer.deliveries():
                require(delivered.seat == orderer.seats.index(delivered.envelope.sender), "a delivery names its seat")
        return verdict

    def seeds(self) -> list[bytes]:
        g = corpus.game()
        out = [case(i, *p.next[:1]) for i, p in enumerate(g.order_points)]
        out += [case(i, *p.next) for i, p in enumerate(g.order_points) if len(p.next) > 1][::3]
        return out


# -- table: the replicated game (§8, §9) -------------------------------------------------------------


@dataclass
class OwnSides:
    """Seat 0's side chain from a saved point on: signs the side messages its machine asks
    for, as `Orderer.send_side` would (the machine notes which of its shares went out)."""

    sseq: int
    sprev: bytes

    def sign(self, payload: dict[str, Any], g: corpus.Game, sealer: Sealer) -> SignedMessage:
        inner = {**payload, "from": g.seats[0], "game": g.game_id, "sseq": self.sseq, "sprev": self.sprev}
        envelope = open_signed(sealer.seal(encode(inner)), g.keys, corpus.schemas())
        self.sseq, self.sprev = self.sseq + 1, message_hash(envelope.body)
        return envelope


@dataclass
class TableTarget:
    """Seat 0's `TableMachine` at a saved point, then messages in the agreed order (and
    side messages): every one is applied, refused, or a violation that halts the table;
    the machine never raises, and the game's state changes only by applied events. The
    side messages seat 0's machine asks to send are signed and noted as its shell would
    (`OwnSides`), so reveals that wait for seat 0's shares complete as in a game."""

    sealer: Sealer = field(default_factory=lambda: Sealer(corpus.game().identities))
    _digests: dict[int, str] = field(default_factory=dict)  # a point's input index -> the game's digest there
    digests: list[str] = field(default_factory=list)  # the last run's: the game's digest after each input taken
    finished: bool = False  # the last run ended the game
    halts_with_shares: int = 0  # halting steps that still sent the shares made before the halt (§9.9)

    def run(self, data: bytes) -> Verdict:
        g = corpus.game()
        index, steps = read_case(data)
        index %= len(g.table_points)
        point = g.table_points[index]
        return self.replay(point, [(step, point.now) for step in steps])

    def replay(self, point: corpus.Point, steps: Sequence[tuple[Any, float]]) -> Verdict:
        """Feed seat 0's machine, restored at `point`, each (step, time): the fuzzer's
        steps, or the recorded game's own inputs."""
        g = corpus.game()
        machine = g.thaw_machine(point.state)
        if point.at not in self._digests:  # (the game's digest at a point, worked out once)
            self._digests[point.at] = machine.engine.state_hash()
        digest = self._digests[point.at]
        verdict = ACCEPTED
        own = OwnSides(*point.own_side)
        self.digests = []
        for step, now in steps:
            try:
                envelope = _open(step, self.sealer)
            except ProtocolError:
                verdict = REJECTED
                continue
            if envelope.inner["type"] == ACK_TYPE:
                continue  # acks stay in the order layer
            seat = machine.seats.index(envelope.sender)
            if is_side(envelope.inner):
                result = machine.receive_side(seat, envelope, now)
            else:
                result = machine.deliver(Delivered(machine.position + 1, seat, envelope), now)
            digest, refused = self._check(machine, result, digest)
            self.digests.append(digest)
            for payload in result.side:  # signed as seat 0's shell would, so reveals it owes shares to complete
                machine.sent_side(own.sign(payload, g, self.sealer))
            if refused:
                verdict = REJECTED
            if machine.halted is not None or machine.finished:
                if machine.halted is not None:
                    after = machine.on_timer(now + 3600.0)
                    require(not after.send and not after.side, "a halted machine says nothing more")
                break
        self.finished = machine.finished
        return verdict

    def _check(self, machine: TableMachine, step: Step, before: str) -> tuple[str, bool]:
        if step.violation is not None:
            require(machine.halted is step.violation, "a violation halts the machine")
            # §9.9: no content past the halt point; only the shares made before it, which
            # reveals ordered before it may need
            require(not step.send, "a halted machine sends no content")
            require(all(m["type"] == "shares" for m in step.side), "a halted machine sends only the shares made before the halt")
            self.halts_with_shares += bool(step.side)
            require(isinstance(step.violation.section, str) and step.violation.section.startswith("§"), "a violation names its section")
            return before, True
        after = machine.engine.state_hash()
        if not step.applied:
            require(after == before, "the game changed without an applied event")
        return after, bool(step.refused) and not step.applied

    def seeds(self) -> list[bytes]:
        g = corpus.game()
        out = [case(i, *p.next[:1]) for i, p in enumerate(g.table_points)]
        out += [case(i, *p.next) for i, p in enumerate(g.table_points) if len(p.next) > 1][::3]
        return out


# -- lobby: the front door and the roster (§6) -----------------------------------------------------

MESSAGE_HANDLERS = {corpus.HOST_HELLO, corpus.HOST_MESSAGE, corpus.GUEST_OFFER, corpus.GUEST_REPLY, corpus.GUEST_MESSAGE,
                    corpus.AGAIN_MESSAGE}
FRONT_DOOR_TYPES = {
    corpus.HOST_HELLO: {"lobby.hello"},
    corpus.GUEST_OFFER: {"lobby.offer"},
    corpus.GUEST_REPLY: {"lobby.welcome", "lobby.refuse"},
}


@dataclass
class LobbyTarget:
    """The host's and a guest's lobby machines at a saved point, then steps ``[handler,
    sender seat, message]`` as a lobby runner makes them: a join refused, or a message
    refused with a `ProtocolError`, leaves both machines as they were."""

    def run(self, data: bytes) -> Verdict:
        lob = corpus.lobby_run()
        index, steps = read_case(data)
        world = lob.thaw(lob.points[index % len(lob.points)].state)
        verdict = ACCEPTED
        for raw in steps:
            step = _lobby_step(raw)
            if step is None:
                verdict = REJECTED
                continue
            outcome = self._step(world, lob.identities, *step)
            if outcome is REJECTED:
                verdict = REJECTED
        return verdict

    def _step(self, world: corpus.LobbyWorld, ids: Sequence[Identity], handler: int, sender: int, message: Any) -> Verdict:
        lob = corpus.lobby_run()
        resign, handler = bool(handler & corpus.RESIGN), handler & 15
        peer = ids[sender].peer_id
        if handler in MESSAGE_HANDLERS:
            if not isinstance(message, dict):
                return REJECTED
            try:
                corpus.schemas().check(message)
            except ProtocolError:
                return REJECTED  # the runner closes the stream or the link
            kind = message["type"]
            allowed = FRONT_DOOR_TYPES.get(handler, corpus.LOBBY_TYPES)
            if kind not in allowed:
                return REJECTED  # FramedStream.expect refuses it (§4.4), or it is not for the lobby
            if resign:
                message = _resign(world, ids, sender, message)
        if not _callable(world, handler, sender):
            return REJECTED  # a call the runner never makes in this state
        before = lob.freezer.freeze(world)
        try:
            if handler == corpus.HOST_HELLO:
                reply, _ = world.host.on_hello(message, corpus.HOST_NONCES[0 if sender <= 1 else 1], "10.0.0.9")
                if reply["type"] == "lobby.refuse":
                    require(lob.freezer.freeze(world) == before, "a refused join changed the host's lobby")
                    return REJECTED
            elif handler == corpus.HOST_MESSAGE:
                world.host.on_message(peer, message)
            elif handler == corpus.GUEST_OFFER:
                world.guest.on_offer(message, ids[0].certificate, corpus.HOST_ADDRESS)
            elif handler == corpus.GUEST_REPLY:
                world.guest.on_reply(message)
            elif handler == corpus.GUEST_MESSAGE:
                world.guest.on_message(peer, message)
            elif handler == corpus.HOST_LOST:  # (the resign bit: the link dropped, to be redialled, §6.6)
                world.host.on_link_lost(peer, "lost the connection: reset", dropped=resign)
            elif handler == corpus.HOST_UP:
                world.host.on_link_up(peer)
            elif handler == corpus.GUEST_LOST:
                world.guest.on_link_lost(peer, dropped=resign)
            elif handler == corpus.GUEST_PROBE:  # (the resign bit: the host's table answered)
                world.guest.on_probe(peer, resign, message if isinstance(message, str) else "")
            elif handler == corpus.GUEST_UP:
                world.guest.on_link_up(peer)
            elif handler == corpus.GUEST_OVERDUE:
                world.guest.on_overdue(peer)
            elif handler in (corpus.AGAIN_MESSAGE, corpus.AGAIN_LOST, corpus.AGAIN_UP):
                assert world.again is not None
                if handler == corpus.AGAIN_MESSAGE:
                    world.again.on_message(peer, message)
                elif handler == corpus.AGAIN_LOST:  # (the resign bit: the link dropped, to be redialled)
                    world.again.on_link_lost(peer, "lost the connection: reset", dropped=resign)
                else:
                    world.again.on_link_up(peer)
            else:
                world.host.start()
        except ProtocolError as exc:
            require(lob.freezer.freeze(world) == before, f"a refused lobby message changed the lobby ({exc})")
            return REJECTED
        return ACCEPTED

    def seeds(self) -> list[bytes]:
        lob = corpus.lobby_run()
        out = [case(i, step) for i, p in enumerate(lob.points) for step in p.next]  # each what may come next
        out += [case(i, *p.next) for i, p in enumerate(lob.points) if len(p.next) > 1 and "welcome" not in p.label]
        out += [case(i, corpus.step(corpus.HOST_START, 0)) for i in (3, 10)]
        per = len(lob.messages) // 2  # (the messages of each table)
        for i, first in ((3, 0), (10, per)):  # each table's second hello: it fills, and then (§6.6)…
            hello2, ready2, ready1b = (lob.messages[first + k] for k in (5, 12, 13))
            cy = lob.identities[2].peer_id
            for then in ([corpus.step(corpus.HOST_MESSAGE, 2, ready2), corpus.step(corpus.HOST_MESSAGE, 1, ready1b)],  # all linked
                         [corpus.step(corpus.HOST_LOST, 2)],  # the host cannot reach Cy
                         [corpus.step(corpus.HOST_MESSAGE, 1, links_report(2, (cy,)))],  # Bob cannot reach Cy
                         [corpus.step(corpus.HOST_MESSAGE, 2, links_report(2, (lob.identities[1].peer_id,)))]):  # nor Cy Bob
                out.append(case(i, corpus.step(corpus.HOST_HELLO, 2, hello2), *then))
        out += [case(i, corpus.step(corpus.GUEST_UP, 0), corpus.step(corpus.GUEST_OVERDUE, 2)) for i in (4, 11)]
        dropped, up = corpus.step(corpus.GUEST_LOST | corpus.RESIGN, 2), corpus.step(corpus.GUEST_UP, 2)
        out += [case(i, dropped, up) for i in (5, 12)]  # Bob's link to Cy drops before the start: redialled (§6.6)
        out += [case(i, *[dropped, up] * 3, dropped) for i in (5, 12)]  # …and, the fourth time, reported
        out += [case(i, corpus.step(corpus.HOST_LOST, 2), corpus.step(corpus.GUEST_LOST, 0)) for i in (4, 12)]
        host_dropped, host_up = corpus.step(corpus.HOST_LOST | corpus.RESIGN, 2), corpus.step(corpus.HOST_UP, 2)
        out += [case(i, host_dropped, host_up) for i in (4, 11)]  # the host's link to Cy drops: redialled (§6.6)
        out += [case(i, *[host_dropped, host_up] * 3, host_dropped) for i in (4, 11)]  # …and, the fourth time, Cy leaves
        lost, gone = corpus.step(corpus.GUEST_LOST | corpus.RESIGN, 0), corpus.step(corpus.GUEST_PROBE, 0)
        there = corpus.step(corpus.GUEST_PROBE | corpus.RESIGN, 0)
        out += [case(i, lost, there, corpus.step(corpus.GUEST_UP, 0)) for i in (5, 12)]  # Bob loses the host; it's back
        out += [case(i, lost, gone) for i in (5, 12)]  # …or its table no longer answers: the lobby ends
        return out


def _lobby_step(raw: Any) -> tuple[int, int, Any] | None:
    try:
        value = decode(raw) if isinstance(raw, bytes) else raw
    except ProtocolError:
        return None
    if not isinstance(value, list) or len(value) != 3 or type(value[0]) is not int or type(value[1]) is not int:
        return None
    return value[0] & 31, value[1] % 3, value[2]


def _callable(world: corpus.LobbyWorld, handler: int, sender: int) -> bool:
    """Whether a lobby runner would make this call now (its own sequencing, not input)."""
    guest = world.guest
    if handler == corpus.GUEST_OFFER:
        return guest.host is None
    if handler == corpus.GUEST_REPLY:
        return guest.host is not None and guest.roster is None
    if handler in (corpus.GUEST_MESSAGE, corpus.GUEST_LOST, corpus.GUEST_UP, corpus.GUEST_OVERDUE):
        return guest.roster is not None and sender != 1
    if handler in (corpus.HOST_MESSAGE, corpus.HOST_LOST, corpus.HOST_UP):
        return sender != 0
    if handler == corpus.GUEST_PROBE:
        return guest.roster is not None
    if handler == corpus.HOST_START:
        return len(world.host.roster.members) >= MIN_SEATS
    if handler in (corpus.AGAIN_MESSAGE, corpus.AGAIN_LOST, corpus.AGAIN_UP):
        return world.again is not None and sender != 2
    return handler == corpus.HOST_HELLO


def _resign(world: corpus.LobbyWorld, ids: Sequence[Identity], sender: int, message: dict[str, Any]) -> dict[str, Any]:
    """The sender signs its (mutated) message afresh: what a cheat with its own key does."""
    message = dict(message)
    if message["type"] == "lobby.hello":
        ident = next((i for i in ids if i.certificate.der == message["cert"]), None)
        if ident is not None:
            host = world.host
            nonce = corpus.HOST_NONCES[0 if sender <= 1 else 1]
            transcript = join_transcript(host.roster.table, host.identity.peer_id, ident.peer_id, nonce, message["nonce"])
            message["sig"] = ident.sign(transcript)
            if host.code_key is not None:
                message["proof"] = joiner_proof(host.code_key, transcript)
    elif message["type"] == "lobby.start":
        message["sig"] = sign_roster(ids[0], message["roster"])
    return message


# -- roster: the canonical roster R (§6.6) ---------------------------------------------------------


def run_roster(data: bytes) -> Verdict:
    try:
        roster = parse_canonical(data)
    except ProtocolError:
        return REJECTED
    require(roster.canonical() == data, "an accepted roster re-encodes to the same R")
    require(MIN_SEATS <= len(roster.members) <= MAX_SEATS, "an accepted roster seats 2..6")
    return ACCEPTED


# -- log: a fairness log read by the auditor (§10) ----------------------------------------------------


@dataclass
class FileTarget:
    """Writes each input to a file, as a log arrives on the auditor's disk: in a
    temporary folder of its own, removed with the target (or at exit)."""

    folder: tempfile.TemporaryDirectory[str] = field(
        default_factory=lambda: tempfile.TemporaryDirectory(prefix="bandit-fuzz-"))
    reference: bytes = b""  # an intact log each input is also compared with (§10.3)
    _reference: AuditResult | None = None

    def path(self, data: bytes, name: str = "input") -> Path:
        path = Path(self.folder.name) / f"{name}.bandit-log"
        path.write_bytes(data)
        return path

    def run_log(self, data: bytes) -> Verdict:
        try:
            contents = read_log(self.path(data))
        except LogError as exc:
            require(exc.section == "§10.1", "a log error names §10.1")
            return REJECTED
        require(all(isinstance(b, bytes) and isinstance(s, bytes) for b, s in contents.messages), "records are (body, sig)")
        return ACCEPTED

    def run_audit(self, data: bytes) -> Verdict:
        result = audit(self.path(data))  # never raises for anything the log contains
        for _line in game_report(result):  # nor does telling its report
            pass
        if self.reference:  # nor comparing it with a log of the game it came from (§10.3)
            if self._reference is None:
                self._reference = audit(self.path(self.reference, "reference"))
            agreement = compare([result, self._reference])
            for _line in comparison_report(agreement):
                pass
            require(agreement.parting is None or agreement.parting.section.startswith("§"), "a parting names its section")
            require(data != self.reference or agreement.ok, "a log agrees with itself")
        if result.ok:
            return ACCEPTED
        failure = result.first_failure
        require(failure is not None and failure.section.startswith("§"), "a failed audit names its section")
        return REJECTED


# -- discovery: TXT records from mDNS (§5) ---------------------------------------------------------------

SERVICE_NAME = f"Fuzz table.{SERVICE_TYPE}"


def run_txt(data: bytes) -> Verdict:
    info = ServiceInfo(SERVICE_TYPE, SERVICE_NAME, port=4000, properties=data, addresses=[socket.inet_aton("10.0.0.1")])
    ad = ad_from_info(info)
    if ad is None:
        return REJECTED
    require(MIN_SEATS <= ad.seats <= MAX_SEATS and 0 <= ad.free <= ad.seats, "an advertised table has 2..6 seats")
    require(len(ad.fingerprint) == 32 and ad.table.isprintable() and ad.host.isprintable(), "an ad is printable, with a full fingerprint")
    return ACCEPTED


# -- deck: the card protocol's structures (§8.8) -------------------------------------------------------

PARSERS: dict[str, Callable[[Any, bytes], Any]] = {
    "key share": KeyShare.from_wire,
    "beacon commit": BeaconCommit.from_wire,
    "beacon reveal": BeaconReveal.from_wire,
    "shuffle step": ShuffleStep.from_wire,
    "shuffle opening": ShuffleOpening.from_wire,
    "share": Share.from_wire,
    "sealed share": SealedShare.from_wire,
}
PARSER_NAMES = tuple(PARSERS)


def run_deck(data: bytes) -> Verdict:
    """``[parser, map]``: a card structure read by its `from_wire` (raw bytes: the parser
    named by the first byte reads whatever the rest decodes to)."""
    try:
        value = decode(data)
    except ProtocolError:
        return REJECTED
    if isinstance(value, list) and len(value) == 2 and type(value[0]) is int:
        parser, obj = PARSER_NAMES[value[0] % len(PARSER_NAMES)], value[1]
    else:
        parser, obj = PARSER_NAMES[(data[0] if data else 0) % len(PARSER_NAMES)], value
    sender = corpus.game().seats[1]
    try:
        parsed = PARSERS[parser](obj, sender)
    except DeckError as exc:
        require(exc.peer == sender, f"a malformed {parser} blames its sender")
        return REJECTED
    require(parsed.to_wire() == obj, f"an accepted {parser} round-trips")
    return ACCEPTED


def deck_seeds() -> list[bytes]:
    return [encode([PARSER_NAMES.index(parser), obj]) for parser, obj in corpus.deck_records()]


# -- the canary: proves the fuzz script sees a crash and a hang ---------------------------------------


def run_canary(data: bytes) -> Verdict:
    """Not a part of the project: raises on ``!crash``, loops on ``?hang``, aborts the
    process on ``*abort`` and ends it quietly (status 0, in the middle of the input) on
    ``=exit``, so the harness's counting of unhandled exceptions, hangs and crashes can
    itself be tested (mutants of these seeds behave normally)."""
    if data == b"!crash":
        raise KeyError("canary")
    if data == b"?hang":
        while True:
            time.sleep(0.01)
    if data == b"*abort":
        os.abort()
    if data == b"=exit":
        os._exit(0)
    return ACCEPTED if data.startswith(b"ok") else REJECTED


# -- the registry -------------------------------------------------------------------------------------


def _file_target(kind: str) -> Target:
    g = corpus.game()
    files = FileTarget(reference=g.log if kind == "audit" else b"")
    if kind == "log":
        return Target("log", "a fairness log file: read_log (§10.1), LogError", Codec.FRAMES,
                      lambda: [g.log, g.short_log], files.run_log)
    return Target("audit", "a fairness log file: the whole audit and its report (§10.2), which never raise", Codec.FRAMES,
                  lambda: [g.short_log, g.log], files.run_audit)


def _stateful(name: str, about: str, impl: OrderTarget | TableTarget | LobbyTarget) -> Target:
    return Target(name, about, Codec.MSGPACK, impl.seeds, impl.run)


FACTORIES: dict[str, Callable[[], Target]] = {
    "link": lambda: Target("link", "link bytes: frames, strict msgpack, schemas, signed envelopes (§4)", Codec.FRAMES,
                           link_seeds, run_link),
    "order": lambda: _stateful("order", "signed messages into the agreed order (§7): OrderError", OrderTarget()),
    "table": lambda: _stateful("table", "ordered and side messages into the table (§8, §9): violations, refusals",
                               TableTarget()),
    "lobby": lambda: _stateful("lobby", "front door and lobby messages (§6): ProtocolError, refusals", LobbyTarget()),
    "roster": lambda: Target("roster", "the canonical roster R (§6.6): ProtocolError", Codec.MSGPACK,
                             lambda: [corpus.game().canonical, corpus.lobby_run().messages[8]["roster"]], run_roster),
    "deck": lambda: Target("deck", "card structures' from_wire (§8.8): DeckError", Codec.MSGPACK, deck_seeds, run_deck),
    "txt": lambda: Target("txt", "mDNS TXT records of advertised tables (§5): ignored when malformed", Codec.TXT,
                          corpus.txt_records, run_txt),
    "log": lambda: _file_target("log"),
    "audit": lambda: _file_target("audit"),
}
"""Every target, by name; `make_target` builds one (its corpus is built on first use)."""

CANARY = "canary"
ALL_TARGETS = tuple(FACTORIES)


def make_target(name: str) -> Target:
    if name == CANARY:
        return Target(CANARY, "a deliberately broken target (harness self-test)", Codec.BYTES,
                      lambda: [b"ok", b"no", b"!crash", b"?hang", b"*abort", b"=exit"], run_canary)
    return FACTORIES[name]()

