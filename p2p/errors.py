"""Typed protocol errors: every rejection names the protocol section it enforces and the peer.

A `ProtocolError` is what any layer of `p2p/` raises when input from the network breaks
the contract in protocol.md. It carries the section (for example "§4.2"), a specific
human reason, and, once known, the peer it came from (a short fingerprint or an address).
Callers that learn the peer later attach it with `with_peer`, which returns a copy.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

E = TypeVar("E", bound="ProtocolError")


def printable(text: str) -> str:
    """Text from a peer made safe to print (§4.6): a control or formatting character
    (an escape sequence, a bell, a right-to-left override) is shown as its code, so a
    peer's words cannot move the cursor, retitle the terminal or reorder a line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}" for c in text)


def said_of(exc: BaseException) -> str:
    """What an error of the system says, as a person reads it: an OS error's words without
    its number ("connection reset by peer", not "[Errno 104] Connection reset by peer")."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[:1].lower() + exc.strerror[1:]
    return str(exc) or type(exc).__name__


class ProtocolError(Exception):
    """Input that breaks protocol.md; `section` is the rule, `reason` says exactly how."""

    def __init__(self, section: str, reason: str, peer: str | None = None) -> None:
        super().__init__(section, reason, peer)
        self.section = section
        self.reason = reason
        self.peer = peer

    def with_peer(self: E, peer: str) -> E:
        """The same error, attributed to `peer` (kept if already attributed)."""
        if self.peer is not None:
            return self
        clone = self.__class__.__new__(self.__class__)
        clone.__dict__.update(self.__dict__)
        Exception.__init__(clone, self.section, self.reason, peer)
        clone.peer = peer
        return clone

    def __str__(self) -> str:
        who = f" (peer {self.peer})" if self.peer else ""
        return f"{self.section}: {self.reason}{who}"


class SchemaError(ProtocolError):
    """A frame whose fields do not match its registered schema (§4.4 or the schema's section)."""

    def __init__(self, section: str, field: str, expected: str, got: str, peer: str | None = None) -> None:
        super().__init__(section, f"field {field!r}: expected {expected}, got {got}", peer)
        self.field = field
        self.expected = expected
        self.got = got


class FingerprintMismatch(ProtocolError):
    """A TLS peer presented a certificate other than the pinned one (§4.1)."""

    def __init__(self, expected: str, presented: str | None, peer: str | None = None) -> None:
        shown = presented if presented is not None else "no certificate"
        super().__init__(
            "§4.1",
            f"expected the certificate with fingerprint {expected}, but the peer presented {shown}",
            peer,
        )
        self.expected = expected
        self.presented = presented


class JoinRefused(ProtocolError):
    """The host politely refused a join (§6.4); `code` is the machine-readable reason."""

    def __init__(self, code: str, detail: str, peer: str | None = None) -> None:
        detail = printable(detail)
        super().__init__("§6.4", f"refused ({code}): {detail}", peer)
        self.code = code
        self.detail = detail


class OtherRelease(ProtocolError):
    """The table speaks another protocol version (§6.2). `hello` is the joiner's hello,
    sent all the same before it leaves: the host refuses it (`version`, §6.4) and tells
    its player whom it turned away, and why."""

    def __init__(self, reason: str, hello: dict[str, Any], peer: str | None = None) -> None:
        super().__init__("§6.2", reason, peer)
        self.hello = hello


class TableClosed(ProtocolError):
    """The host closed its table before the game began (§6.5): a choice, said plainly."""

    def __init__(self, host: str, peer: str | None = None) -> None:
        super().__init__("§6.5", f"{host} closed the table", peer)


class HostGone(ProtocolError):
    """The host's table no longer answers while this guest waits in its lobby (§6.5): it
    closed without a word, or its program stopped or crashed. Said plainly; where to
    look next is the command line's to say (`cli.lobby_common.explain`: it knows whether
    the table was found by name)."""

    def __init__(self, host: str, table: str, where: str, detail: str = "", peer: str | None = None) -> None:
        answered = f" ({detail})" if detail else ""
        super().__init__("§6.5", f"lost the host: {host}'s table {table!r} at {where} no longer answers{answered}: "
                                 "it closed, or its program stopped", peer)


class StartFailed(ProtocolError):
    """Another member's lobby ended while the roster was being signed, and it said why
    (``lobby.fail``, §6.6): the game cannot start at this table."""

    def __init__(self, member: str, why: str) -> None:
        why = printable(why)  # (its own words name whom it blames; `member` only passed them on)
        super().__init__("§6.6", f"the game will not start: {why} (told by {member})")
        self.why = why


class NotReached(ProtocolError):
    """A seat taken back while the roster was being signed cannot reach a member whose
    signature it lacks (§11.3): not known to be over (the member may be away for a
    while), so the seat may try again."""


class RemoteError(ProtocolError):
    """The other end reported a violation of ours in an ``error`` frame (§4.6)."""

    def __init__(self, section: str, reason: str, peer: str | None = None) -> None:
        reason = printable(reason)
        super().__init__(section, f"the peer reported: {reason}", peer)  # (`section` is printable by its schema)
        self.remote_reason = reason

    def closed_note(self, name: str) -> str:
        """The note of the link `name` closed with this frame: its claim, in its own words
        (filed under §4.6, the section of the ``error`` frame, never under the one it names)."""
        return CLOSED_SAYING.format(name=name, words=f"{self.section}: {self.remote_reason}")


CLOSED_SAYING = '{name} closed the link saying: "{words}" (its own words, in an error frame, §4.6)'
"""How a log notes a link a peer closed with an ``error`` frame (`RemoteError.closed_note`)."""
_CLOSED_SAYING = re.compile(r'(?s)(?P<name>.+?) closed the link saying: "(?P<words>.*)" \(its own words, in an error frame, §4\.6\)')
_REPORTED = re.compile(r"(?s)link to (?P<name>.+?) closed: (?:(?P<section>§\S+): )?the peer reported: (?P<said>.*?)(?: \(peer [^)]*\))?")
"""How older logs noted it: under the section the peer named, as if the writer accused it."""


def closed_saying(text: str, section: str | None = None) -> str | None:
    """A note's words if they tell of a link its peer closed with an ``error`` frame
    (`CLOSED_SAYING`, or the older "link to mal closed: §8.5: the peer reported: …", filed
    under that `section`), told as `CLOSED_SAYING` tells it; None for any other note. Such a note is the peer's
    claim, quoted: no accusation by the log's writer."""
    if _CLOSED_SAYING.fullmatch(text):
        return text
    if (older := _REPORTED.fullmatch(text)) is not None:
        return CLOSED_SAYING.format(name=older["name"], words=f"{older['section'] or section}: {older['said']}")
    return None


class PeerLeft(Exception):
    """The other end closed the link, with a ``bye`` frame or simply by closing (§4.6)."""

    def __init__(self, reason: str, clean: bool, said: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.clean = clean
        self.said = said  # (a ``bye``: its own words, printable)
