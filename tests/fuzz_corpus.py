"""Valid inputs for every fuzz target, taken from a real game, a real lobby and real files.

A seeded 3-seat game runs over the in-memory network of `tests.tablesim` (real keys,
real signatures, every proof). While it runs, seat 0's `Orderer` is saved before each
envelope reaches it and seat 0's `TableMachine` before each message is delivered to it,
so a fuzzer can replay "this exact state, then this (mutated) input". The lobby is run
the same way, step by step, between three real identities. The fairness log, the
canonical roster, the TXT record and the card messages come from the same game.

Everything here is deterministic: the same corpus on every machine and in every run.
"""

from __future__ import annotations

import io
import pickle
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from p2p import lobby
from p2p.discovery import TableAd
from p2p.identity import Identity
from p2p.lobby import Broadcast, GuestLobby, HostLobby, SendTo, SigningAgain
from p2p.log import FairnessLog, header_for
from p2p.order import Orderer
from p2p.peer import table_schemas
from p2p.roster import TableRules
from p2p.schema import Schemas
from p2p.signing import SignedMessage, signed_frame
from p2p.table import TableMachine
from p2p.wire import encode, encode_frame
from tests.ordersim import make_signer, seeded_identity, transmit
from tests.tablesim import TableNetwork
from tests.test_table_games import SMALL_DECK

GAME_SEED = 6
RULES = TableRules(target=10, skills_text=SMALL_DECK)
MAX_POINTS = 48  # saved states per stateful target


# -- saving and restoring state ------------------------------------------------------


class _StatePickler(pickle.Pickler):
    """Pickles a state, leaving out the objects named in `external` (keys, signers)."""

    def __init__(self, file: io.BytesIO, external: Mapping[int, str]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._external = external

    def persistent_id(self, obj: Any) -> str | None:
        return self._external.get(id(obj))


class _StateUnpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, external: Mapping[str, Any]) -> None:
        super().__init__(file)
        self._external = external

    def persistent_load(self, pid: str) -> Any:
        return self._external[pid]


@dataclass(frozen=True)
class Freezer:
    """Saves and restores state objects; `external` objects (private keys, signing
    functions) are not copied but referred to by name, and shared by every copy."""

    external: Mapping[str, Any]

    def freeze(self, state: Any) -> bytes:
        buffer = io.BytesIO()
        _StatePickler(buffer, {id(obj): name for name, obj in self.external.items()}).dump(state)
        return buffer.getvalue()

    def thaw(self, blob: bytes) -> Any:
        return _StateUnpickler(io.BytesIO(blob), self.external).load()


@dataclass(frozen=True)
class Point:
    """A saved state and the inputs that came next in the recorded run (in the lobby:
    each input that may come next), each encoded."""

    label: str
    state: bytes
    now: float
    next: tuple[bytes, ...]
    own_side: tuple[int, bytes] = (0, b"")  # where seat 0's side chain stood (a table point signs on from there)
    at: int = 0  # the index of its input among those recorded (`Game.table_inputs` for a table point)


# -- the game --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Input:
    """Seat 0's orderer or machine just before one of its inputs in the recorded run."""

    state: bytes
    now: float
    envelope: SignedMessage
    own_side: tuple[int, bytes] = (0, b"")  # (a machine) where seat 0's side chain stood
    digest: str = ""  # (a machine) the game's digest before the input (so: after the one before)


class _RecordingTable(TableNetwork):
    """A game whose seat 0 is saved before every input its orderer and machine take."""

    def __init__(self) -> None:
        super().__init__(3, GAME_SEED, rules=RULES, latency=0.002, jitter=0.004)
        self.arrivals: list[_Input] = []  # seat 0's orderer before each envelope reaches it
        self.inputs: list[_Input] = []  # seat 0's machine before each message it is given
        machine = self.tables[0].machine
        real_deliver, real_side = machine.deliver, machine.receive_side
        own = self.peers[0].orderer._peers[0]  # noqa: SLF001

        def record(envelope: SignedMessage, now: float) -> None:
            self.inputs.append(_Input(self.freezer.freeze(machine), now, envelope, (own.side_next, own.side_hash),
                                      machine.engine.state_hash()))

        def deliver(delivered: Any, now: float) -> Any:
            record(delivered.envelope, now)
            return real_deliver(delivered, now)

        def receive_side(seat: int, envelope: Any, now: float) -> Any:
            record(envelope, now)
            return real_side(seat, envelope, now)

        # the hooks and seat 0's signer are saved by name, never copied
        self.freezer = Freezer({"sign": self.peers[0].orderer._sign, "deliver": deliver, "receive_side": receive_side})  # noqa: SLF001
        machine.deliver = deliver  # type: ignore[method-assign]
        machine.receive_side = receive_side  # type: ignore[method-assign]

    def _arrive(self, dst: int, envelope: SignedMessage) -> None:
        if dst == 0:
            self.arrivals.append(_Input(self.freezer.freeze(self.peers[0].orderer), self.now, transmit(envelope)))
        super()._arrive(dst, envelope)


@dataclass(frozen=True)
class Game:
    """What the fuzz targets need of the recorded game."""

    identities: tuple[Identity, ...]
    seats: tuple[bytes, ...]
    game_id: bytes
    keys: Mapping[bytes, bytes]
    canonical: bytes
    signatures: tuple[bytes, ...]
    order_points: tuple[Point, ...]
    table_points: tuple[Point, ...]
    table_inputs: tuple[tuple[bytes, float], ...]  # every input of seat 0's machine: (body, time)
    table_after: tuple[str, ...]  # the game's digest after each of them
    messages: tuple[SignedMessage, ...]  # every signed message seen by seat 0 (acks too)
    log: bytes  # seat 0's fairness log of the whole game
    short_log: bytes  # the log of the game's first records (cheap to audit)
    freezer: Freezer

    def thaw_orderer(self, blob: bytes) -> Orderer:
        orderer = self.freezer.thaw(blob)
        assert isinstance(orderer, Orderer)
        return orderer

    def thaw_machine(self, blob: bytes) -> TableMachine:
        machine = self.freezer.thaw(blob)
        assert isinstance(machine, TableMachine)
        # the recording hooks were saved by name; a restored machine is a plain one
        for name in ("deliver", "receive_side"):
            machine.__dict__.pop(name, None)
        return machine


def _spread(items: list[Any], count: int) -> list[Any]:
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def _points(label: str, recorded: list[_Input]) -> tuple[Point, ...]:
    """The state before spread-out inputs, each with the next three inputs."""
    out = []
    for i in _spread(list(range(len(recorded))), MAX_POINTS):
        r = recorded[i]
        following = tuple(f.envelope.body for f in recorded[i : i + 3])
        out.append(Point(f"{label} {i}", r.state, r.now, following, r.own_side, i))
    return tuple(out)


def _extra_messages(net: TableNetwork) -> list[dict[str, Any]]:
    """Inner maps of the §9 types the recorded game did not happen to send."""
    log = net.tables[0].log
    draw = next(d.envelope.inner for d in log if d.envelope.inner["type"] == "draw")
    header = {k: draw[k] for k in ("from", "game", "lamport", "seq", "prev", "heads", "round")}
    extra = [
        {"type": "peek", "v": 1, **header, "turn": draw["turn"], "slot": 1},
        {"type": "spy", "v": 1, **header, "turn": draw["turn"], "owner": 1, "slot": 2},
        {"type": "swap", "v": 1, **header, "turn": draw["turn"], "own_slot": 0, "owner": 2, "slot": 3},
        {"type": "timeout", "v": 1, **header, "what": "turn", "turn": draw["turn"]},
        {"type": "timeout", "v": 1, **header, "what": "peek", "turn": 0},
        {"type": "leave", "v": 1, **{k: v for k, v in header.items() if k != "round"}, "reason": "off home"},
    ]
    return extra


def _write_log(folder: Path, net: TableNetwork, records: int | None) -> bytes:
    path = folder / f"log-{records}.bandit-log"
    table = net.tables[0]
    log = FairnessLog.create(path, header_for(net.canonical, net.signatures, 0), net.peers[0].identity)
    delivered = table.log if records is None else table.log[:records]
    for side in table.sides:
        log.append_side(side)
    for d in delivered:
        log.append(d.envelope)
    log.note("a peer sent garbage", peer=net.peers[1].orderer.seats[1], section="§4.3")
    log.close("the game ended" if records is None else "stopped")
    return path.read_bytes()


@cache
def game() -> Game:
    """The recorded game (played once per process)."""
    net = _RecordingTable()
    net.run()
    if not all(t.machine.finished for t in net.tables):
        raise RuntimeError("the corpus game did not finish")
    seats = net.peers[0].orderer.seats
    identities = tuple(net.peers[i].identity for i in range(3))
    seen = [r.envelope for r in net.arrivals]
    own = [d.envelope for d in net.tables[0].log if d.seat == 0]
    signers = {ident.peer_id: make_signer(ident) for ident in identities}
    extra = [signers[inner["from"]](inner) for inner in _extra_messages(net)]
    with tempfile.TemporaryDirectory() as folder:
        log = _write_log(Path(folder), net, None)
        short_log = _write_log(Path(folder), net, 12)
    return Game(
        identities=identities,
        seats=seats,
        game_id=net.game,
        keys=dict(net.keys),
        canonical=net.canonical,
        signatures=tuple(net.signatures),
        order_points=_points("orderer before arrival", net.arrivals),
        table_points=_points("machine before input", net.inputs),
        table_inputs=tuple((r.envelope.body, r.now) for r in net.inputs),
        table_after=(*(r.digest for r in net.inputs[1:]), net.tables[0].machine.engine.state_hash()),
        messages=tuple(seen + own + extra),
        log=log,
        short_log=short_log,
        freezer=Freezer({"sign": make_signer(identities[0]), "deliver": None, "receive_side": None}),
    )


# -- the lobby -------------------------------------------------------------------------

HOST_NONCES = (bytes([0xA1]) * 32, bytes([0xA2]) * 32)
GUEST_NONCES = (bytes([0xB1]) * 32, bytes([0xB2]) * 32)
TABLE_NONCE = bytes([0xC0]) * 32
CODE = "4242"
HOST_ADDRESS = ("10.0.0.1", 4000)


@dataclass
class LobbyWorld:
    """The host and the seat-1 guest, as the fuzzer drives them; and, once the roster is
    being signed, the seat-2 guest taken back after its process stopped (§11.3)."""

    host: HostLobby
    guest: GuestLobby
    again: SigningAgain | None = None


@dataclass(frozen=True)
class Lobby:
    identities: tuple[Identity, ...]
    points: tuple[Point, ...]  # each state is a frozen LobbyWorld; `next` holds encoded steps
    messages: tuple[dict[str, Any], ...]  # every lobby message of the run
    freezer: Freezer

    def thaw(self, blob: bytes) -> LobbyWorld:
        world = self.freezer.thaw(blob)
        assert isinstance(world, LobbyWorld)
        return world


# Steps: [handler, sender seat, message]; the handlers a lobby runner calls (§6).
HOST_HELLO, HOST_MESSAGE, GUEST_OFFER, GUEST_REPLY, GUEST_MESSAGE, HOST_LOST, GUEST_LOST, HOST_START, GUEST_UP, \
    GUEST_OVERDUE, HOST_UP, GUEST_PROBE, AGAIN_MESSAGE, AGAIN_LOST, AGAIN_UP = range(15)
RESIGN = 16  # added to a handler: the sender signs the (mutated) message afresh; (HOST_LOST, GUEST_LOST) the link
#              dropped; (GUEST_PROBE) the host's table answered; (AGAIN_LOST) the link dropped


def lobby_identities() -> tuple[Identity, ...]:
    return tuple(seeded_identity(bytes([0xD0 + i]) * 32) for i in range(3))


def step(handler: int, sender: int, message: Mapping[str, Any] | None = None) -> bytes:
    return encode([handler, sender, dict(message or {"type": "none", "v": 1})])


def _report(actions: list[Any]) -> dict[str, Any]:
    """The ``lobby.links`` among a guest's actions."""
    return next(a.message for a in actions if isinstance(a, SendTo) and a.message["type"] == "lobby.links")


@cache
def lobby_run() -> Lobby:
    """A 3-seat lobby played to its start, saved at each step, with and without a code."""
    ids = lobby_identities()
    freezer = Freezer({f"identity {i}": ident for i, ident in enumerate(ids)})
    points: list[Point] = []
    taken_back: list[Point] = []  # (after every other point: the seeds name those by index)
    messages: list[dict[str, Any]] = []

    def save(label: str, world: LobbyWorld, *following: bytes) -> None:
        points.append(Point(label, freezer.freeze(world), 0.0, following))

    for code in (None, CODE):
        host = HostLobby(ids[0], name="Ann", table="Fuzz table", seats=3, table_nonce=TABLE_NONCE,
                         port=HOST_ADDRESS[1], code=code)
        g1 = GuestLobby(ids[1], name="Bob", port=5001, nonce=GUEST_NONCES[0], code=code)
        g2 = GuestLobby(ids[2], name="Cy", port=5002, nonce=GUEST_NONCES[1], code=code)
        tag = "code" if code else "open"
        offer1 = host.offer(HOST_NONCES[0])
        save(f"{tag}: nobody seated", LobbyWorld(host, g1), step(GUEST_OFFER, 0, offer1))
        hello1 = g1.on_offer(offer1, ids[0].certificate, HOST_ADDRESS)
        save(f"{tag}: a hello arrives", LobbyWorld(host, g1), step(HOST_HELLO, 1, hello1))
        welcome1, _ = host.on_hello(hello1, HOST_NONCES[0], "10.0.0.2")
        refuse = host.on_hello(hello1, HOST_NONCES[0], "10.0.0.2")[0]  # the same identity again
        save(f"{tag}: welcome on its way", LobbyWorld(host, g1), step(GUEST_REPLY, 0, welcome1), step(GUEST_REPLY, 0, refuse))
        g1.on_reply(welcome1)
        host.on_link_up(ids[1].peer_id)  # the host's dial reached Bob
        ready1 = _report(g1.on_link_up(ids[0].peer_id))  # Bob holds his link to the host and says so (§6.6)
        host.on_message(ids[1].peer_id, ready1)
        offer2 = host.offer(HOST_NONCES[1])
        hello2 = g2.on_offer(offer2, ids[0].certificate, HOST_ADDRESS)
        save(f"{tag}: second hello", LobbyWorld(host, g1), step(HOST_HELLO, 2, hello2))
        welcome2, actions = host.on_hello(hello2, HOST_NONCES[1], "10.0.0.3")
        update = next(a.message for a in actions if isinstance(a, SendTo))
        g2.on_reply(welcome2)
        host.on_link_up(ids[2].peer_id)
        g2.on_link_up(ids[0].peer_id)
        ready2 = _report(g2.on_link_up(ids[1].peer_id))  # Cy is linked to both
        awaiting = freezer.freeze(LobbyWorld(host, g1))
        g1.on_message(ids[0].peer_id, update)
        ready1b = _report(g1.on_link_up(ids[2].peer_id))
        host.on_message(ids[2].peer_id, ready2)
        start = next(a.message for a in host.on_message(ids[1].peer_id, ready1b) if isinstance(a, Broadcast))
        points.append(Point(f"{tag}: a full table awaits its links", awaiting, 0.0, (
            step(GUEST_MESSAGE, 0, update), step(HOST_MESSAGE, 2, ready2), step(GUEST_UP, 2),
            step(GUEST_MESSAGE, 0, start))))  # (the last, out of order: a start before the update is refused)
        save(f"{tag}: start on its way", LobbyWorld(host, g1), step(GUEST_MESSAGE, 0, start))
        sign1 = next(a.message for a in g1.on_message(ids[0].peer_id, start) if isinstance(a, Broadcast))
        sign2 = next(a.message for a in g2.on_message(ids[0].peer_id, start) if isinstance(a, Broadcast))
        save(f"{tag}: signatures on their way", LobbyWorld(host, g1), step(GUEST_MESSAGE, 2, sign2),
             step(HOST_MESSAGE, 1, sign1), step(HOST_MESSAGE, 2, sign2))
        again = SigningAgain(ids[2], start["roster"])  # (Cy stopped once his signature was out: taken back)
        taken_back.append(Point(f"{tag}: a seat signs again", freezer.freeze(LobbyWorld(host, g1, again)), 0.0, (
            step(AGAIN_UP, 1), step(AGAIN_MESSAGE, 1, sign1), step(AGAIN_MESSAGE, 0, start), step(AGAIN_LOST | RESIGN, 1))))
        messages += [offer1, hello1, welcome1, refuse, offer2, hello2, welcome2, update, start, sign1, sign2,
                     ready1, ready2, ready1b]
    return Lobby(ids, tuple(points + taken_back), tuple(messages), freezer)


# -- frames, files and records -----------------------------------------------------------


def link_frames() -> list[bytes]:
    """Complete frames of every kind a link carries (§4.5, §4.6): each a seed byte stream."""
    g = game()
    frames = [
        encode_frame({"type": "link.hello", "v": 1, "table": g.game_id}),
        encode_frame({"type": "error", "v": 1, "section": "§4.3", "reason": "not valid msgpack"}),
        encode_frame({"type": "bye", "v": 1, "reason": "good night"}),
    ]
    frames += [encode_frame(signed_frame(m.body, m.sig)) for m in _one_per_type(g.messages)]
    frames += [encode_frame(m) for m in lobby_run().messages]
    return frames


def _one_per_type(messages: tuple[SignedMessage, ...]) -> list[SignedMessage]:
    by_type: dict[str, SignedMessage] = {}
    for m in messages:
        by_type.setdefault(m.type, m)
    return list(by_type.values())


def inner_messages() -> list[SignedMessage]:
    """One signed message of every §7 and §9 type (an ack too)."""
    return _one_per_type(game().messages)


def deck_records() -> list[tuple[str, dict[str, Any]]]:
    """(parser, map) pairs: the card protocol's structures as they travel (§8.8)."""
    out: list[tuple[str, dict[str, Any]]] = []
    for m in game().messages:
        inner = m.inner
        kind = inner["type"]
        if kind == "keys":
            out.append(("key share", {k: inner[k] for k in ("key", "e", "s")}))
        elif kind == "beacon.commit":
            out.append(("beacon commit", {k: inner[k] for k in ("round", "commit")}))
        elif kind == "beacon.reveal":
            out.append(("beacon reveal", {k: inner[k] for k in ("round", "nonce")}))
        elif kind == "shuffle":
            out.append(("shuffle step", {k: inner[k] for k in ("chain", "step", "deck", "commit", "proof")}))
        elif kind == "opening":
            out += [("shuffle opening", dict(o)) for o in inner["steps"]]
        elif kind == "shares":
            out += [("share", {k: v for k, v in item.items() if k != "need"}) for item in inner["items"]]
            out += [("sealed share", {k: v for k, v in item.items() if k != "need"}) for item in inner.get("sealed", ())]
    seen: set[bytes] = set()
    unique = []
    for parser, obj in out:
        key = encode([parser, obj])
        if key not in seen:
            seen.add(key)
            unique.append((parser, obj))
    return unique[:40]


def txt_records() -> list[bytes]:
    """DNS TXT record data (RFC 6763 §6) of advertised tables, as received over mDNS."""
    peer = game().seats[0]
    ads = [
        TableAd("Fuzz table", "Ann", 4, 2, 1, peer, 4000, ("10.0.0.1",)),
        TableAd("Tisch für 6", "Zoë", 6, 0, 1, bytes(32), 65535, ()),
    ]
    return [txt_rdata({k.encode(): v.encode() for k, v in ad.txt().items()}) for ad in ads]


def txt_rdata(properties: Mapping[bytes, bytes | None]) -> bytes:
    out = bytearray()
    for key, value in properties.items():
        entry = key if value is None else key + b"=" + value
        out += bytes([len(entry)]) + entry
    return bytes(out)


@cache
def schemas() -> Schemas:
    """The registry of a table's mesh: link, lobby, order (§7) and table (§9) messages."""
    return table_schemas()


LOBBY_TYPES = frozenset(m.type for m in lobby.MESSAGES)
