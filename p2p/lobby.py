"""The lobby: admitting players, keeping the roster, and starting a game (§6).

Theory of operation
-------------------
Two sans-I/O state machines, `HostLobby` (the first peer, seat 0, itself a player) and
`GuestLobby` (every joiner), and a third for a seat taken back while R was being signed
(`SigningAgain`, below). None does I/O or reads a clock: they are fed decoded
messages, link events, probe answers and fresh random nonces, and return *actions*
(`SendTo`, `Broadcast`, `Pin`, `Unpin`, `Redial`, `Probe`, `Signing`) and *outcomes*
(`RosterChanged`, `TurnedAway`, `Started`) for a runner to carry out
(`p2p.lobby_runner` with trio; the tests drive them directly too).

Admission (§6.2, §6.3) happens at the front door, a TLS connection the joiner makes
without a client certificate: host ``lobby.offer`` → joiner ``lobby.hello`` → host
``lobby.welcome`` or ``lobby.refuse``. `HostLobby.on_hello` validates fully before it
changes anything: protocol version, certificate, join signature, table code, then the
polite refusals (full, started, duplicate identity, name taken). A joiner that finds
another protocol version in the offer sends its hello all the same (`OtherRelease`), so
that the host, refusing it, can tell its player whom it turned away (`TurnedAway`). A
hello from a member of R, once the roster is frozen, is its player coming back to the
table: it is told that its game is under way (`in-game`: its seat is taken back with its
journal, §11.3) or over (`game-over`), not that the table is full.

The mesh (§6.5): on admission every member already seated dials the newcomer (lower
seat dials higher), after pinning it from the host's ``lobby.roster``; the newcomer pins
everybody from its welcome and only then accepts links, so no handshake races a pin. A
link that drops before the start is dialled again by its dialer (`Redial`, up to
`REDIALS` times); a guest that awaits the host's link asks the host's front door whether
the table is still there (`Probe`), so a host that is gone is known at once. Meanwhile
each side's `RosterChanged` names the members being reconnected, for its screen.

Start (§6.6): when the table is full, or when the host says so with at least two
players, and every guest has reported (``lobby.links``) that it holds a link to every
other member of the current roster, the host freezes the roster into R and sends
``lobby.start`` with its roster signature. A pair of members that cannot link costs the
later joiner of the two its seat (the host tells it with ``lobby.refuse`` reason
``unreachable``), so nobody only some can reach takes a seat and ends the table at
signing. A guest that never reports would hold the start for good: the host lets it go
`REPORT_WAIT` seconds after the roster took its version (`unreported`). Each guest checks
that R is exactly the roster it was shown, signs it and broadcasts ``lobby.sign``. A peer
has started when it holds a valid signature of R from every member; the game id is
SHA-256 over R. Just before its signature goes out, a peer's runner writes its seat's
journal (`Signing`, §11.3): a seat whose process stops from then on can come back.
`SigningAgain` is how it does: taken back from its journal alone (no log: its game had
not begun), it signs R again, sends its signature on each link that comes up, and
gathers the others', which they send on each link that comes up, from their lobbies or
their games. A link that drops meanwhile is dialled again as before the start, and
every link that comes up carries again the message with this peer's signature
(``lobby.start`` or ``lobby.sign``; the game sends it too, `LobbyResult.signed`): one
written into the link that dropped may have gone down with it. A peer whose lobby ends
while R is being signed (a member left unsigned, a dial failed, `SIGN_WAIT` ran out, its
own player quit) tells every member why in ``lobby.fail`` (`failure`) before its goodbye, and one told so
ends its own lobby at once (`StartFailed`): a member that waits for the dial of one
whose process died would otherwise learn only from its own `SIGN_WAIT`. No member gains
a power by it: any member can keep the game from starting by not signing.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.narrate import listed
from p2p.admission import code_key, host_proof, join_transcript, joiner_proof
from p2p.errors import HostGone, JoinRefused, NotReached, OtherRelease, ProtocolError, StartFailed, TableClosed, printable
from p2p.identity import Certificate, Identity, fingerprint_matches, short_id
from p2p.names import bot_namesake, problem_of, reads_as_a_bot, refusal, written_in
from p2p.roster import (
    CERT, DEFAULT_RULES, MAX_SEATS, MIN_SEATS, PLAYER_NAME, PROTOCOL_VERSION, TABLE_NAME, WIRE_ROSTER, Member,
    Roster, TableRules,
    check_seating, game_id_of, other_release, parse_canonical, roster_signature_valid, sign_roster,
)
from p2p.schema import NONCE, PEER_ID, SIGNATURE, Bin, Bool, Int, ListOf, Message, OneOf, Optional, Str

MESH_WAIT = 30.0  # seconds a guest waits for a link from a member that dials it (§6.6)
REPORT_WAIT = 120.0  # seconds the host waits for a guest's links report on the roster as it stands (§6.6)
PROBE_EVERY = 2.0  # seconds between a guest's probes of the host's front door while it awaits the host's link (§6.6)
SIGN_WAIT = 30.0  # seconds a peer waits, from the roster frozen, for every member's roster signature (§6.6)
BEAT_EVERY = 1.0  # seconds between the `lobby.beat` a member sends on each of its links (§6.6)
REDIALS = 3  # times a member redials one it dials whose link dropped before the start, before giving up (§6.6)
REFUSALS = frozenset({"full", "started", "bad-code", "version", "duplicate", "name-taken", "bad-name", "unreachable",
                      "in-game", "game-over"})
WRONG_CODE = "wrong table code"  # the `detail` of a bad-code refusal for a code given but wrong
WHY_LEN = 200  # characters of a `lobby.fail`'s reason at most (§6.6)
DETAIL_LEN = 200  # characters of a `lobby.refuse`'s detail at most (§6.2)
# A joiner's name as its hello gives it: any text of a name's length, so that a name that
# breaks a rule of §6.4 (a control or format character, blank) is refused `bad-name`,
# saying which rule, not as a malformed hello.
HELLO_NAME = Str(max_len=PLAYER_NAME.max_len)

MESSAGES: tuple[Message, ...] = (
    Message("lobby.offer", 1, "§6.2", {
        "proto": Int(0, 65535), "table": TABLE_NAME, "host": PLAYER_NAME, "seats": Int(MIN_SEATS, MAX_SEATS),
        "free": Int(0, MAX_SEATS), "nonce": NONCE, "code": Bool(),
    }),
    Message("lobby.hello", 1, "§6.2", {
        "proto": Int(0, 65535), "name": HELLO_NAME, "cert": CERT, "nonce": NONCE, "port": Int(1, 65535),
        "sig": SIGNATURE, "proof": Optional(Bin(size=32)),
    }),
    Message("lobby.welcome", 1, "§6.2", {"seat": Int(1, MAX_SEATS - 1), "roster": WIRE_ROSTER, "proof": Optional(Bin(size=32))}),
    Message("lobby.refuse", 1, "§6.4", {"reason": OneOf(REFUSALS), "detail": Str(max_len=DETAIL_LEN)}),
    Message("lobby.roster", 1, "§6.5", {"roster": WIRE_ROSTER}),
    Message("lobby.start", 1, "§6.6", {"roster": Bin(min_len=1, max_len=65536), "sig": SIGNATURE}),
    Message("lobby.sign", 1, "§6.6", {"game": Bin(size=32), "sig": SIGNATURE}),
    Message("lobby.links", 1, "§6.6", {"version": Int(0, 1 << 32), "unreachable": ListOf(PEER_ID, max_len=MAX_SEATS - 2)}),
    Message("lobby.beat", 1, "§6.6", {}),
    Message("lobby.fail", 1, "§6.6", {"game": Bin(size=32), "why": Str(max_len=WHY_LEN)}),
)
BEAT: dict[str, Any] = {"type": "lobby.beat", "v": 1}


# -- actions and outcomes -----------------------------------------------------------------


@dataclass(frozen=True)
class SendTo:
    peer: bytes
    message: dict[str, Any]


@dataclass(frozen=True)
class Broadcast:
    message: dict[str, Any]


@dataclass(frozen=True)
class Pin:
    """Trust `member`'s certificate on the mesh; `dial` says this side connects (§6.5)."""

    member: Member
    dial: bool


@dataclass(frozen=True)
class Unpin:
    peer: bytes


@dataclass(frozen=True)
class Redial:
    """Connect to pinned `peer` again: a link this side dials dropped before the game (§6.6)."""

    peer: bytes


@dataclass(frozen=True)
class Probe:
    """Ask whether the host's table still answers at `address`, its front door (§6.6):
    `at_once` (a guest's link to the host ended) or after `PROBE_EVERY` seconds (it has
    just been welcomed), then every `PROBE_EVERY` seconds while the guest awaits the
    host's link. The runner tells the lobby each answer (`GuestLobby.on_probe`)."""

    peer: bytes
    address: tuple[str, int]
    at_once: bool


@dataclass(frozen=True)
class Left:
    """A member gone from the roster, and why, in words that follow its name ("left the
    table", "lost the connection: …"): for screens, never for the protocol."""

    name: str
    why: str

    def sentence(self) -> str:
        return f"{self.name} {self.why}."


@dataclass(frozen=True)
class TurnedAway:
    """A joiner the host refused at its front door for speaking another protocol version
    (§6.4 `version`), for a wrong table code (`bad-code`, §6.3), for a name that reads as
    a seated player's (`name-taken`, §6.4) or that breaks the rules of names (`bad-name`,
    §6.4), as its hello names it: for the host's screen and log, never for the protocol."""

    name: str
    address: str
    proto: int  # the protocol number its hello named
    reason: str = "version"  # the refusal (§6.4): "version", "bad-code" (the code it gave was wrong), "name-taken" or "bad-name"
    peer: bytes | None = None  # its peer id, once its join signature verified (not another release)
    why: str = ""  # a name taken or refused: whose seat it reads as, or what is wrong with it (without a section)

    def sentence(self, more: int = 0) -> str:
        """What the host's player reads; `more`: others turned away since the last line."""
        since = f" ({more} more turned away since)" if more else ""
        if self.reason == "bad-code":
            return (f"{printable(self.name)} ({self.address}) could not join: the table code they gave is wrong "
                    f"(tell them the code again){since}.")
        if self.reason == "bad-name":  # (its why quotes the name, which may show nothing by itself)
            return f"A player at {self.address} could not join: {self.why}{since}."
        if self.reason == "name-taken":
            return f"{printable(self.name)} ({self.address}) could not join under that name: {self.why}{since}."
        return (f"{printable(self.name)} ({self.address}) could not join: they run bandit-lan protocol {self.proto} "
                f"and this table {PROTOCOL_VERSION}; the same release is needed on both machines{since}.")


@dataclass(frozen=True)
class RosterChanged:
    """The roster as it now stands, for screens and advertisements: also sent, with the
    same roster, when the members being reconnected, or linking, change."""

    roster: Roster
    left: tuple[Left, ...] = ()  # members this change removed
    reconnecting: frozenset[bytes] = frozenset()  # members whose link dropped and is being made again (§6.6)
    linking: frozenset[bytes] = frozenset()  # guests the host's start waits for: links not all reported (§6.6)


@dataclass(frozen=True)
class LobbyResult:
    """A started game: the frozen roster, R, every member's signature of R, the game id."""

    game_id: bytes
    roster: Roster
    canonical: bytes
    signatures: tuple[bytes, ...]  # by seat
    seat: int  # this peer's seat

    def signed(self) -> dict[str, Any]:
        """The message that carried this peer's roster signature (§6.6), sent again over
        every link that comes up, in the game too: one written into a link that dropped
        may have gone down with it, and a member still signing waits for it."""
        return signature_message(self.seat, self.canonical, self.game_id, self.signatures[self.seat])


@dataclass(frozen=True)
class Signing:
    """This peer is about to send its signature of R (§6.6): its seat's journal is
    written now, before the signature goes out, so that a seat whose process stops from
    here on can take its seat back (§11.3). A runner's `on_signing` carries it out."""

    game_id: bytes
    roster: Roster  # R's roster, with the addresses this peer reaches the members on
    canonical: bytes  # R
    seat: int  # this peer's seat


@dataclass(frozen=True)
class Started:
    result: LobbyResult


Action = SendTo | Broadcast | Pin | Unpin | Redial | Probe | RosterChanged | TurnedAway | Signing | Started


def refuse(reason: str, detail: str) -> dict[str, Any]:
    """``lobby.refuse``; a `detail` too long loses characters from its middle, so that
    its end, the rule it names, stays (two long names quoted in a `name-taken`)."""
    if len(detail) > DETAIL_LEN:
        detail = f"{detail[:DETAIL_LEN // 2 - 1]}…{detail[-DETAIL_LEN // 2:]}"
    return {"type": "lobby.refuse", "v": 1, "reason": reason, "detail": detail}


def back_at_the_table(member: Member, game_over: bool) -> dict[str, Any]:
    """The refusal of a hello from `member`, a member of R, once the roster is frozen
    (§6.4): its game is under way (`in-game`: it takes its seat back, §11.3) or over
    (`game-over`); no new game starts at this table."""
    seat = f"seat {member.seat + 1}"
    if game_over:
        return refuse("game-over", f"the game {member.name} played at this table ({seat}) is over")
    return refuse("in-game", f"{member.name} holds {seat} in the game this table is playing")


def _check_name(name: str, what: str, max_len: int) -> None:
    """A name this peer gives itself (or its table) must pass the rules of §6.4."""
    if (problem := problem_of(name, max_len)) is not None:
        raise ValueError(f"the {what} name {name!r} {problem} (§6.4)")


def _quoted(name: str, limit: int = 60) -> str:
    """`name` quoted, its invisible characters shown as codes, cut to `limit` characters
    (24 of them may take 240)."""
    shown = repr(name)
    return shown if len(shown) <= limit else f"{shown[:limit - 2]}…{shown[0]}"


def name_taken(name: str, seated: Member) -> str:
    """Why a joiner called `name` is refused beside the `seated` player named alike (§6.4)."""
    if name == seated.name:
        return f"{seated.name!r} is already seated (seat {seated.seat + 1}) (§6.4)"
    return (f"{seated.name!r} is already seated (seat {seated.seat + 1}) and {name!r}{written_in(name, seated.name)} "
            "reads the same: names must differ by more than case, spacing or lookalike letters (§6.4)")


def bot_namesake_taken(name: str, namesake: str) -> str:
    """Why a joiner called `name` is refused beside `namesake`, a bot's name or a person's
    of the same first word (`bot_namesake`)."""
    bot = "a bot" if reads_as_a_bot(namesake) else "a person"
    return (f"{_quoted(name)} shares its first word with {_quoted(namesake)}, {bot} at this table: a person and a bot "
            "must not, or nobody could tell them apart (§6.4)")


def check_names(roster: Roster, host: str) -> None:
    """A guest's check of a roster from its `host` against the name rules of §6.4: the
    host's door (`refusal`) must have let in each member beside the seats before it, and
    the table's name must pass them too. (A roster's validity, `check_seating`, compares
    names only as they are after NFKC and case folding, so that rosters and logs of
    earlier games stay valid.)"""
    if (problem := problem_of(roster.table, TABLE_NAME.max_len)) is not None:
        raise ProtocolError("§6.4", f"the host names its table {roster.table!r}, and that name {problem}", host)
    names = [m.name for m in roster.members]
    for m in roster.members:
        if (no := refusal(m.name, names[:m.seat], PLAYER_NAME.max_len)) is None:
            continue
        if no.reason == "name-taken":
            earlier = roster.members[no.seat]
            raise ProtocolError("§6.4", f"the host seats {earlier.name!r} (seat {earlier.seat + 1}) and "
                                        f"{m.name!r}{written_in(m.name, earlier.name)} (seat {m.seat + 1}), names "
                                        "that read the same: names must differ by more than case, spacing or "
                                        "lookalike letters", host)
        raise ProtocolError("§6.4", f"the host seats {m.name!r} (seat {m.seat + 1}), and that name {no.problem}", host)


def signature_message(seat: int, canonical: bytes, game_id: bytes, sig: bytes) -> dict[str, Any]:
    """What carries seat `seat`'s signature `sig` of R (§6.6): the host's ``lobby.start``
    (with R), a guest's ``lobby.sign`` (with the game id)."""
    if seat == 0:
        return {"type": "lobby.start", "v": 1, "roster": canonical, "sig": sig}
    return {"type": "lobby.sign", "v": 1, "game": game_id, "sig": sig}


def fail_message(game_id: bytes, why: str) -> dict[str, Any]:
    """``lobby.fail``: this peer's lobby ended while R, of game `game_id`, was being
    signed, for the reason `why` (§6.6); the game cannot start."""
    if len(why) > WHY_LEN:
        why = why[:WHY_LEN - 1] + "…"
    return {"type": "lobby.fail", "v": 1, "game": game_id, "why": why}


def links_report(version: int, unreachable: tuple[bytes, ...] = ()) -> dict[str, Any]:
    """A guest's word to the host on roster `version` (§6.6): with nothing `unreachable`,
    it holds a link to every other member; else it cannot link with those."""
    return {"type": "lobby.links", "v": 1, "version": version, "unreachable": list(unreachable)}


# -- the parts both roles share: redials, the screens' news, roster signatures ------------


@dataclass
class _Redials:
    """How often this side dialled each member again in the lobby (§6.6)."""

    count: dict[bytes, int] = field(default_factory=dict)

    def take(self, peer: bytes, *, dropped: bool, was_linked: bool) -> bool:
        """Whether to dial `peer` again: its link was up and `dropped` (it ended without a
        goodbye or a protocol error), and fewer than `REDIALS` redials were spent on it."""
        if not (dropped and was_linked) or self.count.get(peer, 0) >= REDIALS:
            return False
        self.count[peer] = self.count.get(peer, 0) + 1
        return True


_News = tuple[frozenset[bytes], frozenset[bytes]]


def _news(lobby: HostLobby | GuestLobby) -> _News:
    """What the screens show beside the roster: who is reconnecting, who is linking."""
    return lobby.reconnecting, lobby.linking


def _told(lobby: HostLobby | GuestLobby, before: _News) -> list[Action]:
    """The screens' news (`RosterChanged`) if it is no longer what it was `before`."""
    now = _news(lobby)
    if now == before or lobby.roster is None:
        return []
    return [RosterChanged(lobby.roster, (), *now)]


@dataclass
class _Signatures:
    me: Identity
    canonical: bytes | None = None
    roster: Roster | None = None
    game_id: bytes | None = None
    valid: dict[bytes, bytes] = field(default_factory=dict)
    early: dict[bytes, tuple[bytes, bytes]] = field(default_factory=dict)
    failed_early: dict[bytes, tuple[bytes, str]] = field(default_factory=dict)  # `lobby.fail`s kept until R is known
    done: bool = False

    def freeze(self, roster: Roster, also: Mapping[bytes, tuple[bytes, bytes]] | None = None) -> bytes:
        """Fix R and sign it; signatures kept from before (and `also`, the host's) are
        checked first, so a bad one raises with nothing changed."""
        canonical = roster.canonical()
        game_id = game_id_of(canonical)
        also = also or {}
        early = {peer: signed for peer, signed in self.early.items() if roster.member(peer) is not None}
        for peer, (game, sig) in [*early.items(), *also.items()]:  # (a member since gone signed nothing here)
            self._check(roster, canonical, game_id, peer, game, sig)
        kept = {**early, **also}
        self.roster, self.canonical, self.game_id = roster, canonical, game_id
        self.valid[self.me.peer_id] = sign_roster(self.me, canonical)
        self.valid.update((peer, sig) for peer, (_, sig) in kept.items())
        self.early.clear()
        self.failed_early = {peer: failed for peer, failed in self.failed_early.items()
                             if roster.member(peer) is not None and failed[0] == game_id}
        return self.valid[self.me.peer_id]

    def fail(self, peer: bytes, game: bytes, why: str) -> None:
        """A member's `lobby.fail` (§6.6): it ends this lobby (`StartFailed`) if it names
        the game of R, even with every signature held: its sender is leaving, and a
        runner reads what came with the last signature before the game begins. One that
        comes before R is known is kept (`failed_early`)."""
        if self.roster is None:
            self.failed_early.setdefault(peer, (game, why))
            return
        member = self.roster.member(peer)
        if member is None:
            raise ProtocolError("§6.6", "a lobby.fail from a peer who is not in the roster", short_id(peer))
        if game != self.game_id:
            raise ProtocolError("§6.6", "lobby.fail names another game id (the peer signed a different roster)",
                                member.cert.short)
        raise StartFailed(member.name, why)

    def fail_kept(self) -> None:
        """End this lobby if a member failed before R was known here (`fail`): a kept
        `lobby.fail` naming another game was dropped at the freeze (its sender's own
        signature says it signed another R, and it is leaving)."""
        for peer, (game, why) in self.failed_early.items():
            self.fail(peer, game, why)

    def add(self, peer: bytes, game: bytes, sig: bytes) -> None:
        if self.canonical is None or self.roster is None or self.game_id is None:
            if peer in self.early and self.early[peer] != (game, sig):
                raise ProtocolError("§6.6", "two different roster signatures from one peer", short_id(peer))
            self.early[peer] = (game, sig)
            return
        self._check(self.roster, self.canonical, self.game_id, peer, game, sig)
        self.valid[peer] = sig

    def _check(self, roster: Roster, canonical: bytes, game_id: bytes, peer: bytes, game: bytes, sig: bytes) -> None:
        member = roster.member(peer)
        if member is None:
            raise ProtocolError("§6.6", "a roster signature from a peer who is not in the roster", short_id(peer))
        if game != game_id:
            raise ProtocolError("§6.6", "lobby.sign names another game id (the peer signed a different roster)", short_id(peer))
        if not roster_signature_valid(member.cert, canonical, sig):
            raise ProtocolError("§6.6", f"{member.name}'s roster signature does not verify", short_id(peer))
        if peer in self.valid and self.valid[peer] != sig:
            raise ProtocolError("§6.6", "two different roster signatures from one peer", short_id(peer))

    def overdue(self, waited: float) -> ProtocolError:
        """The end of a lobby whose roster was not signed by everyone `waited` seconds
        after it was frozen (§6.6): it names the members whose signature is missing."""
        missing = self.missing()
        names = listed([m.name for m in missing])
        return ProtocolError("§6.6", f"{names} did not sign the roster within {waited:.0f} s",
                             ", ".join(m.cert.short for m in missing))

    def missing(self) -> list[Member]:
        """The members of R whose signature is not held here."""
        assert self.roster is not None
        return [m for m in self.roster.members if m.peer_id not in self.valid]

    def outcome(self) -> list[Action]:
        if self.done or self.roster is None or self.canonical is None or self.game_id is None:
            return []
        if len(self.valid) < len(self.roster.members):
            return []
        self.done = True
        me = self.roster.member(self.me.peer_id)
        assert me is not None
        sigs = tuple(self.valid[m.peer_id] for m in self.roster.members)
        return [Started(LobbyResult(self.game_id, self.roster, self.canonical, sigs, me.seat))]


def _left_unsigned(member: Member, why: str) -> ProtocolError:
    """A member whose roster signature is still due is gone (§6.6): this lobby ends."""
    how = "" if why == "left the table" else f" ({why})"
    return ProtocolError("§6.6", f"{member.name} left before signing the roster{how}", member.cert.short)


class _SignsRoster:
    """What both roles share once the roster is frozen (§6.6)."""

    _sigs: _Signatures
    _redials: _Redials
    _linked: set[bytes]

    @property
    def signing(self) -> bool:
        """The roster is frozen and being signed (§6.6)."""
        return self._sigs.roster is not None

    def signed_by(self, peer: bytes) -> bool:
        """Whether `peer`'s signature of R is held here."""
        return peer in self._sigs.valid

    @property
    def _seat_in_r(self) -> int:
        """This peer's seat in R, the roster being signed."""
        assert self._sigs.roster is not None
        me = self._sigs.roster.member(self._sigs.me.peer_id)
        assert me is not None
        return me.seat

    def _signed(self) -> dict[str, Any]:
        """The message that carried this peer's signature of R (`signature_message`)."""
        assert self._sigs.canonical is not None and self._sigs.game_id is not None
        return signature_message(self._seat_in_r, self._sigs.canonical, self._sigs.game_id,
                                 self._sigs.valid[self._sigs.me.peer_id])

    def _sign(self, roster: Roster, also: Mapping[bytes, tuple[bytes, bytes]] | None = None) -> list[Action]:
        """Freeze `roster` into R and sign it (`_Signatures.freeze`): the journal is
        written (`Signing`), then the signature goes to every member."""
        self._sigs.freeze(roster, also)
        assert self._sigs.game_id is not None and self._sigs.canonical is not None
        return [Signing(self._sigs.game_id, roster, self._sigs.canonical, self._seat_in_r), Broadcast(self._signed())]

    def _signing_link_up(self, peer: bytes) -> list[Action]:
        """A link is up while R is being signed: it carries this peer's signature again,
        which may have gone down with the link before (§6.6); the other side ignores it if
        it holds it."""
        self._linked.add(peer)
        return [SendTo(peer, self._signed())]

    def _signing_link_lost(self, member: Member, why: str, *, dropped: bool) -> list[Action]:
        """Member `member` lost its link to this peer while R is being signed
        (§6.6). One that signed is needed no more here: its link, even a goodbye, is the
        game's (a peer whose lobby is over may leave before any game, `--lobby-only`). One
        whose signature is still due ends the lobby if it left or broke the protocol; if
        its link dropped, the lobby makes it again (the lower seat dials, `REDIALS` times
        at most; a dial that fails ends the lobby) and awaits the signature, within
        `SIGN_WAIT`."""
        if member.peer_id in self._sigs.valid:
            self._linked.discard(member.peer_id)
            return []
        redial = member.seat > self._seat_in_r
        if not dropped or redial and not self._redials.take(
                member.peer_id, dropped=dropped, was_linked=member.peer_id in self._linked):
            raise _left_unsigned(member, why)  # (this lobby ends as it stands)
        self._linked.discard(member.peer_id)
        return [Redial(member.peer_id)] if redial else []  # (else it dials this peer again, §6.5)

    def failure(self, error: BaseException) -> dict[str, Any] | None:
        """The ``lobby.fail`` to send every member when `error` ends this lobby while R is
        being signed (§6.6), so none waits `SIGN_WAIT` for a start that cannot come, or
        starts a game this peer will not play; none before R, nor once every signature is
        held unless a member's word ends it then (`_Signatures.fail`): it is passed on as
        any other. A `StartFailed` passes on the reason it was given; a protocol error names
        the member it blames; a failed write, that this peer cannot keep the game's
        records; anything else (the player left: Ctrl-C, a stop signal, the screen
        closed) says this peer left."""
        if not self.signing or (self._sigs.done and not isinstance(error, StartFailed)):
            return None
        assert self._sigs.game_id is not None and self._sigs.roster is not None
        if isinstance(error, StartFailed):
            why = error.why
        elif isinstance(error, ProtocolError):
            blamed = next((m.name for m in self._sigs.roster.members if m.cert.short == error.peer), None)
            why = error.reason if blamed is None or blamed in error.reason else f"{blamed}: {error.reason}"
        else:
            me = self._sigs.roster.member(self._sigs.me.peer_id)
            assert me is not None
            why = f"{me.name} left before the game began"
            if isinstance(error, OSError):  # (its journal could not be written as it signed, §11.3)
                why = f"{me.name} could not keep this game's records ({error.strerror or error})"
        return fail_message(self._sigs.game_id, why)

    def sign_overdue(self, waited: float = SIGN_WAIT) -> ProtocolError:
        """The error that ends this lobby when the roster, frozen `waited` seconds ago,
        still lacks signatures: it names their members (§6.6)."""
        return self._sigs.overdue(waited)


def _dialable(address: tuple[str, int] | None) -> bool:
    """An IP address and a port: what the host saw a joiner connect from (§6.5)."""
    if address is None or not 1 <= address[1] <= 65535:
        return False
    try:
        ipaddress.ip_address(address[0])
    except ValueError:
        return False
    return True


def _unlinked(earlier: Member, later: Member) -> str:
    """Why `later` leaves the table (§6.6), in words that read the same to everyone."""
    return f"{earlier.name} and {later.name} could not link: the later of the two to join leaves (§6.6)"


# -- host ------------------------------------------------------------------------------------


class HostLobby(_SignsRoster):
    """The host's side: the front door, the roster, the start (§6.2–§6.6)."""

    def __init__(
        self, identity: Identity, *, name: str, table: str, seats: int, table_nonce: bytes, port: int,
        code: str | None = None, rules: TableRules = DEFAULT_RULES, bots: Sequence[str] = (),
    ) -> None:
        """`bots`: the names of the bots this host seats itself (`host --bots`), kept for
        them from the start, whenever they sit down (`bot_namesake`)."""
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise ValueError(f"a table has {MIN_SEATS} to {MAX_SEATS} seats")
        TABLE_NAME.check(table, "table", "§6.2")
        PLAYER_NAME.check(name, "name", "§6.2")
        _check_name(table, "table", TABLE_NAME.max_len)
        _check_name(name, "player", PLAYER_NAME.max_len)
        self.identity = identity
        self.bots = tuple(bots)
        self.code_key = code_key(code, identity.peer_id, table) if code else None
        self.roster = Roster(table, table_nonce, seats, (Member(0, name, identity.certificate, table_nonce, ("", port)),),
                             rules=rules)
        check_seating(self.roster.members, seats, rules, "§6.8")  # (a deck too small for the table, say)
        self.started = False
        self.starting = False  # the host asked to start: it does once every member is linked
        self._ready: dict[bytes, int] = {}  # guest: the roster version on which it holds every link
        self._held: dict[bytes, tuple[int, list[bytes]]] = {}  # guest: its report naming one the host dials (§6.6)
        self._linked: set[bytes] = set()  # guests the host holds a mesh link to
        self._redials = _Redials()
        self._sigs = _Signatures(identity)

    def offer(self, nonce: bytes) -> dict[str, Any]:
        """The first message of the front door; `nonce` is fresh for this connection."""
        r = self.roster
        return {
            "type": "lobby.offer", "v": 1, "proto": PROTOCOL_VERSION, "table": r.table, "host": r.members[0].name,
            "seats": r.seats, "free": r.free, "nonce": nonce, "code": self.code_key is not None,
        }

    def on_hello(self, hello: Mapping[str, Any], host_nonce: bytes, address: str, *,
                 game_over: bool = False) -> tuple[dict[str, Any], list[Action]]:
        """Answer a (schema-checked) hello: a welcome and the actions, or a refusal.
        Raises `ProtocolError` for a hello that is not merely unwelcome but invalid.
        `game_over`: the game this table started has ended (its runner knows; a member
        coming back is told so, `back_at_the_table`)."""
        if hello["proto"] != PROTOCOL_VERSION:
            return refuse("version", f"this table speaks bandit-lan protocol {PROTOCOL_VERSION} and you speak "
                                     f"{hello['proto']}: the same bandit-lan release is needed on both machines"), [
                TurnedAway(hello["name"], address, hello["proto"])]
        cert = Certificate.from_der(hello["cert"])
        transcript = join_transcript(self.roster.table, self.identity.peer_id, cert.peer_id, host_nonce, hello["nonce"])
        if not cert.verify(hello["sig"], transcript):
            raise ProtocolError("§6.3", "the join signature does not verify", cert.short)
        if self.code_key is not None:
            proof = hello.get("proof")
            if proof is None:
                return refuse("bad-code", "this table needs a code"), []
            if not hmac.compare_digest(proof, joiner_proof(self.code_key, transcript)):
                return refuse("bad-code", WRONG_CODE), [
                    TurnedAway(hello["name"], address, hello["proto"], "bad-code", cert.peer_id)]
        if self.started and (seated := self.roster.member(cert.peer_id)) is not None:
            return back_at_the_table(seated, game_over), []
        if self.roster.free == 0:
            return refuse("full", f"all {self.roster.seats} seats are taken"), []
        if self.started or self.starting:
            return refuse("started", "the game has already started"), []
        if self.roster.member(cert.peer_id) is not None:
            return refuse("duplicate", "this identity is already seated at the table"), []
        name = hello["name"]
        if (no := refusal(name, [m.name for m in self.roster.members], PLAYER_NAME.max_len)) is not None:
            if no.reason == "name-taken":
                why = name_taken(name, self.roster.members[no.seat])
            else:
                why = f"the name {_quoted(name)} {no.problem} (§6.4)"
            return refuse(no.reason, why), [TurnedAway(name, address, hello["proto"], no.reason, cert.peer_id,
                                                       why.removesuffix(" (§6.4)"))]
        # (a host that seats bots of its own keeps their first words from people; no guest checks it)
        if self.bots and (namesake := bot_namesake(name, [*(m.name for m in self.roster.members), *self.bots])):
            why = bot_namesake_taken(name, namesake)
            return refuse("name-taken", why), [TurnedAway(name, address, hello["proto"], "name-taken", cert.peer_id,
                                                          why.removesuffix(" (§6.4)"))]

        others = self.roster.members[1:]
        member = Member(len(self.roster.members), hello["name"], cert, hello["nonce"], (address, hello["port"]))
        self.roster = replace(self.roster, members=(*self.roster.members, member), version=self.roster.version + 1)
        welcome: dict[str, Any] = {"type": "lobby.welcome", "v": 1, "seat": member.seat, "roster": self.roster.to_wire()}
        if self.code_key is not None:
            welcome["proof"] = host_proof(self.code_key, transcript)
        update = self._update()
        actions: list[Action] = [Pin(member, dial=True)]
        actions += [SendTo(m.peer_id, update) for m in others]
        actions.append(RosterChanged(self.roster, (), *_news(self)))
        return welcome, actions + self._start_if_ready()

    def _update(self) -> dict[str, Any]:
        """``lobby.roster``: the roster as it stands, for the guests (§6.5)."""
        return {"type": "lobby.roster", "v": 1, "roster": self.roster.to_wire()}

    def start(self) -> list[Action]:
        """The host's call: start with the players seated now, once every one of them
        reported its links (at once if all did)."""
        if len(self.roster.members) < MIN_SEATS:
            raise ValueError(f"a game needs at least {MIN_SEATS} players")
        before = _news(self)
        self.starting = True
        return [*_told(self, before), *self._start_if_ready()]

    def _start_if_ready(self) -> list[Action]:
        """Freeze the roster and ask everyone to sign it (§6.6): when the table is full or
        the host asked, and every guest holds a link to every other member."""
        if self.started or not (self.starting or self.roster.free == 0) or len(self.roster.members) < MIN_SEATS:
            return []
        if any(self._ready.get(m.peer_id) != self.roster.version for m in self.roster.members[1:]):
            return []  # (a pair that cannot link costs the later joiner its seat: _on_links)
        if self.reconnecting:
            return []  # (its own link to a guest is down: back, or the guest leaves, §6.6)
        self.started = True
        return [*self._sign(self.roster), *self._sigs.outcome()]

    def on_message(self, peer: bytes, message: Mapping[str, Any]) -> list[Action]:
        """A lobby message from a pinned guest over the mesh."""
        if self.roster.member(peer) is None:
            return []  # a guest let go: what it sent before it knew changes nothing
        if message["type"] == "lobby.links":
            return self._on_links(peer, message["version"], message["unreachable"])
        if message["type"] not in ("lobby.sign", "lobby.fail"):
            raise ProtocolError("§6.6", f"a guest may not send {message['type']!r} to the host", short_id(peer))
        if not self.started:  # guests sign what the host's lobby.start showed them
            raise ProtocolError("§6.6", f"{message['type']} before the host started the game", short_id(peer))
        if message["type"] == "lobby.fail":
            self._sigs.fail(peer, message["game"], message["why"])
            return []
        self._sigs.add(peer, message["game"], message["sig"])
        return self._sigs.outcome()

    def _on_links(self, peer: bytes, version: int, unreachable: list[bytes]) -> list[Action]:
        """A guest's report on its mesh links (§6.6). For each member it cannot link with,
        the later joiner of the two leaves the table."""
        reporter = self.roster.member(peer)
        if self.started or reporter is None or version < self.roster.version:
            return []  # too late to matter, or about a roster since changed
        if version > self.roster.version:
            raise ProtocolError("§6.6", f"lobby.links on roster version {version}, which the host never sent",
                                short_id(peer))
        named = [m for p in unreachable if (m := self.roster.member(p)) is not None and m.seat and m.peer_id != peer]
        if len(named) != len(unreachable) or len({m.peer_id for m in named}) != len(named):
            raise ProtocolError("§6.6", "lobby.links names itself, the host, a member twice or a peer not at the table",
                                short_id(peer))
        if not named:
            before = _news(self)
            self._held.pop(peer, None)  # (a report it held is taken back: the link came after all)
            self._ready[peer] = version
            return [*_told(self, before), *self._start_if_ready()]
        if set(unreachable) - self._linked:  # the host's own dial of that guest decides first
            self._held[peer] = (version, unreachable)
            return []
        earlier = [m for m in named if m.seat < reporter.seat]
        if earlier:
            return self._remove({peer: _unlinked(earlier[0], reporter)}, told=True)
        return self._remove({m.peer_id: _unlinked(reporter, m) for m in named}, told=True)

    @property
    def reconnecting(self) -> frozenset[bytes]:
        """The guests the host is dialling again: each one it redialled whose link is not
        back (a redial that fails lets the guest go, §6.6)."""
        if self.started:
            return frozenset()
        return frozenset(m.peer_id for m in self.roster.members[1:]
                         if m.peer_id not in self._linked and self._redials.count.get(m.peer_id))

    def on_link_up(self, peer: bytes) -> list[Action]:
        """The host's mesh link to guest `peer` is up: once every link it redials is back,
        it may start. A link it dialled again carries the roster as it stands again: an
        update written to the link that dropped may have gone down with it."""
        if self.roster.member(peer) is None:
            return []
        if self.started:
            return self._signing_link_up(peer)
        redialled = peer in self.reconnecting
        before = _news(self)
        self._linked.add(peer)
        again: list[Action] = [SendTo(peer, self._update())] if redialled else []
        return [*again, *_told(self, before), *self._start_if_ready()]

    def awaited(self) -> frozenset[bytes]:
        """Guests whose held report (§6.6) names only guests the host holds links to again:
        each may yet take it back, saying it holds every link (a guest back from sleep
        dials again). A runner gives each `MESH_WAIT` seconds, then calls `on_overdue`."""
        return frozenset(reporter for reporter, (_, named) in self._held.items() if not set(named) - self._linked)

    def on_overdue(self, reporter: bytes) -> list[Action]:
        """`reporter` did not take back its held report in time: it stands (§6.6)."""
        if reporter not in self.awaited():
            return []  # (gone with a roster change, or its named guest is being dialled again)
        return self._on_links(reporter, *self._held.pop(reporter))  # (ignored if the roster changed since)

    def _unready(self) -> frozenset[bytes]:
        """Guests that have not reported holding every link on the roster as it stands."""
        if self.started:
            return frozenset()
        return frozenset(m.peer_id for m in self.roster.members[1:] if self._ready.get(m.peer_id) != self.roster.version)

    @property
    def linking(self) -> frozenset[bytes]:
        """For the host's screen: the guests a start the host wants (it asked, or the table
        is full) waits for, not yet holding every link of the roster as it stands (§6.6)."""
        return self._unready() if self.starting or self.roster.free == 0 else frozenset()

    def unreported(self) -> frozenset[bytes]:
        """Guests that have not reported their links on the roster as it stands (§6.6), and
        are not being dialled again, nor have their report held. An honest guest reports
        within about a minute (`MESH_WAIT`, or a dial's last attempt); a runner gives each
        `REPORT_WAIT` seconds from when the roster took its version, then calls
        `on_unreported`."""
        return self._unready() - self.reconnecting - self._held.keys()

    def on_unreported(self, peer: bytes, waited: float = REPORT_WAIT) -> list[Action]:
        """Guest `peer` has not reported its links for `waited` seconds: it would hold the
        start for good, so it leaves the table, told why (§6.6)."""
        if peer not in self.unreported():
            return []
        return self._remove({peer: f"did not report its links to the other players within {waited:.0f} s"}, told=True)

    def on_link_lost(self, peer: bytes, why: str = "left the table", *, dropped: bool = False) -> list[Action]:
        """A guest's link ended: before the start it leaves the table (§6.5), unless the
        link `dropped` (no goodbye, no protocol error) and the host, its dialer, has
        redials left for it (§6.6): then it keeps its seat while the host dials it again,
        and the start waits for the link.
        After the start, while R is being signed, a guest that signed is needed no more;
        one whose signature is due is dialled again if its link dropped, and ends the
        lobby if it left (`_signing_link_lost`). `why` says how it left, for the host's
        screen ("lost the connection: …"; the runner knows)."""
        member = self.roster.member(peer)
        if member is None:
            return []
        if self.started:
            return [] if self._sigs.done else self._signing_link_lost(member, why, dropped=dropped)
        was_linked = peer in self._linked
        before = _news(self)
        self._linked.discard(peer)
        if self._redials.take(peer, dropped=dropped, was_linked=was_linked):
            return [Redial(peer), *_told(self, before)]
        return self._remove({peer: why}, told=False)

    def _remove(self, leaving: Mapping[bytes, str], *, told: bool) -> list[Action]:
        """Members leave before the start (§6.5), each for its reason; `told`: they are
        still linked and are told it (``lobby.refuse`` reason ``unreachable``). The rest
        move up a seat."""
        gone = tuple(Left(m.name, f"had to leave: {why}" if told else why)
                     for m in self.roster.members if (why := leaving.get(m.peer_id)) is not None)
        kept = tuple(m for m in self.roster.members if m.peer_id not in leaving)
        self._linked -= leaving.keys()
        self._held.clear()  # (reports on the roster this change replaces: dropped, not kept to be ignored)
        members = tuple(Member(i, m.name, m.cert, m.nonce, m.address) for i, m in enumerate(kept))
        self.roster = replace(self.roster, members=members, version=self.roster.version + 1)
        update = self._update()
        if self.starting and len(members) < MIN_SEATS:
            self.starting = False  # (nobody left to play with: the table is open again)
        tell: list[Action] = [SendTo(peer, refuse("unreachable", why)) for peer, why in leaving.items()] if told else []
        return [*tell, *(Unpin(peer) for peer in leaving), *(SendTo(m.peer_id, update) for m in members[1:]),
                RosterChanged(self.roster, gone, *_news(self)), *self._start_if_ready()]


# -- guest -----------------------------------------------------------------------------------


class GuestLobby(_SignsRoster):
    """A joiner's side: hello, welcome, roster updates, signing the roster (§6.2–§6.6)."""

    def __init__(
        self, identity: Identity, *, name: str, port: int, nonce: bytes, code: str | None = None,
        expect_host: bytes | str | None = None,
    ) -> None:
        PLAYER_NAME.check(name, "name", "§6.2")
        _check_name(name, "player", PLAYER_NAME.max_len)
        self.identity = identity
        self.name = name
        self.port = port
        self.nonce = nonce
        self.code = code
        self.expect_host = expect_host
        self.host: Certificate | None = None
        self.host_address: tuple[str, int] | None = None
        self.roster: Roster | None = None
        self._transcript: bytes | None = None
        self._key: bytes | None = None
        self._sigs = _Signatures(identity)
        self._linked: set[bytes] = set()  # members this guest holds a mesh link to
        # (roster version, the reports this guest stands by on it): its last that holds every
        # link, or the ones since, each naming a member it cannot link with (§6.6)
        self._standing: tuple[int, list[dict[str, Any]]] = (-1, [])
        self._redials = _Redials()
        self._lost: set[bytes] = set()  # members whose link dropped before the start, being made again (§6.6)

    def on_offer(self, offer: Mapping[str, Any], host: Certificate, host_address: tuple[str, int]) -> dict[str, Any]:
        """The hello answering the host's offer (the host's certificate is from TLS)."""
        if self.expect_host is not None and not fingerprint_matches(host.peer_id, self.expect_host):
            want = short_id(self.expect_host) if isinstance(self.expect_host, bytes) else self.expect_host
            raise ProtocolError("§4.1", f"expected host {want}, but the host presented {host.short}")
        if offer["proto"] != PROTOCOL_VERSION:  # (its hello goes all the same: the host can say whom it turned away)
            raise OtherRelease(other_release("the table", offer["proto"]), self._hello(offer, host)[0])
        if offer["code"] and not self.code:
            raise JoinRefused("bad-code", "this table needs a code (--code)")
        self.host, self.host_address = host, host_address
        hello, transcript = self._hello(offer, host)
        self._transcript = transcript
        if offer["code"] and self.code:
            self._key = code_key(self.code, host.peer_id, offer["table"])
            hello["proof"] = joiner_proof(self._key, transcript)
        return hello

    def _hello(self, offer: Mapping[str, Any], host: Certificate) -> tuple[dict[str, Any], bytes]:
        """The hello answering `offer` from `host`, without a code proof, and the join
        transcript it signs (§6.2, §6.3)."""
        transcript = join_transcript(offer["table"], host.peer_id, self.identity.peer_id, offer["nonce"], self.nonce)
        hello: dict[str, Any] = {
            "type": "lobby.hello", "v": 1, "proto": PROTOCOL_VERSION, "name": self.name, "cert": self.identity.certificate.der,
            "nonce": self.nonce, "port": self.port, "sig": self.identity.sign(transcript),
        }
        return hello, transcript

    def on_reply(self, reply: Mapping[str, Any]) -> list[Action]:
        """The host's welcome (actions to apply) or refusal (raises `JoinRefused`)."""
        if reply["type"] == "lobby.refuse":
            raise JoinRefused(reply["reason"], reply["detail"], self.host.short if self.host else None)
        assert self.host is not None and self.host_address is not None and self._transcript is not None
        if self._key is not None:
            proof = reply.get("proof")
            if proof is None or not hmac.compare_digest(proof, host_proof(self._key, self._transcript)):
                raise ProtocolError("§6.3", "the host could not prove it knows the table code: not the real table?", self.host.short)
        roster = Roster.from_wire(reply["roster"])
        check_names(roster, self.host.short)
        me = roster.members[reply["seat"]] if reply["seat"] < len(roster.members) else None
        if me is None or me.cert != self.identity.certificate or me.nonce != self.nonce or me.name != self.name:
            raise ProtocolError("§6.2", "the welcome does not seat us as we asked", self.host.short)
        if roster.members[0].cert != self.host:
            raise ProtocolError("§6.2", "the welcome's seat 0 is not the host we are talking to", self.host.short)
        if me.seat != len(roster.members) - 1:
            raise ProtocolError("§6.5", "a newcomer takes the last seat", self.host.short)
        self.roster = self._as_seen(roster)
        return [*(Pin(m, dial=False) for m in self.roster.members if m.seat < me.seat), RosterChanged(self.roster),
                Probe(self.host.peer_id, self.host_address, at_once=False)]

    @property
    def reconnecting(self) -> frozenset[bytes]:
        """The members whose link to this guest dropped before the start and is being made
        again: by this guest (a member it dials) or by them (the host, and any member that
        dials this guest) (§6.6)."""
        if self.roster is None or self._sigs.roster is not None:
            return frozenset()
        return frozenset(p for p in self._lost if self.roster.member(p) is not None)

    @property
    def linking(self) -> frozenset[bytes]:
        """The host's screen's alone (`HostLobby.linking`): a guest does not know."""
        return frozenset()

    @property
    def seat(self) -> int:
        assert self.roster is not None
        me = self.roster.member(self.identity.peer_id)
        assert me is not None
        return me.seat

    def on_message(self, peer: bytes, message: Mapping[str, Any]) -> list[Action]:
        """A lobby message from a pinned peer over the mesh."""
        assert self.roster is not None and self.host is not None
        kind = message["type"]
        if kind == "lobby.sign":
            self._sigs.add(peer, message["game"], message["sig"])
            return self._sigs.outcome()
        if kind == "lobby.fail":
            self._sigs.fail(peer, message["game"], message["why"])
            return []
        if peer != self.host.peer_id:
            raise ProtocolError("§6.5", f"only the host sends {kind!r}", short_id(peer))
        if kind == "lobby.refuse" and self._sigs.roster is None:  # the host let us go (§6.6)
            raise JoinRefused(message["reason"], message["detail"], self.host.short)
        if kind == "lobby.roster":
            roster = Roster.from_wire(message["roster"])
            check_names(roster, self.host.short)
            return self._on_roster(roster)
        if kind == "lobby.start":
            return self._on_start(message["roster"], message["sig"])
        raise ProtocolError("§6.2", f"{kind!r} is only sent at the front door", short_id(peer))

    def _on_roster(self, new: Roster) -> list[Action]:
        assert self.roster is not None and self.host is not None
        if self._sigs.roster is not None:
            raise ProtocolError("§6.5", "a roster update after the start", self.host.short)
        seen = self._as_seen(new)
        if new.version == self.roster.version and seen == self.roster:
            return []  # (the roster again, over a link the host dialled again: nothing new)
        if new.version <= self.roster.version:
            raise ProtocolError("§6.5", f"roster version {new.version} does not follow {self.roster.version}", self.host.short)
        if (new.table != self.roster.table or new.table_nonce != self.roster.table_nonce
                or new.members[0].cert != self.host or new.rules != self.roster.rules):
            raise ProtocolError("§6.5", "a roster update for another table", self.host.short)
        me = new.member(self.identity.peer_id)
        if me is None:
            raise ProtocolError("§6.5", "the host removed us from the table", self.host.short)
        old_members = self.roster.members
        old = {m.peer_id for m in old_members}
        current = {m.peer_id for m in new.members}
        if any(m.peer_id not in old and m.seat < me.seat for m in new.members):
            raise ProtocolError("§6.5", "a newcomer seated before us", self.host.short)
        for m in new.members[me.seat + 1:]:  # (those this guest dials, §6.5)
            if not _dialable(m.address):
                raise ProtocolError("§6.5", f"the roster gives {m.name} no address to dial ({m.address!r})",
                                    self.host.short)
        self.roster = seen
        members = self.roster.members
        actions: list[Action] = [Unpin(p) for p in old - current]
        actions += [Pin(m, dial=True) for m in members if m.peer_id not in old and m.seat > me.seat]
        self._linked &= current
        self._lost &= current
        gone = tuple(Left(m.name, "is no longer at the table") for m in old_members if m.peer_id not in current)
        return [*actions, RosterChanged(self.roster, gone, self.reconnecting), *self._report()]

    def _as_seen(self, roster: Roster) -> Roster:
        """`roster` with the host at the address this guest reached it on (§6.5)."""
        host = roster.members[0]
        return replace(roster, members=(Member(0, host.name, host.cert, host.nonce, self.host_address), *roster.members[1:]))

    def _on_start(self, canonical: bytes, host_sig: bytes) -> list[Action]:
        assert self.roster is not None and self.host is not None
        if self._sigs.roster is not None:
            if canonical == self._sigs.canonical and host_sig == self._sigs.valid.get(self.host.peer_id):
                return []  # (the start again, over a link that came back: nothing new)
            raise ProtocolError("§6.6", "a second lobby.start, with another roster or signature", self.host.short)
        final = parse_canonical(canonical)
        shown = replace(self.roster, seats=len(self.roster.members))
        if canonical != shown.canonical():
            raise ProtocolError("§6.6", "the host's final roster differs from the roster it showed us", self.host.short)
        if not roster_signature_valid(self.host, canonical, host_sig):
            raise ProtocolError("§6.6", "the host's roster signature does not verify", self.host.short)
        frozen = replace(self.roster, seats=final.seats)
        signing = self._sign(frozen, also={self.host.peer_id: (game_id_of(canonical), host_sig)})
        self._sigs.fail_kept()  # (before anything is written or sent)
        return [*signing, *self._sigs.outcome()]

    def awaited(self) -> frozenset[bytes]:
        """Members that dial this guest (§6.5) and hold no link to it yet, before the start:
        a runner gives each `MESH_WAIT` seconds, then calls `on_overdue`."""
        if self.roster is None or self._sigs.roster is not None:
            return frozenset()
        me = self.seat
        return frozenset(m.peer_id for m in self.roster.members if m.seat < me and m.peer_id not in self._linked)

    def on_link_up(self, peer: bytes) -> list[Action]:
        """A mesh link to `peer` is up: once it holds one to every member, the guest tells
        the host (§6.6); a report naming `peer` no longer stands. A link to the host that
        comes back carries again the reports this guest stands by on the roster as it
        stands (`_report`: they may have gone down with the link before)."""
        if self.roster is None or self.roster.member(peer) is None:
            return []
        assert self.host is not None
        if self._sigs.roster is not None:
            return self._signing_link_up(peer)
        before = _news(self)
        self._linked.add(peer)
        self._lost.discard(peer)
        version, standing = self._standing
        standing = [r for r in standing if peer not in r["unreachable"]]  # (linked after all: no longer named)
        self._standing = version, standing
        again: list[Action] = []
        if peer == self.host.peer_id and version == self.roster.version:
            again = [SendTo(peer, report) for report in standing]
        return [*_told(self, before), *again, *self._report()]

    def on_overdue(self, peer: bytes) -> list[Action]:
        """`peer` should have dialled this guest `MESH_WAIT` seconds ago and did not."""
        assert self.roster is not None and self.host is not None
        member = self.roster.member(peer)
        if member is None or peer not in self.awaited():
            return []
        if peer == self.host.peer_id and peer in self._lost:
            raise ProtocolError("§6.5", f"lost the host: its link dropped and it did not dial this peer again "
                                f"within {MESH_WAIT:.0f} s", self.host.short)
        if peer == self.host.peer_id:
            raise ProtocolError("§6.5", f"the host has not reached this peer's mesh port {self.port} (a firewall?)",
                                self.host.short)
        before = _news(self)
        self._lost.discard(peer)  # (given up on: reported)
        return [*_told(self, before), *self._report(member)]

    def _report(self, unreachable: Member | None = None) -> list[Action]:
        """``lobby.links`` to the host on the roster as it stands: every link held, or one
        member this guest cannot link with (the later joiner of the two leaves, §6.6). Each
        is sent once while it stands: a report that holds every link stands alone, and
        takes back those before it; one naming a member stands beside the others naming
        members since, while this guest holds no link to that member (`on_link_up`)."""
        assert self.host is not None
        if self.roster is None or self._sigs.roster is not None:
            return []
        version = self.roster.version
        if unreachable is None and any(
                m.peer_id not in self._linked for m in self.roster.members if m.peer_id != self.identity.peer_id):
            return []
        report = links_report(version, () if unreachable is None else (unreachable.peer_id,))
        on, standing = self._standing
        standing = standing if on == version else []
        if report in standing:
            return []
        self._standing = version, [report] if unreachable is None else [*(r for r in standing if r["unreachable"]), report]
        return [SendTo(self.host.peer_id, report)]

    def on_link_lost(self, peer: bytes, why: str = "left the table", *, dropped: bool = False) -> list[Action]:
        """A link ended (`why`: how, as for the host's `on_link_lost`). Before the start a
        member this guest dials and cannot reach is reported to the host (§6.6); one whose
        link `dropped` (it ended without a goodbye or a protocol error) is redialled first,
        up to `REDIALS` times, and reported when a redial fails. One that dials this guest
        is awaited again; the host, which does, is also asked at once whether its table
        still answers (`Probe`), so a host that is gone is known at once. Losing the host
        otherwise ends the lobby. Once R is being signed, a member that signed is needed no
        more; one whose signature is due is dialled again or awaited if its link dropped,
        and ends the lobby if it left (`_signing_link_lost`)."""
        assert self.roster is not None and self.host is not None
        if self._sigs.done:
            return []
        member = self.roster.member(peer)
        if member is not None and self._sigs.roster is not None:
            return self._signing_link_lost(member, why, dropped=dropped)
        # (a signature that came before this guest saw the start is not one yet: its
        # loss counts as any other until the roster it claims to sign is here, §6.6)
        host = peer == self.host.peer_id
        if host and not dropped:
            if (kept := self._sigs.failed_early.get(peer)) is not None:  # (it said why as it left: §6.6)
                raise StartFailed(self.roster.members[0].name, kept[1])
            if why == "left the table":
                raise TableClosed(self.roster.members[0].name, self.host.short)
            raise ProtocolError("§6.5", f"the host ended this peer's link ({why})", self.host.short)
        was_linked = peer in self._linked
        before = _news(self)
        self._linked.discard(peer)
        if host:
            self._lost.add(peer)
            assert self.host_address is not None
            return [Probe(peer, self.host_address, at_once=True), *_told(self, before)]
        if member is None:
            return []  # gone from the roster
        if member.seat < self.seat:  # it dials us: awaited again (`awaited`)
            if dropped and was_linked:
                self._lost.add(peer)
            return _told(self, before)
        if self._redials.take(peer, dropped=dropped, was_linked=was_linked):
            self._lost.add(peer)
            return [Redial(peer), *_told(self, before)]
        self._lost.discard(peer)  # (given up on: reported)
        return [*_told(self, before), *self._report(member)]

    def on_probe(self, peer: bytes, answered: bool, detail: str = "") -> list[Action]:
        """The answer to a `Probe`: whether the host's table answered at its front door
        (`detail`: what answered instead, if anything did). A table that does not, while
        this guest holds no link to the host, is gone (§6.6)."""
        assert self.host is not None
        if answered or peer != self.host.peer_id or peer in self._linked or self._sigs.roster is not None:
            return []  # (the host is there, and dials again; or it already did)
        assert self.host_address is not None
        where = "{}:{}".format(*self.host_address)
        assert self.roster is not None
        raise HostGone(self.roster.members[0].name, self.roster.table, where, detail, self.host.short)


class SigningAgain(_SignsRoster):
    """A member whose process stopped while R was being signed, taking its seat back
    (§11.3). Its journal holds R; it checks R as a guest checks each roster it is shown
    (`check_names`: one that breaks §6.4's names is not signed), signs R again (the
    same signature: Ed25519 is deterministic), sends it over every link that comes up,
    and gathers every other member's signature, which each member sends again over each
    link that comes up, from its lobby or from its game (§6.6). Its runner dials every
    member it knows an address for (a link dialled by either side serves the pair,
    §4.7), so a member that is gone is known at once: its dial fails. Only one it must
    reach counts so (a higher seat, or every seat when the others cannot dial it,
    `dials_all`): a lower seat dials it, and the address this seat knows for it was
    never its to dial (§6.5). Once it holds every
    signature its game begins, where the others' began, or now for all."""

    def __init__(self, identity: Identity, canonical: bytes, *, dials_all: bool = False) -> None:
        roster = parse_canonical(canonical)
        if roster.member(identity.peer_id) is None:
            raise ValueError("this identity has no seat in the roster")
        check_names(roster, roster.members[0].cert.short)
        self.roster = roster
        self._sigs = _Signatures(identity)
        self._redials = _Redials()
        self._linked: set[bytes] = set()
        self._dials_all = dials_all
        self._sigs.freeze(roster)

    def awaited(self) -> frozenset[bytes]:
        return frozenset()  # (it dials every member itself: a dial that fails says who is gone)

    def on_link_up(self, peer: bytes) -> list[Action]:
        return self._signing_link_up(peer) if self.roster.member(peer) is not None else []

    def on_message(self, peer: bytes, message: Mapping[str, Any]) -> list[Action]:
        """A lobby message from a member: its signature (or the host's start, with R and
        its signature), or word that the start failed (`lobby.fail`)."""
        member = self.roster.member(peer)
        if member is None:
            return []
        kind = message["type"]
        if kind == "lobby.fail":
            self._sigs.fail(peer, message["game"], message["why"])
            return []
        if kind == "lobby.links":
            return []  # (a guest that has not had the start yet reports to the host: once started, ignored)
        if kind == "lobby.sign":
            self._sigs.add(peer, message["game"], message["sig"])
        elif kind == "lobby.start" and member.seat == 0:
            if message["roster"] != self._sigs.canonical:
                raise ProtocolError("§6.6", "a second lobby.start, with another roster", member.cert.short)
            assert self._sigs.game_id is not None
            self._sigs.add(peer, self._sigs.game_id, message["sig"])
        else:
            raise ProtocolError("§6.6", f"{kind!r} while the roster is being signed", member.cert.short)
        return self._sigs.outcome()

    def on_link_lost(self, peer: bytes, why: str = "left the table", *, dropped: bool = False) -> list[Action]:
        """A member whose signature is held is the game's (it dials again, §11.3). One
        whose signature is still due is dialled again if its link dropped once it was up
        (`REDIALS` times at most), and awaited if this seat's dial did not reach it: a
        lower seat dials this seat, and a higher one may be taking its own seat back, and
        then dials every member (`SIGN_WAIT` bounds the wait). One that left or broke the
        protocol ends it: the game cannot begin here without its signature. So does one
        this seat cannot reach when nobody can dial this seat (its old port is taken), or
        whose link dropped past its redials (`NotReached`: it may only be away)."""
        member = self.roster.member(peer)
        if member is None:
            return []
        was_linked = peer in self._linked
        if self.signed_by(peer):
            self._linked.discard(peer)
            return []
        if self._redials.take(peer, dropped=dropped, was_linked=was_linked):
            self._linked.discard(peer)  # (nothing changes before a refusal, below)
            return [Redial(peer)]
        if not dropped:
            raise ProtocolError("§11.3", f"{member.name} {why}, and its signature of the roster is still due here",
                                member.cert.short)
        if not was_linked and not self._dials_all:
            # (a lower seat dials this seat, §6.5; a higher one may be taking its own seat
            # back, and then dials every member, as this seat does: `SIGN_WAIT` bounds it)
            return []
        raise NotReached("§11.3", f"{member.name} cannot be reached ({why.removeprefix('lost the connection: ')})",
                         member.cert.short)

    def sign_overdue(self, waited: float = SIGN_WAIT) -> ProtocolError:
        """The others' signatures did not all come within `waited` seconds: those members
        were not reached (their lobbies or games send their signatures on every link)."""
        missing = self._sigs.missing()
        return NotReached("§11.3", f"{' and '.join(m.name for m in missing)} could not be reached within {waited:.0f} s",
                          ", ".join(m.cert.short for m in missing))
