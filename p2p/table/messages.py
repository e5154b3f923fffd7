"""The table's content messages (protocol.md §9): schemas, and intents to and from the wire.

Every message here is a content message of the agreed order (§7.1 header added by the
`Orderer`), signed by its sender (§4.5). The seat of an intent is never on the wire: it
is the seat of the signer, so nobody can act for somebody else.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, Final

from engine import (
    CallBandit,
    DecideSwap,
    Discard,
    Draw,
    Exchange,
    Game,
    Intent,
    LookSwap,
    Peek,
    Ready,
    SkipPower,
    Snap,
    Spy,
    Swap,
    TakeDiscard,
)
from p2p.order import MAX_STAMP, content_message, side_message
from p2p.schema import Bin, Bool, Int, Kind, ListOf, Message, OneOf, Optional, Record, Str, Tuple
from p2p.wire import encode

ROUND = Int(1, 1 << 31)
TURN = Int(0, 1 << 31)
SLOT = Int(0, 255)
SEAT = Int(0, 15)
CARD = Int(0, 1 << 20)
B32 = Bin(size=32)
DIGEST = Str(min_len=64, max_len=64)
MAX_CARDS: Final = 4096
CHALLENGES: Final = ("not-a-card", "duplicate-card")
"""§9.10: what a seat saw fail in a reveal only it could see."""
STALLS: Final = ("keys", "beacon", "shuffle", "shares", "opening", "done", "turn", "peek", "acks")
UNORDERED_STALLS: Final = frozenset({"shares", "acks"})
"""Stalls whose claims are counted as delivered, whatever the table waits for there (§9.11)."""
"""§9.11: the protocol work a stall claim says is withheld (`turn`, `peek`: a player's
time held open at a table of two, §9.6)."""

SHARE = Record(
    {"need": Int(0, 1 << 31), "chain": B32, "position": Int(0, MAX_CARDS - 1), "share": B32, "e": B32, "s": B32}
)
SEALED = Record(
    {
        "need": Int(0, 1 << 31), "chain": B32, "position": Int(0, MAX_CARDS - 1),
        "u": B32, "v": B32, "e": B32, "s": B32, "r": B32,
    }
)
SEEN = Tuple((SEAT, Int(0, MAX_STAMP - 1), B32))  # (seat, sseq, hash): an sseq as §7.8 bounds it
# A round has one shuffle chain per deal and per reshuffle (R7), and nothing bounds how
# many reshuffles a long round makes (a 5-seat game on a short deck made 74); the frame
# limit (§4.2) bounds the message's size in any case.
MAX_CHAINS = 512
OPENING = Record(
    {
        "chain": B32,
        "step": Int(0, 15),
        "perm": ListOf(Int(0, MAX_CARDS - 1), 1, MAX_CARDS),
        "scalars": Bin(min_len=32, max_len=32 * MAX_CARDS),
        "salt": B32,
    }
)

# -- intents: wire type, engine class, fields (besides the seat) -------------------------

INTENTS: Final[dict[str, tuple[type, dict[str, Kind]]]] = {
    "ready": (Ready, {}),
    "bandit": (CallBandit, {"turn": TURN}),
    "draw": (Draw, {"turn": TURN}),
    "discard": (Discard, {"turn": TURN}),
    "exchange": (Exchange, {"turn": TURN, "slot": SLOT}),
    "take": (TakeDiscard, {"turn": TURN, "top": CARD, "slot": SLOT}),
    "peek": (Peek, {"turn": TURN, "slot": SLOT}),
    "spy": (Spy, {"turn": TURN, "owner": SEAT, "slot": SLOT}),
    "swap": (Swap, {"turn": TURN, "own_slot": SLOT, "owner": SEAT, "slot": SLOT}),
    "look-swap": (LookSwap, {"turn": TURN, "own_slot": SLOT, "owner": SEAT, "slot": SLOT}),
    "decide": (DecideSwap, {"turn": TURN, "swap": Bool()}),
    "skip-power": (SkipPower, {"turn": TURN}),
    "snap": (Snap, {"top": CARD, "owner": SEAT, "slot": SLOT, "give": Optional(SLOT), "seen": ListOf(SEEN, 0, 16)}),
}
WIRE_NAME: Final = {cls: name for name, (cls, _) in INTENTS.items()}

MESSAGES: tuple[Message, ...] = (
    content_message("keys", "§9.2", {"key": B32, "e": B32, "s": B32}),
    content_message("beacon.commit", "§9.3", {"round": ROUND, "commit": B32}),
    content_message("beacon.reveal", "§9.3", {"round": ROUND, "nonce": B32}),
    content_message(
        "shuffle",
        "§9.3",
        {"round": ROUND, "chain": B32, "step": Int(0, 15), "deck": Bin(min_len=64, max_len=64 * MAX_CARDS), "commit": B32,
         "proof": Bin(min_len=32 * 9, max_len=32 * (4 * MAX_CARDS + 5))},
    ),
    side_message(
        "shares", "§9.4", {"round": ROUND, "items": ListOf(SHARE, 0, 256), "sealed": Optional(ListOf(SEALED, 1, 256))}
    ),
    *(content_message(name, "§9.5", {"round": ROUND, **fields}) for name, (_, fields) in INTENTS.items()),
    content_message("timeout", "§9.6", {"round": ROUND, "what": OneOf(frozenset({"turn", "peek"})), "turn": TURN}),
    content_message("opening", "§9.7", {"round": ROUND, "steps": ListOf(OPENING, 1, MAX_CHAINS), "digest": DIGEST}),
    content_message("challenge", "§9.10", {"round": ROUND, "card": CARD, "check": OneOf(frozenset(CHALLENGES))}),
    content_message(
        "stalled",
        "§9.11",
        {"round": Int(0, 1 << 31), "what": OneOf(frozenset(STALLS)), "need": Int(0, 1 << 31), "seats": ListOf(SEAT, 1, 15)},
    ),
    content_message("done", "§9.8", {"digest": DIGEST, "totals": ListOf(Int(-(1 << 31), 1 << 31), 2, 16)}),
    content_message("leave", "§9.8", {"reason": Str(max_len=200)}),
)
"""Every §9 message type; register them with the mesh's schemas (with `p2p.order.MESSAGES`)."""

TYPES: Final = frozenset(m.type for m in MESSAGES)


def intent_payload(intent: Intent, round: int, turn: int) -> dict[str, Any]:
    """The §9.5 message for `intent` (its seat is the signer's, so it is left out)."""
    name = WIRE_NAME[type(intent)]
    payload: dict[str, Any] = {"type": name, "v": 1, "round": round}
    for field in INTENTS[name][1]:
        if field == "turn":
            payload["turn"] = turn
            continue
        if field == "seen":  # evidence the table adds (§9.5), not part of the intent
            continue
        value = getattr(intent, field)
        if value is not None:
            payload[field] = value
    return payload


def intent_of(message: Mapping[str, Any], seat: int) -> Intent:
    """The engine intent a (schema-checked) §9.5 message asks for, by the signer's `seat`."""
    cls, fields = INTENTS[message["type"]]
    args = {f: message.get(f) for f in fields if f not in ("turn", "seen")}
    return cls(seat=seat, **args)  # type: ignore[no-any-return]


STATE_TAG: Final = b"bandit-lan/v1/state\x00"


def state_digest(engine: Game) -> str:
    """The `digest` of `opening` and `done` (§9.1): SHA-256, in lowercase hex, over the
    domain tag and the canonical encoding (§4.3) of the engine's public state."""
    return hashlib.sha256(STATE_TAG + encode(engine.public_state())).hexdigest()
