"""Signed messages: Ed25519 envelopes that stay verifiable outside TLS (§4.5).

Theory of operation
-------------------
TLS authenticates a link, but a fairness log must convince an auditor who never saw the
link. So every game message travels inside a ``signed`` frame::

    {"type": "signed", "v": 1, "body": <bin>, "sig": <bin 64>}

``body`` is the exact msgpack encoding of the *inner* message map, which has its own
``type`` and ``v`` and a ``from`` field (bin 32, the sender's peer id). ``sig`` is the
sender's Ed25519 signature over ``SIGNED_DOMAIN || body``. A receiver:

1. checks the outer frame's schema;
2. decodes ``body`` strictly (§4.3) and reads ``from``;
3. looks ``from`` up among the pinned identities and verifies ``sig`` (unknown sender or
   bad signature: reject);
4. only then checks the inner message against its registered schema.

The log keeps ``body`` and ``sig`` verbatim; re-running `open_signed` on them is the audit.
Which link a signed message arrived on is deliberately not part of this check: the order
layer decides what a message relayed by another peer means. The one exception is a
cost, not a trust, decision: a message of a type the caller names as link-authenticated
(acks, which are never logged) that arrives on its own signer's mutually authenticated
TLS link is handed up with ``verified=False``; its signature is checked (`verify`) only if
it is ever kept or shown as evidence (§4.5, §7.10).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from p2p.errors import ProtocolError
from p2p.identity import Identity, short_id, verify_signature
from p2p.schema import SIGNATURE, Bin, Message, Schemas
from p2p.wire import DEFAULT_LIMITS, Limits, decode_map, encode, frame_bytes, pack_canonical

SIGNED_DOMAIN = b"bandit-lan/v1/signed\x00"

MESSAGES: tuple[Message, ...] = (
    Message("signed", 1, "§4.5", {"body": Bin(min_len=1, max_len=1 << 20), "sig": SIGNATURE}),
)


@dataclass(frozen=True, init=False)
class SignedMessage:
    """A verified signed message: who signed it, the decoded inner map, the exact bytes."""

    sender: bytes
    inner: dict[str, Any]
    body: bytes
    sig: bytes
    verified: bool = True  # False: authenticated by its signer's TLS link only (see `verify`)

    def __init__(self, sender: bytes, inner: dict[str, Any], body: bytes, sig: bytes, verified: bool = True) -> None:
        # (frozen all the same: each field is set once, here; the generated __init__ sets
        # them one `object.__setattr__` call at a time, and one is made for every frame)
        fields = self.__dict__
        fields["sender"], fields["inner"], fields["body"], fields["sig"] = sender, inner, body, sig
        fields["verified"] = verified

    @property
    def type(self) -> str:
        return str(self.inner["type"])

    def verify(self, keys: Mapping[bytes, bytes]) -> bool:
        """True if the signature holds under the sender's key (checked now if it was
        deferred; a message that was opened normally was checked already)."""
        if self.verified:
            return True
        key = keys.get(self.sender)
        return key is not None and verify_signature(key, self.sig, SIGNED_DOMAIN + self.body)

    def frame(self) -> dict[str, Any]:
        """The ``signed`` frame that carries this message (for relaying or resending)."""
        return signed_frame(self.body, self.sig)

    @property
    def wire(self) -> bytes:
        """That frame encoded, length prefix included (§4.2): made once, however often it
        is sent (to every peer, and again when retransmitted)."""
        wire: bytes | None = self.__dict__.get("_wire")
        if wire is None:  # (kept beside the fields: `functools.cached_property` takes a lock each first time)
            wire = encoded_frame(self.body, self.sig)
            object.__setattr__(self, "_wire", wire)
        return wire


def sign(identity: Identity, inner: Mapping[str, Any]) -> tuple[bytes, bytes]:
    """(body, sig) for `inner`, which must carry ``from`` = this identity's peer id."""
    if inner.get("from") != identity.peer_id:
        raise ValueError("a signed message's 'from' must be the signer's peer id")
    body = encode(inner)
    return body, identity.sign(SIGNED_DOMAIN + body)


def signed_message(identity: Identity, inner: dict[str, Any]) -> SignedMessage:
    """`inner` signed by `identity`, as the `SignedMessage` its sender keeps (and sends)."""
    body, sig = sign(identity, inner)
    return SignedMessage(identity.peer_id, inner, body, sig)


def signed_frame(body: bytes, sig: bytes) -> dict[str, Any]:
    return {"type": "signed", "v": 1, "body": body, "sig": sig}


def encoded_frame(body: bytes, sig: bytes) -> bytes:
    """`encode_frame(signed_frame(body, sig))`, without its general walk: the keys are
    written in their canonical order (§4.3) and the values are plain bytes, str and int."""
    return frame_bytes(pack_canonical({"body": bytes(body), "sig": bytes(sig), "type": "signed", "v": 1}))


def unpinned(sender: bytes, keys: Mapping[bytes, bytes]) -> str:
    """A sender id no key is pinned for, in words: its short form (§3.2), or all of it
    when a pinned peer's short form is the same (the two differ past its first 10
    bytes: a changed byte there must not read as that peer's name)."""
    near = next((peer for peer in keys if short_id(peer) == short_id(sender)), None)
    if near is None:
        return short_id(sender)
    return f"{sender.hex()} (not {short_id(near)}'s peer id, though its short form reads the same)"


def open_signed(
    frame: Mapping[str, Any],
    keys: Mapping[bytes, bytes],
    schemas: Schemas,
    limits: Limits = DEFAULT_LIMITS,
    *,
    link: bytes | None = None,
    link_authenticated: frozenset[str] = frozenset(),
    checked: bool = False,
) -> SignedMessage:
    """Verify and decode a ``signed`` frame (§4.5); `keys` maps peer ids to raw
    Ed25519 public keys (`Mesh.keys`, or a roster's certificates for an audit). A
    message whose type is in `link_authenticated` and whose signer is `link` (the peer
    at the other end of the authenticated link it came on) is not verified now
    (``verified=False``). `checked`: the caller has checked the outer frame's schema
    already (a link does, for every frame it reads)."""
    if not checked:
        schemas.check(frame)
    if frame.get("type") != "signed":
        raise ProtocolError("§4.5", f"expected a 'signed' frame, got {str(frame.get('type'))[:64]!r}")
    body, sig = frame["body"], frame["sig"]
    inner = decode_map(body, limits, tree=False)  # (the tree is checked with the schema, below)
    sender = inner.get("from")
    if not isinstance(sender, bytes) or len(sender) != 32:
        raise ProtocolError("§4.5", "the signed body has no 'from' peer id (bin of 32 bytes)")
    key = keys.get(sender)
    if key is None:
        raise ProtocolError("§4.5", f"signed by {unpinned(sender, keys)}, who is not a pinned peer of this table")
    deferred = sender == link and inner["type"] in link_authenticated
    if not deferred and not verify_signature(key, sig, SIGNED_DOMAIN + body):
        kind = str(inner["type"])[:64]
        raise ProtocolError("§4.5", f"bad signature on {'an' if kind[:1] in ('a', 'e', 'i', 'o') else 'a'} {kind!r} "
                                    f"message from {short_id(sender)}")
    if inner["type"] == "signed":
        raise ProtocolError("§4.5", "a signed message cannot wrap another signed message")
    schemas.check(inner, tree=limits)
    return SignedMessage(sender, inner, body, sig, not deferred)
