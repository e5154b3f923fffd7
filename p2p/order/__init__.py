"""The agreed total order of signed messages (protocol.md §7).

`header`: what every message of the order carries and the hashes that chain it; `errors`:
the violations, each naming its section; `chains`: what a peer holds of each sender's
chains and the checks of §7.3 and §7.5 on them; `early`: the messages held until their
seq is due, and the bounds on them (§7.2); `orderer`: the live order of one peer
(its theory of operation is there); `replay`: the same order checked on a log (the
audit). Sans-I/O, all of it.
"""

from p2p.order.chains import (
    Delivered,
    Mark,
    PeerChain,
    SaltSchedule,
    StampOf,
    heads_violation,
    lamport_bound,
    other_seats,
    stamp_bound,
    unjustified,
)
from p2p.order.early import HELD_BYTES, MAX_HELD
from p2p.order.errors import (
    ChainBroken,
    Equivocation,
    ForeignGame,
    HeadsFalse,
    HeadsForked,
    HeadsInvalid,
    HeadsUnheld,
    MalformedHeader,
    OrderError,
    OutOfOrder,
    StampBackwards,
    StampUnjustified,
)
from p2p.order.header import (
    ACK_TYPE,
    HASH,
    HEAD,
    HEADER,
    MAX_STAMP,
    MESSAGES,
    MSG_TAG,
    SIDE_HEADER,
    SIDE_TAG,
    TIEBREAK_TAG,
    ZERO_HASH,
    Envelope,
    content_message,
    is_side,
    message_hash,
    side_genesis,
    side_message,
    tiebreak,
)
from p2p.order.orderer import (
    HEARTBEAT_EVERY,
    LEAVE_TYPE,
    RELAY_AFTER,
    RETRANSMIT_AFTER,
    SIDE_CONFIRM_AFTER,
    Orderer,
    Sign,
    absence_since,
    owes_nothing,
)
from p2p.order.replay import OrderReplay

__all__ = [
    "ACK_TYPE", "HASH", "HEAD", "HEADER", "HEARTBEAT_EVERY", "HELD_BYTES", "LEAVE_TYPE", "MAX_HELD", "MAX_STAMP", "MESSAGES",
    "MSG_TAG", "RELAY_AFTER", "RETRANSMIT_AFTER", "SIDE_CONFIRM_AFTER", "SIDE_HEADER", "SIDE_TAG", "TIEBREAK_TAG",
    "ZERO_HASH",
    "ChainBroken", "Delivered", "Envelope", "Equivocation", "ForeignGame", "HeadsFalse", "HeadsForked", "HeadsInvalid",
    "HeadsUnheld", "MalformedHeader", "Mark", "OrderError", "OrderReplay", "Orderer", "OutOfOrder", "PeerChain",
    "SaltSchedule", "Sign", "StampBackwards", "StampOf", "StampUnjustified",
    "absence_since", "content_message", "heads_violation", "is_side", "lamport_bound", "message_hash",
    "other_seats", "owes_nothing", "side_genesis", "side_message", "stamp_bound", "tiebreak", "unjustified",
]
