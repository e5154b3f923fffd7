"""The roster: who sits at the table, its canonical encoding, roster signatures and the game id (§6.5, §6.6).

Theory of operation
-------------------
While the lobby is open the host keeps the roster: members in seat order (the host is
seat 0, then joiners in the order they were admitted). Each member is a name, a
certificate (hence a peer id and an Ed25519 key) and the 32-byte nonce it contributed
when it joined (the host's is the table nonce). On the wire (welcome and roster updates)
members also carry the address and port other peers dial (§6.5).

The host also fixes the table's *rules* (§6.8): the end-of-game target, the turn and
ready timers and, optionally, a replacement skills table (R2/R3). Joiners see them in the
roster before they sit down, and they are part of what everyone signs.

At start the roster is frozen into its *canonical encoding* R (§6.6): canonical msgpack
of ``{"proto", "table", "table_nonce", "rules", "members": [{"seat", "name", "cert",
"nonce"}]}`` (no addresses: they are how to reach a peer, not who it is). Every member signs
``ROSTER_DOMAIN || R``; the game id is ``SHA-256(GAME_DOMAIN || R)``. Because every
member's fresh nonce is inside R, no member can make a new game share an id (and so
replayable messages) with an old one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from engine import DEFAULT_SKILLS, SkillsError, Skills, load_skills
from engine.game import MAX_TARGET

from p2p.errors import ProtocolError
from p2p.identity import Certificate, Identity
from p2p.names import name_key
from p2p.schema import NONCE, Bin, Int, ListOf, Message, Optional, Record, Schemas, Str
from p2p.wire import decode, encode

PROTOCOL_VERSION = 7


def other_release(speaker: str, proto: int) -> str:
    """Why peers of two protocol versions cannot play together, for a player (§6.2)."""
    return (f"{speaker} speaks bandit-lan protocol {proto} and this program speaks {PROTOCOL_VERSION}: "
            "the same bandit-lan release is needed on both machines")
MIN_SEATS, MAX_SEATS = 2, 6
ROSTER_DOMAIN = b"bandit-lan/v1/roster\x00"
GAME_DOMAIN = b"bandit-lan/v1/game\x00"

TABLE_NAME = Str(min_len=1, max_len=40, printable=True)
PLAYER_NAME = Str(min_len=1, max_len=24, printable=True)
CERT = Bin(min_len=1, max_len=4096)

MAX_SKILLS_TEXT = 4096
MIN_TURN_S, MAX_TURN_S = 5, 3600  # a turn's timer, in seconds (R5, §6.8)
MIN_GRACE_S, MAX_GRACE_S = 10, 86400  # how long the table waits for a seat away, in seconds (§11.3, §6.8)
DEFAULT_GRACE_S = 120
WIRE_RULES = Record(
    {"target": Int(1, MAX_TARGET), "turn_s": Int(MIN_TURN_S, MAX_TURN_S), "peek_s": Int(1, 3600),
     "skills": Str(max_len=MAX_SKILLS_TEXT), "grace_s": Optional(Int(MIN_GRACE_S, MAX_GRACE_S))}
)


@dataclass(frozen=True)
class TableRules:
    """What every seat agrees to play by (§6.8): the R1 target, the R5 turn timer, the
    R4.3 ready barrier, the skills table (TOML text; empty for the default, R2/R3), and
    how long the table waits for a seat away before it ends the game (§11.3)."""

    target: int = 100
    turn_s: int = 60
    peek_s: int = 30
    skills_text: str = ""
    grace_s: int = DEFAULT_GRACE_S

    def __post_init__(self) -> None:
        WIRE_RULES.check(self.to_wire(), "rules", "§6.8")
        self.skills  # validates the table (SkillsError)

    @cached_property
    def skills(self) -> Skills:
        return load_skills(self.skills_text, "the table's skills") if self.skills_text else DEFAULT_SKILLS

    def to_wire(self) -> dict[str, Any]:
        wire = {"target": self.target, "turn_s": self.turn_s, "peek_s": self.peek_s, "skills": self.skills_text}
        if self.grace_s != DEFAULT_GRACE_S:  # (absent at its default: the canonical R of such a table is as before)
            wire["grace_s"] = self.grace_s
        return wire

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> TableRules:
        """Rules received from a peer (schema-checked as WIRE_RULES); a bad skills table is a §6.8 error."""
        try:
            return cls(data["target"], data["turn_s"], data["peek_s"], data["skills"],
                       data.get("grace_s", DEFAULT_GRACE_S))
        except SkillsError as exc:
            raise ProtocolError("§6.8", f"the table's skills table is invalid: {exc}") from None


DEFAULT_RULES = TableRules()


def check_seating(members: Sequence[Member], seats: int, rules: TableRules, section: str) -> None:
    """What every roster must be, whoever built it (§6.5, §6.6): one identity per seat,
    seats 0, 1, 2, … in order, no two names the same after NFKC and case folding
    (`name_key`), and a deck that can deal to `seats` (R4, §6.8)."""
    if [m.seat for m in members] != list(range(len(members))):
        raise ProtocolError(section, "roster seats must be 0, 1, 2, ... in order")
    if len({m.peer_id for m in members}) != len(members):
        raise ProtocolError(section, "the roster lists one identity twice")
    seen: dict[str, Member] = {}
    for m in members:
        earlier = seen.setdefault(name_key(m.name), m)
        if earlier is not m:
            raise ProtocolError(section, f"the roster names two players the same, {earlier.name!r} (seat "
                                         f"{earlier.seat + 1}) and {m.name!r} (seat {m.seat + 1}): names must differ "
                                         "by more than case, spacing or compatibility forms")
    if len(members) > seats:
        raise ProtocolError(section, f"the roster seats {len(members)} players at a table of {seats}")
    try:
        rules.skills.check_players(seats)
    except SkillsError as exc:
        raise ProtocolError("§6.8", f"the table's deck cannot be dealt: {exc}") from None

WIRE_MEMBER = Record(
    {"seat": Int(0, MAX_SEATS - 1), "name": PLAYER_NAME, "cert": CERT, "nonce": NONCE,
     "addr": Str(max_len=64, printable=True), "port": Int(0, 65535)}
)
WIRE_ROSTER = Record(
    {"version": Int(0, 1 << 32), "table": TABLE_NAME, "table_nonce": NONCE, "seats": Int(MIN_SEATS, MAX_SEATS),
     "rules": WIRE_RULES, "members": ListOf(WIRE_MEMBER, 1, MAX_SEATS)}
)
_CANONICAL = Schemas(
    Message("roster", 1, "§6.6", {
        "proto": Int(0, 65535), "table": TABLE_NAME, "table_nonce": NONCE, "rules": WIRE_RULES,
        "members": ListOf(Record({"seat": Int(0, MAX_SEATS - 1), "name": PLAYER_NAME, "cert": CERT, "nonce": NONCE}),
                          MIN_SEATS, MAX_SEATS),
    })
)


@dataclass(frozen=True)
class Member:
    seat: int
    name: str
    cert: Certificate
    nonce: bytes
    address: tuple[str, int] | None = None

    @property
    def peer_id(self) -> bytes:
        return self.cert.peer_id


@dataclass(frozen=True)
class Roster:
    """The table as the host announced it; `version` grows with every change."""

    table: str
    table_nonce: bytes
    seats: int
    members: tuple[Member, ...]
    version: int = 0
    rules: TableRules = field(default=DEFAULT_RULES)

    @property
    def free(self) -> int:
        return self.seats - len(self.members)

    def member(self, peer_id: object) -> Member | None:
        """The member with this peer id; None for anything else (also what a record of a
        log claims as its sender, whatever its type)."""
        for m in self.members:
            if m.peer_id == peer_id:
                return m
        return None

    def to_wire(self) -> dict[str, Any]:
        return {
            "version": self.version, "table": self.table, "table_nonce": self.table_nonce, "seats": self.seats,
            "rules": self.rules.to_wire(),
            "members": [
                {"seat": m.seat, "name": m.name, "cert": m.cert.der, "nonce": m.nonce,
                 "addr": (m.address or ("", 0))[0], "port": (m.address or ("", 0))[1]}
                for m in self.members
            ],
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Roster:
        """A roster received from the host (already schema-checked as WIRE_ROSTER)."""
        members = tuple(Member(m["seat"], m["name"], Certificate.from_der(m["cert"]), m["nonce"],
                               (m["addr"], m["port"]) if m["port"] else None) for m in data["members"])
        rules = TableRules.from_wire(data["rules"])
        check_seating(members, data["seats"], rules, "§6.5")
        return cls(data["table"], data["table_nonce"], data["seats"], members, data["version"], rules)

    def canonical(self) -> bytes:
        """R, the canonical encoding signed by every member (§6.6)."""
        return encode({
            "type": "roster", "v": 1,
            "proto": PROTOCOL_VERSION, "table": self.table, "table_nonce": self.table_nonce,
            "rules": self.rules.to_wire(),
            "members": [{"seat": m.seat, "name": m.name, "cert": m.cert.der, "nonce": m.nonce} for m in self.members],
        })


def game_id_of(canonical: bytes) -> bytes:
    """The game id: SHA-256 over the domain tag and R (§6.6)."""
    return hashlib.sha256(GAME_DOMAIN + canonical).digest()


def parse_canonical(canonical: bytes) -> Roster:
    """The roster in R, checked: strict decoding, schema, and canonical form (§6.6)."""
    data = decode(canonical)
    if not isinstance(data, dict):
        raise ProtocolError("§6.6", "the roster encoding is not a map")
    _CANONICAL.check(data)
    if encode(data) != canonical:
        raise ProtocolError("§6.6", "the roster is not in canonical encoding")
    if data["proto"] != PROTOCOL_VERSION:
        raise ProtocolError("§6.6", f"the roster is for protocol {data['proto']}, this program speaks {PROTOCOL_VERSION}")
    members = tuple(
        Member(m["seat"], m["name"], Certificate.from_der(m["cert"]), m["nonce"]) for m in data["members"]
    )
    rules = TableRules.from_wire(data["rules"])
    if rules.to_wire() != data["rules"]:  # (a rule at its default is left out: `grace_s` 120, §6.8)
        raise ProtocolError("§6.8", "the roster's rules are not in canonical form (grace_s 120 is left out)")
    check_seating(members, len(members), rules, "§6.6")
    return Roster(data["table"], data["table_nonce"], len(members), members, 0, rules)


def sign_roster(identity: Identity, canonical: bytes) -> bytes:
    return identity.sign(ROSTER_DOMAIN + canonical)


def roster_signature_valid(cert: Certificate, canonical: bytes, sig: bytes) -> bool:
    return cert.verify(sig, ROSTER_DOMAIN + canonical)
