"""Running the lobby over a live mesh with trio: `host_table` and `join_table` (§6).

Theory of operation
-------------------
A thin shell around `p2p.lobby`: it owns the randomness (nonces), the sockets (through
the `Mesh` and the front door) and the timeouts; every decision is the state machine's.
Each function runs until the game has started (every member signed the roster) and
returns the `LobbyResult`; the mesh stays open for the game. Messages of later layers
that arrive before this peer finished the lobby are handed back to the mesh
(`Mesh.requeue`) in order, so the game sees them first; so are the links that come up,
and those that drop, once the roster is being signed (a member that has signed is the
game's to dial again; the lobby dials again one whose signature is still due), the last
of each peer's alone (`links_settled`): where its link stands when the game begins.
Probes of the host's front door (§6.6) run as tasks beside the lobby and wake it with
their answers. Before this peer's roster signature goes out, `on_signing` writes its
seat's journal (§11.3); `sign_again` runs the same shell around `SigningAgain`, for a
seat taken back after its process stopped while the roster was being signed.

The runner keeps every link of the lobby alive: it sends a `lobby.beat` on each link
every `BEAT_EVERY` seconds and takes a link that brought nothing for `SILENCE` seconds
for lost (§6.6), as the game does with its acks (§11.3). A member whose process stopped
or whose machine went to sleep then loses its seat as one that lost its connection,
instead of holding the start, or the signing, forever. A roster that some member has
still not signed `SIGN_WAIT` seconds after this peer froze it ends the lobby, naming
them. A lobby that ends while the roster is being signed, for that or any other reason,
first sends every member a ``lobby.fail`` saying why (§6.6): a member whose dialer is
gone would otherwise learn only from its own `SIGN_WAIT`. Once every signature is held,
what has already come is read before the game begins: a member that gave up just as its
signature went out sends its ``lobby.fail`` right behind it, and if that has arrived the
start fails here too. One that comes a moment later is not read (the game ignores it):
the game that began ends at that member's goodbye (§11.3).

Progress is reported through an optional callback (`on_roster`, with each
`RosterChanged`: the roster, who left it and why, and who is being reconnected) for
screens and advertisements. The host's log and `on_turned_away` get a line for each
joiner it turned away for speaking another protocol version or giving a wrong table
code, at most one every `TOLD_EVERY` seconds (`TurnAways`: a flood of them is a line now and then),
and None once the joiner the last line named is seated (the line no longer holds). Failures
raise `ProtocolError` (and its subclasses `JoinRefused`, `FingerprintMismatch`) or
`OSError` for an unreachable host (`TableUnreachable` when no address of it answered as
a table: each address with what answered there, `DialFailure`).
"""

from __future__ import annotations

import logging
import math
import secrets
import socket
import ssl
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import trio

from p2p.groups import lone_exception_unwrapped
from p2p.errors import JoinRefused, OtherRelease, PeerLeft, ProtocolError, StartFailed, printable
from p2p.framed import REJECT_TIMEOUT, FramedStream
from p2p.identity import Certificate, short_id
from p2p.lobby import (
    BEAT, BEAT_EVERY, MESH_WAIT, PROBE_EVERY, REPORT_WAIT, SIGN_WAIT, WRONG_CODE, Action, Broadcast, GuestLobby, HostLobby,
    LobbyResult, Pin, Probe, Redial, RosterChanged, SendTo, Signing, SigningAgain, Started, TurnedAway, Unpin,
)
from p2p.roster import DEFAULT_RULES, MIN_SEATS, TableRules
from p2p.signing import SignedMessage
from p2p.stops import OVERSLEPT, stop_began
from p2p.tls import ALPN, check_peer, describe_tls_failure, front_door_context
from p2p.tlsstream import Crowded, TlsStream
from p2p.transport import DIAL_TIMEOUT, HANDSHAKE_TIMEOUT, SILENCE, LinkDown, LinkUp, Mesh, MeshEvent, Received

log = logging.getLogger("bandit_lan.lobby")

HELLO_TIMEOUT = 10.0
MAX_EARLY = 1024  # messages of the game a peer may send before this peer's lobby is over (§4.7)
MAX_EARLY_BYTES = 8 << 20  # and their bodies' bytes: eight of the largest a frame carries (§4.2)
WRONG_CODE_WAIT = 1.0  # after a wrong table code, its address waits this long, doubled per wrong code…
WRONG_CODE_WAIT_MAX = 8.0  # …up to this, below a joiner's patience (HELLO_TIMEOUT) (§6.4)
LEAVE_WAIT = 2.0  # seconds a guest that leaves waits for the host's link, to say goodbye over it
TOLD_EVERY = 10.0  # seconds at least between two lines of joiners turned away (§6.3, §6.4)
RosterCallback = Callable[[RosterChanged], None]
SigningCallback = Callable[[Signing], None]  # writes the seat's journal before its signature goes out (§11.3)
Lobby = HostLobby | GuestLobby | SigningAgain
StartCall = Callable[[], None]  # the host's call to start now (`host_table` hands it out)
TurnedAwayCallback = Callable[[str | None], None]
"""Tells the host's player of joiners turned away (`TurnAways`): a line, or None when the
last line no longer holds (the joiner it named is seated now)."""
HELD_MAX = 64  # joiners turned away held for the next line by name; more are only counted


class TurnAways:
    """Joiners turned away (`TurnedAway`: another release, a wrong code, a name refused), as
    lines for the host's log and screen: the first at once, then at most one every `TOLD_EVERY` seconds,
    naming the latest and counting the others, so that a flood of bad joiners is a line
    now and then, not a screenful. A joiner seated since it was turned away is no longer
    told of (`seated`). Fed the time; `due` says when a line is owed."""

    def __init__(self) -> None:
        self._held: list[TurnedAway] = []  # turned away and not yet told, the latest last
        self._more = 0  # turned away before them, beyond `HELD_MAX`
        self._told: TurnedAway | None = None  # the one the last line named
        self._quiet_until = -math.inf

    def add(self, away: TurnedAway, now: float) -> str | None:
        """`away` was turned away at `now`: the line to tell now, if one is owed."""
        self._held.append(away)
        if len(self._held) > HELD_MAX:
            del self._held[0]
            self._more += 1
        return self.line(now)

    def line(self, now: float) -> str | None:
        """The line owed at `now`, if any."""
        if not self._held or now < self._quiet_until:
            return None
        self._told = self._held[-1]
        line = self._told.sentence(len(self._held) - 1 + self._more)
        self._held, self._more, self._quiet_until = [], 0, now + TOLD_EVERY
        return line

    def seated(self, peers: Collection[bytes]) -> bool:
        """The joiners `peers` are seated: their turning away is not told any more. True
        if the last line named one of them (it no longer holds)."""
        self._held = [away for away in self._held if away.peer not in peers]
        if self._told is None or self._told.peer not in peers:
            return False
        self._told = None
        return True

    @property
    def due(self) -> float:
        """When the line held back is owed (never, if none is)."""
        return self._quiet_until if self._held else math.inf


class _Driver:
    """Applies lobby actions to the mesh and feeds mesh events to the lobby."""

    def __init__(self, mesh: Mesh, on_roster: RosterCallback | None, on_signing: SigningCallback | None = None,
                 on_turned_away: TurnedAwayCallback | None = None) -> None:
        self.mesh = mesh
        self.on_roster = on_roster
        self.on_signing = on_signing
        self.on_turned_away = on_turned_away
        self.turned_away = TurnAways()
        self.result: LobbyResult | None = None
        self.backlog: list[MeshEvent] = []
        self.early: dict[bytes, tuple[int, int]] = {}  # per peer: its messages waiting in the backlog, and their bytes
        self._answers: list[tuple[bytes, bool, str]] = []  # probes answered, for the lobby (`GuestLobby.on_probe`)
        self._lobby: Lobby | None = None
        self._nursery: trio.Nursery | None = None  # (while the lobby runs: its probes)
        self._unstarted: list[Probe] = []  # probes made before the lobby ran (at the welcome)
        self._probing: dict[bytes, trio.CancelScope] = {}  # peer: the probe running for it
        self._waiting: trio.CancelScope | None = None  # the wait for the next mesh event
        self._fault: BaseException | None = None  # what failed in a call made outside `run` (`call`)
        self.heard: dict[bytes, float] = {}  # linked peer: when a frame last came from it
        self._due = math.inf  # when the lobby next looks, at the latest (the deadline of its wait)
        self._ran_at: float | None = None  # the last moment this process is known to have run (`_notice_stop`)
        self._stopped = 0.0  # how long this process did not run, noticed and not yet taken into the lobby's waits

    def apply(self, actions: Sequence[Action]) -> None:
        for action in actions:
            if isinstance(action, Pin):
                self.mesh.expect(action.member.cert, action.member.address, dial=action.dial)
            elif isinstance(action, Unpin):
                self.mesh.forget(action.peer)
                self.heard.pop(action.peer, None)
            elif isinstance(action, Redial):
                log.info("link to %s dropped before the game: dialling it again", short_id(action.peer))
                self.mesh.dial(action.peer)
            elif isinstance(action, Probe):
                if action.at_once:
                    log.info("link to the host %s ended before the start: is its table still there?",
                             short_id(action.peer))
                if (running := self._probing.pop(action.peer, None)) is not None:
                    running.cancel()  # (a probe at once replaces one that waits)
                if self._nursery is None:
                    self._unstarted.append(action)
                else:
                    self._nursery.start_soon(self._probe, action)
            elif isinstance(action, SendTo):
                if action.message["type"] == "lobby.refuse":
                    log.warning("%s leaves the table: %s", short_id(action.peer), action.message["detail"])
                if action.peer in self.mesh.peers():  # it may have left since the action was made
                    self.mesh.send(action.peer, action.message)
            elif isinstance(action, Broadcast):
                self.mesh.broadcast(action.message)
            elif isinstance(action, RosterChanged):
                if self.on_roster is not None:
                    self.on_roster(action)
                if (self.turned_away.seated({m.peer_id for m in action.roster.members})
                        and self.result is None and self.on_turned_away is not None):
                    self.on_turned_away(None)  # (its joiner is seated now: the line is taken back)
            elif isinstance(action, TurnedAway):
                if (line := self.turned_away.add(action, trio.current_time())) is not None:
                    self._tell_turned_away(line)
                elif self._waiting is not None:
                    self._waiting.cancel()  # (the lobby wakes when the line held back is owed: `TurnAways.due`)
            elif isinstance(action, Signing):
                if self.on_signing is not None:  # (if it fails, so does the lobby, saying so: nothing was sent)
                    self.on_signing(action)
            elif isinstance(action, Started):
                self.result = action.result

    def _tell_turned_away(self, line: str) -> None:
        """A line of joiners turned away (`TurnAways`), for the host's log and screen; once
        the game has started, for its log alone, quietly (the table screen shows warnings)."""
        if self.result is not None:
            log.info("%s", line)
            return
        log.warning("%s", line)
        if self.on_turned_away is not None:
            self.on_turned_away(line)

    def call(self, make: Callable[[], Sequence[Action]]) -> None:
        """Make actions and apply them from outside `run`'s loop (the host's call to
        start). What fails there (this seat's journal could not be written as it signs)
        ends the lobby from within `run`, which tells every member why (§6.6)."""
        try:
            self.apply(make())
        except Exception as exc:
            self._fault = exc
            if self._waiting is not None:
                self._waiting.cancel()

    async def run(self, lobby: Lobby) -> LobbyResult:
        """Feed mesh events to `lobby` until it has started; what it awaits and is overdue
        (`_waits`: a guest's links, `MESH_WAIT` seconds; a guest's links report to the
        host, `REPORT_WAIT` seconds) is reported to it (§6.6), as are its probes' answers.
        Links silent for `SILENCE` seconds are closed, and signatures `SIGN_WAIT` seconds
        overdue end the lobby (§6.6). A lobby that ends while the roster is being signed
        tells every member why (``lobby.fail``), so none waits for a start that cannot
        come."""
        self._lobby = lobby
        try:
            await self._run(lobby)
        except BaseException as exc:  # (a protocol error, or the player left: Ctrl-C, a signal)
            if lobby.signing and (fail := lobby.failure(exc)) is not None:
                # sent now, before this peer's goodbye: a send writes into the socket at once,
                # so it goes out even when the process is being cancelled
                log.info("the start failed here; telling every member why: %s", fail["why"])
                self.mesh.broadcast(fail)
                # (the goodbye a game begun without this peer quotes, §11.3: what happened here)
                if isinstance(exc, (ProtocolError, OSError)):
                    self.mesh.farewell = f"its start failed: {fail['why']}"
                elif _player_left(exc) and self.mesh.farewell is None:
                    self.mesh.farewell = left_signing(lobby)
            raise
        self.mesh.requeue(links_settled(self.backlog))
        assert self.result is not None
        return self.result

    async def _run(self, lobby: Lobby) -> None:
        # since when each thing is awaited, and the roster version on which the lobby was told
        # it is overdue: a peer (a guest awaits its dial, the host a report taken back), or
        # (a guest, a roster version) the host awaits its links report on
        since: dict[_Awaited, float] = {}
        told: dict[_Awaited, int] = {}
        signing_since = math.inf  # when this peer froze the roster
        with lone_exception_unwrapped():
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                nursery.start_soon(self._beat)
                for probe in self._unstarted:
                    nursery.start_soon(self._probe, probe)
                while self.result is None:
                    if self._fault is not None:
                        raise self._fault
                    now = trio.current_time()
                    if isinstance(lobby, GuestLobby):
                        while self._answers:
                            self.apply(lobby.on_probe(*self._answers.pop(0)))
                    if (line := self.turned_away.line(now)) is not None:
                        self._tell_turned_away(line)
                    version = _version(lobby)
                    waits = _waits(lobby, version)
                    since = {key: since.get(key, now) for key in waits}
                    told = {key: v for key, v in told.items() if key in waits}
                    for key, at in since.items():  # (once per roster version: a report on an older one is ignored)
                        if at + waits[key] <= now and told.get(key) != version:
                            told[key] = version
                            self.apply(_overdue(lobby, key))
                    if lobby.signing:
                        if signing_since == math.inf:
                            signing_since = now
                        if now >= signing_since + SIGN_WAIT:
                            raise lobby.sign_overdue(SIGN_WAIT)
                    linked = self.mesh.linked()
                    self._close_silent(now, linked)
                    version = _version(lobby)  # (telling it may have changed the roster)
                    deadline = min([at + waits[key] for key, at in since.items() if told.get(key) != version]
                                   + [signing_since + SIGN_WAIT, self.turned_away.due]
                                   + [at + SILENCE for peer, at in self.heard.items() if peer in linked])
                    self._due = deadline
                    with trio.move_on_at(deadline) as self._waiting:
                        event = await self.mesh.receive()
                    woke = trio.current_time()
                    self._notice_stop(woke)
                    if self._stopped:
                        # this peer was stopped itself (or starved): it listened to nobody, so it blames
                        # nobody's silence, and each wait goes on from where it stood when the process
                        # last ran, a second more (`OVERSLEPT`), to read what came meanwhile before
                        # anything is overdue
                        self.heard = dict.fromkeys(self.heard, woke)
                        away, self._stopped = self._stopped + OVERSLEPT, 0.0
                        since = {key: at + away for key, at in since.items()}
                        signing_since += away
                    if not self._waiting.cancelled_caught:
                        self._take(lobby, event)
                # What came with the last signature is read before the game begins: a member
                # that gave up just as it signed says so in a `lobby.fail` right behind it (§6.6);
                # only what has already arrived (one later is the game's: it ends at the goodbye)
                while (event := self.mesh.receive_nowait()) is not None:
                    self._take(lobby, event)
                nursery.cancel_scope.cancel()

    async def _beat(self) -> None:
        """A `lobby.beat` on every link every `BEAT_EVERY` seconds (§6.6): the mark of
        life by which the other side knows this peer is still there."""
        while True:
            self._notice_stop(trio.current_time())  # (each beat is a moment the process ran)
            for peer in self.mesh.linked():
                self.mesh.send(peer, BEAT)
            await trio.sleep(BEAT_EVERY)

    def _notice_stop(self, now: float) -> None:
        """If the lobby should have looked more than `OVERSLEPT` ago, this process was
        stopped (`stop_began`), from the last moment it is known to have run (the lobby's
        last look, or a beat since): that long is added to `_stopped`, once, for the lobby
        to take into its waits. The beats and the lobby call this, whichever runs first."""
        began = stop_began(self._due, self._ran_at, now)
        if began is not None:
            self._due = now  # (noticed: the lobby, running next, finds it in `_stopped`)
            self._stopped += now - began
        self._ran_at = now

    def _close_silent(self, now: float, linked: frozenset[bytes]) -> None:
        """Close each of the `linked` links nothing came on for `SILENCE` seconds (§6.6):
        the peer's process stopped, or its machine went to sleep or off the network. Its
        `LinkDown` follows, as for any connection lost."""
        for peer, at in list(self.heard.items()):
            if peer in linked and now >= at + SILENCE:
                del self.heard[peer]
                log.warning("nothing heard from %s for %.0f s: its link is taken for lost", short_id(peer), SILENCE)
                self.mesh.close_link(peer, f"nothing heard for {SILENCE:.0f} s")

    async def _probe(self, probe: Probe) -> None:
        """Whether the host's table answers at its front door (§6.6): a TLS handshake
        with the host's own certificate, then closed; at once or after `PROBE_EVERY`
        seconds, then every `PROBE_EVERY` seconds while the guest awaits the host's
        link. Each answer wakes the lobby; the first that fails is the last."""
        with trio.CancelScope() as scope:
            self._probing[probe.peer] = scope
            at = trio.current_time() + (0.0 if probe.at_once else PROBE_EVERY)
            while True:
                await trio.sleep_until(at)
                if not isinstance(self._lobby, GuestLobby) or probe.peer not in self._lobby.awaited():
                    return  # (the host's link is up)
                answered, detail = True, ""
                try:
                    door, _ = await _open_front_door([probe.address], probe.peer, self.mesh)
                except TableUnreachable as exc:  # (nothing there, or no table: what answers instead, if anything)
                    answered = False
                    detail = "; ".join(f.detail for f in exc.failures if f.kind in ("not-a-table", "other-protocol"))
                except ProtocolError as exc:
                    answered, detail = False, exc.reason  # (another host there)
                else:
                    await trio.aclose_forcefully(door.tls)
                self._answers.append((probe.peer, answered, detail))
                if self._waiting is not None:
                    self._waiting.cancel()
                if not answered:
                    return
                at = trio.current_time() + PROBE_EVERY

    def _take(self, lobby: Lobby, event: MeshEvent) -> None:
        if isinstance(event, Received):
            self.heard[event.peer] = trio.current_time()
            if event.type == "lobby.beat":
                return
            if not event.type.startswith("lobby."):
                count, size = self.early.get(event.peer, (0, 0))
                message = event.message
                count, size = count + 1, size + (len(message.body) if isinstance(message, SignedMessage) else 0)
                self.early[event.peer] = count, size
                if count > MAX_EARLY or size > MAX_EARLY_BYTES:  # more than a started table sends while we sign
                    what = (f"more than {MAX_EARLY} messages" if count > MAX_EARLY else
                            f"more than {MAX_EARLY_BYTES} bytes of messages")
                    self._refuse(lobby, event.peer, ProtocolError(
                        "§4.7", f"{what} of the game before the table started", short_id(event.peer)))
                    return
                self.backlog.append(event)
                return
            try:
                self.apply(lobby.on_message(event.peer, event.message))  # type: ignore[arg-type]
            except (JoinRefused, StartFailed):
                raise  # the host let this guest go, or a member gave up the start (§6.6): nothing to tell it
            except ProtocolError as exc:
                self._refuse(lobby, event.peer, exc)
        elif isinstance(event, LinkDown):
            self.heard.pop(event.peer, None)
            if event.error is not None:
                log.warning("link to %s: %s", short_id(event.peer), event.error)
            # (a dropped link is dialled again, §6.6)
            actions = lobby.on_link_lost(event.peer, _gone(event), dropped=_dropped(event))
            self.apply(actions)
            member = lobby.roster.member(event.peer) if isinstance(lobby, SigningAgain) else None
            if member is not None and not actions and not lobby.signed_by(event.peer):  # (awaited, §11.3)
                log.warning("%s cannot be reached yet (%s); waiting up to %.0f s for them to come back", member.name,
                            printable(event.reason), SIGN_WAIT)
            if lobby.signing and lobby.roster is not None and lobby.roster.member(event.peer) is not None:
                self.backlog.append(event)  # (a member whose signature is held: the game dials it again, §11.3)
        elif isinstance(event, LinkUp):
            self.heard[event.peer] = trio.current_time()
            self.apply(lobby.on_link_up(event.peer))  # (a guest tells the host once it holds every link, §6.6)
            self.backlog.append(event)

    def _refuse(self, lobby: Lobby, peer: bytes, error: ProtocolError) -> None:
        """`peer` broke the protocol: it is told so and its link closed (§4.6). Before the
        roster is signed, a guest that does so only loses its seat at the host (§6.5), and
        only its link at another guest (which reports it, §6.6): the others keep theirs.
        Anything else (the host's own violation, anybody's once the roster is being
        signed) ends this lobby."""
        self.mesh.close_link(peer, str(error), error)
        if isinstance(lobby, HostLobby) and not lobby.started:
            if lobby.roster.member(peer) is not None:  # (its link's end lets it go, §6.5)
                log.warning("guest %s broke the protocol and lost its seat: %s", short_id(peer), error)
            return  # (or one let go already: what it sent meanwhile changes nothing)
        if isinstance(lobby, GuestLobby) and not lobby.signing and lobby.host is not None \
                and peer != lobby.host.peer_id:
            # another guest: only that link ends (§4.6), and the pair that cannot link
            # costs the later joiner of the two its seat (§6.6), never this lobby
            log.warning("member %s broke the protocol; its link is closed: %s", short_id(peer), error)
            return
        raise error


async def host_table(
    mesh: Mesh,
    *,
    name: str,
    table: str,
    seats: int,
    code: str | None = None,
    rules: TableRules = DEFAULT_RULES,
    start: trio.Event | trio.abc.ReceiveChannel[object] | None = None,
    on_roster: RosterCallback | None = None,
    on_signing: SigningCallback | None = None,
    on_turned_away: TurnedAwayCallback | None = None,
    bots: Sequence[str] = (),
    game_ended: trio.Event | None = None,
    task_status: trio.TaskStatus[StartCall] = trio.TASK_STATUS_IGNORED,
) -> LobbyResult:
    """Host a table on `mesh` until it is full (or the host asks to start with ≥ 2
    players) and every member signed the roster. The host asks by setting `start` (an
    event), or by each value that comes on it (a channel: the call may be made again
    once the lobby forgot it, all the players the host would have started with having
    left, §6.6). With ``nursery.start`` it reports readiness once the front door is
    open, with the host's start call itself. `on_signing` writes this seat's journal
    before its signature of the roster goes out (§11.3); `on_turned_away` gets a line
    for joiners turned away for another release, a wrong code or a name refused
    (`TurnAways`) until the game starts, and None once the joiner the last line named is
    seated. `bots`: the names of the bots the host seats itself, kept for them (no person
    sits down under one of their first words, `HostLobby`). `game_ended`: set by the
    shell that plays the game once it has ended; the front door, open after the start,
    tells a member that comes back whether its game is under way or over (§6.4)."""
    table_nonce = secrets.token_bytes(32)
    mesh.set_table(table_nonce)
    if code:
        lobby = await trio.to_thread.run_sync(
            lambda: HostLobby(mesh.identity, name=name, table=table, seats=seats, table_nonce=table_nonce, port=mesh.port,
                              code=code, rules=rules, bots=bots)
        )
    else:
        lobby = HostLobby(mesh.identity, name=name, table=table, seats=seats, table_nonce=table_nonce, port=mesh.port,
                          rules=rules, bots=bots)
    driver = _Driver(mesh, on_roster, on_signing, on_turned_away)
    wrong_codes: dict[str, tuple[int, float]] = {}  # address: (wrong codes in a row, when it may try again)
    code_turns: dict[str, trio.Lock] = {}  # address: its hellos with a code are checked one at a time

    def over() -> bool:
        return game_ended is not None and game_ended.is_set()

    async def answer(hello: dict[str, Any], nonce: bytes, address: str) -> tuple[dict[str, Any], list[Action]]:
        """The lobby's answer to a hello (§6.4). A hello that offers a table code is
        checked only after its address waited out its last wrong code (1 s, doubling, up
        to 8 s: a joiner waits 10 s), one at a time, so codes cannot be guessed at line
        speed, nor in parallel."""
        if hello.get("proof") is None:  # nothing to guess with
            return lobby.on_hello(hello, nonce, address, game_over=over())
        turn = code_turns.setdefault(address, trio.Lock())
        try:
            async with turn:
                tries, until = wrong_codes.get(address, (0, 0.0))
                await trio.sleep_until(until)
                reply, actions = lobby.on_hello(hello, nonce, address, game_over=over())
                if reply["type"] == "lobby.refuse" and reply["reason"] == "bad-code" and reply["detail"] == WRONG_CODE:
                    wait = min(WRONG_CODE_WAIT * 2**tries, WRONG_CODE_WAIT_MAX)
                    wrong_codes[address] = (tries + 1, trio.current_time() + wait)
                    log.warning("wrong table code from %s (%d in a row): its next try waits %.0f s", address, tries + 1, wait)
                elif reply["type"] != "lobby.refuse":
                    wrong_codes.pop(address, None)
                return reply, actions
        finally:
            if not turn.locked() and not turn.statistics().tasks_waiting:
                code_turns.pop(address, None)

    async def front_door(stream: FramedStream, address: tuple[str, int]) -> None:
        nonce = secrets.token_bytes(32)
        try:
            await stream.send(lobby.offer(nonce))
            with trio.fail_after(HELLO_TIMEOUT):
                hello = await stream.expect("lobby.hello")
            reply, actions = await answer(hello, nonce, address[0])
        except ProtocolError as exc:
            log.warning("joiner %s refused: %s", stream.label, exc)
            await stream.reject(exc)
            return
        except (PeerLeft, trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            log.info("joiner %s went away: %s", stream.label, describe_tls_failure(exc) if not isinstance(exc, PeerLeft) else exc)
            await stream.aclose()
            return
        # Apply before the next await: another joiner's hello, handled meanwhile, sends the
        # new roster to every member, so this one must already be pinned.
        driver.apply(actions)
        try:
            await stream.send(reply)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # a welcomed joiner that vanished is dropped when its mesh link fails
        await stream.aclose()

    # The front door stays open after the start: latecomers are refused politely, and a
    # member that comes back is told whether its game is under way or over (§6.4).
    mesh.serve_front_door(front_door)

    def start_now() -> None:
        """The host's call: start with the players seated now, at least two, once they
        are linked (nothing if fewer, or if it already asked)."""
        if len(lobby.roster.members) >= MIN_SEATS and not lobby.starting:
            driver.call(lobby.start)

    if on_roster is not None:
        on_roster(RosterChanged(lobby.roster))
    task_status.started(start_now)
    with lone_exception_unwrapped():
        async with trio.open_nursery() as nursery:
            if start is not None:

                async def start_when_asked() -> None:
                    if isinstance(start, trio.Event):
                        await start.wait()
                        start_now()
                    else:
                        async for _ in start:
                            start_now()

                nursery.start_soon(start_when_asked)
            result = await driver.run(lobby)
            nursery.cancel_scope.cancel()
    return result


async def join_table(
    mesh: Mesh,
    addresses: Sequence[tuple[str, int]],
    *,
    name: str,
    code: str | None = None,
    expect_host: bytes | str | None = None,
    on_host: Callable[[Certificate], None] | None = None,
    on_roster: RosterCallback | None = None,
    on_signing: SigningCallback | None = None,
) -> LobbyResult:
    """Join the table hosted at the first reachable of `addresses` and run the lobby
    until the game starts. `mesh` must hold incoming links (``hold_incoming=True``).
    `expect_host` pins the host (a peer id or short form); without it the host's
    certificate is trusted on first use and reported through `on_host`. `on_signing`
    as for `host_table`."""
    stream, address = await _open_front_door(addresses, expect_host, mesh)
    host = stream.peer_cert
    if on_host is not None:
        on_host(host)
    framed = FramedStream(stream.tls, mesh.schemas, limits=mesh.limits, label=host.short)
    guest = GuestLobby(mesh.identity, name=name, port=mesh.port, nonce=secrets.token_bytes(32), code=code, expect_host=expect_host)
    driver = _Driver(mesh, on_roster, on_signing)
    try:
        with trio.fail_after(HELLO_TIMEOUT):
            offer = await framed.expect("lobby.offer")
            try:
                hello = await trio.to_thread.run_sync(guest.on_offer, offer, host, address) if offer["code"] and code else guest.on_offer(offer, host, address)
            except OtherRelease as exc:
                await _hello_all_the_same(framed, exc.hello)
                raise
            await framed.send(hello)
            reply = await framed.expect("lobby.welcome", "lobby.refuse")
        actions = guest.on_reply(reply)
    except PeerLeft as exc:
        raise ProtocolError("§6.2", f"the host closed the connection ({exc.reason})", host.short) from None
    except trio.TooSlowError:
        raise ProtocolError("§6.2", "the host did not answer in time", host.short) from None
    finally:
        await framed.aclose()
    assert guest.roster is not None
    mesh.set_table(guest.roster.table_nonce)
    try:
        driver.apply(actions)  # (the welcome's pins first; then `on_roster`, which may leave at once)
    finally:
        mesh.release_incoming()  # (so the host's link comes, even to a guest leaving: it says goodbye over it)
    try:
        return await driver.run(guest)
    except BaseException as exc:
        if _player_left(exc):  # (Ctrl-C, a stop signal, the screen closed: this player leaves)
            # The host dials a guest as it seats it (§6.5): a guest that leaves before that
            # link is up waits a moment for it, so that its goodbye goes out over it (§4.7)
            # and the host reads that it left, not that it could not be reached.
            with trio.CancelScope(shield=True):
                await host_linked(mesh, host.peer_id)
        raise


async def host_linked(mesh: Mesh, host: bytes) -> None:
    """Wait, `LEAVE_WAIT` seconds at most, for the `host`'s link: a guest about to leave
    (a player who left, or `join --target` at a table of another target) waits so to say
    goodbye over it."""
    await members_linked(mesh, (host,), LEAVE_WAIT)


async def members_linked(mesh: Mesh, members: Collection[bytes], within: float) -> None:
    """Wait, `within` seconds at most, until each of `members` is linked, taking (and
    dropping) what comes meanwhile. A connection that fails to come up is waited past: the
    member dials a missing seat again (§11.3), and one of two crossing connections may
    fail while the other is still being set up (§4.7). A member that said goodbye, or
    refused this seat, will not come: it is not waited for."""
    gone: set[bytes] = set()
    with trio.move_on_after(within):
        while set(members) - mesh.linked() - gone:
            event = await mesh.receive()
            if isinstance(event, LinkDown) and not _dropped(event):
                gone.add(event.peer)


async def sign_again(mesh: Mesh, canonical: bytes, *, dials_all: bool = False) -> LobbyResult:
    """A seat stopped while the roster R was being signed takes its seat back (§11.3):
    with every member pinned on `mesh` (and dialled where an address is known), it
    gathers every member's signature of R again, as a lobby does while signing, and
    returns the started game. A member that left, or whose lobby failed (``lobby.fail``),
    ends it with a `ProtocolError`; one it must reach and cannot, or `SIGN_WAIT` seconds
    without every signature, with `NotReached`. `dials_all`: the others cannot dial
    this seat (its old port is taken)."""
    return await _Driver(mesh, None).run(SigningAgain(mesh.identity, canonical, dials_all=dials_all))


async def _hello_all_the_same(framed: FramedStream, hello: dict[str, Any]) -> None:
    """A joiner of another release sends its hello all the same (§6.2), so that the host
    can tell its player whom it turned away and why, and reads the refusal, up to
    `REJECT_TIMEOUT` (closing with it unread would reset the connection). Never raises:
    why the joiner leaves is its own reason."""
    with trio.move_on_after(REJECT_TIMEOUT):
        try:
            await framed.send(hello)
            await framed.receive()
        except (ProtocolError, PeerLeft, trio.BrokenResourceError, trio.ClosedResourceError):
            pass


def _player_left(error: BaseException) -> bool:
    """`error` is this peer's player leaving (Ctrl-C, a stop signal, the screen closed: a
    cancel, or an interrupt), in every task it reached. A cancel because a task beside
    the lobby failed (trio's `Cancelled.source` "nursery") is not: that failure ends it."""
    if isinstance(error, BaseExceptionGroup):
        return all(_player_left(inner) for inner in error.exceptions)
    if isinstance(error, trio.Cancelled):
        return error.source != "nursery"
    return isinstance(error, KeyboardInterrupt)


def left_signing(lobby: Lobby) -> str:
    """The goodbye of a peer whose player left while the roster was being signed (Ctrl-C,
    a stop signal, the screen closed), in words that follow its name and "left before
    the game began" in a game begun without it (§11.3)."""
    if isinstance(lobby, HostLobby):
        return "they closed the table as the seating was being signed"
    return "they gave up their seat as the seating was being signed"


def links_settled(backlog: Sequence[MeshEvent]) -> list[MeshEvent]:
    """The events kept for the game, with of each peer's link events only the last, where
    it stands: a link that dropped while the roster was signed and came back (§6.6) is up
    when the game begins, not lost and back again."""
    last = {event.peer: i for i, event in enumerate(backlog) if isinstance(event, (LinkUp, LinkDown))}
    return [event for i, event in enumerate(backlog)
            if not isinstance(event, (LinkUp, LinkDown)) or last[event.peer] == i]


_Awaited = bytes | tuple[bytes, int]


def _waits(lobby: Lobby, version: int) -> dict[_Awaited, float]:
    """What `lobby` awaits, and how long each may take (§6.6): the peers of its
    `awaited()`, `MESH_WAIT` seconds each; and for the host, each guest it awaits a links
    report from on this roster `version`, `REPORT_WAIT` seconds."""
    waits: dict[_Awaited, float] = dict.fromkeys(lobby.awaited(), MESH_WAIT)
    if isinstance(lobby, HostLobby):
        waits.update(dict.fromkeys(((peer, version) for peer in lobby.unreported()), REPORT_WAIT))
    return waits


def _overdue(lobby: Lobby, key: _Awaited) -> list[Action]:
    """Tell `lobby` what it awaited is overdue (`_waits`)."""
    if isinstance(key, tuple):
        assert isinstance(lobby, HostLobby)
        return lobby.on_unreported(key[0], REPORT_WAIT)
    return lobby.on_overdue(key)


def _version(lobby: Lobby) -> int:
    """The roster version the lobby stands on (-1 before a guest's welcome)."""
    return lobby.roster.version if lobby.roster is not None else -1


def _dropped(event: LinkDown) -> bool:
    """The link ended without a goodbye and without a protocol error: the connection was lost."""
    return not event.clean and event.error is None


def _gone(event: LinkDown) -> str:
    """How a guest whose link ended left the lobby, for the host's screen (a reason a
    peer's words may be part of is printed safely, §4.6)."""
    if event.clean:
        return "left the table"
    if not _dropped(event):
        return f"was disconnected: {printable(event.reason)}"
    return f"lost the connection: {_lost(event.reason)}"


def _lost(reason: str) -> str:
    """Why a link was lost, in a player's words (the log keeps the network's)."""
    if reason.startswith("could not connect"):
        return "this machine could not reach theirs"
    if reason.startswith("link setup failed"):
        return "the link to their machine could not be set up"
    return printable(reason)


@dataclass(frozen=True)
class DialFailure:
    """Why one address of a table led to no host. `kind`: "refused" (nothing listens
    there), "silent" (no answer in time), "unreachable" (no route to it, or no machine of
    that name), "not-a-name" (no resolver takes it), "dropped" (the connection ended in the
    TLS handshake), "crowded" (a table too crowded with connections waiting to take one
    more, §4.1), "not-a-table" (what answers does not speak TLS 1.3, §4.1),
    "other-protocol" (a TLS server that does not speak `ALPN`: no bandit-lan table, or one
    of another release). `detail`: the network's words."""

    address: str  # "host:port"
    kind: str
    detail: str


class TableUnreachable(ConnectionError):
    """No address of the table answered as one (`failures`, an address each)."""

    def __init__(self, failures: Sequence[DialFailure]) -> None:
        self.failures = tuple(failures)
        said = "; ".join(f"{f.address}: {f.detail}" for f in self.failures) or "no address"
        super().__init__(f"could not reach the table: {said}")


def _dial_failure(address: str, exc: BaseException) -> DialFailure:
    """What a failed connection to `address` (TCP, before any TLS) says."""
    if isinstance(exc, trio.TooSlowError):
        return DialFailure(address, "silent", "timed out")
    if isinstance(exc, ValueError):  # (a name no resolver takes, "a..b": IDNA refuses it)
        return DialFailure(address, "not-a-name", f"not a host name ({exc})")
    if isinstance(exc, socket.gaierror):
        return DialFailure(address, "unreachable", exc.strerror or str(exc))
    # trio's "all attempts to connect … failed" has each attempt's error in its cause
    tried = list(exc.__cause__.exceptions) if isinstance(exc.__cause__, BaseExceptionGroup) else [exc]
    if all(isinstance(e, ConnectionRefusedError) for e in tried):
        return DialFailure(address, "refused", "connection refused")
    first = next(e for e in tried if not isinstance(e, ConnectionRefusedError))
    return DialFailure(address, "unreachable", getattr(first, "strerror", None) or str(first))


def _handshake_failure(address: str, exc: BaseException) -> DialFailure:
    """What a failed TLS handshake with whatever answered at `address` says."""
    detail = f"TLS failed ({describe_tls_failure(exc)})"
    if isinstance(exc, trio.TooSlowError):
        return DialFailure(address, "silent", detail)
    cause = exc.__cause__ if isinstance(exc, trio.BrokenResourceError) else exc
    if isinstance(cause, Crowded):  # (it answered as a table that takes no more connections now, §4.1)
        return DialFailure(address, "crowded", detail)
    if not isinstance(cause, ssl.SSLError) or isinstance(cause, ssl.SSLEOFError) or "eof" in str(cause).lower():
        return DialFailure(address, "dropped", detail)  # (the connection ended: a table closing, say)
    if "no application protocol" in str(cause).lower().replace("_", " "):
        return DialFailure(address, "other-protocol", detail)  # (its TLS refused ours: no `ALPN` in common)
    return DialFailure(address, "not-a-table", detail)  # (its answer is no TLS 1.3: "wrong version number")


class _FrontDoor:
    def __init__(self, tls: TlsStream, peer_cert: Certificate) -> None:
        self.tls = tls
        self.peer_cert = peer_cert


async def _open_front_door(
    addresses: Sequence[tuple[str, int]], expect_host: bytes | str | None, mesh: Mesh
) -> tuple[_FrontDoor, tuple[str, int]]:
    failures: list[DialFailure] = []
    for host, port in addresses:
        where = f"{host}:{port}"
        try:
            with trio.fail_after(DIAL_TIMEOUT):
                sock = await trio.open_tcp_stream(host, port)
        except (OSError, trio.TooSlowError, ValueError) as exc:
            failures.append(_dial_failure(where, exc))
            continue
        tls = TlsStream.over(sock, front_door_context(), server_side=False)
        try:
            with trio.fail_after(HANDSHAKE_TIMEOUT):
                await tls.do_handshake()
            if (spoken := tls.selected_alpn_protocol()) != ALPN:  # (a TLS server that took none of ours)
                await trio.aclose_forcefully(tls)
                failures.append(DialFailure(where, "other-protocol", f"does not speak {ALPN} (ALPN {spoken!r})"))
                continue
            cert = check_peer(tls, expect_host)
        except ProtocolError as exc:
            await trio.aclose_forcefully(tls)
            raise exc.with_peer(where) from None
        except (trio.BrokenResourceError, trio.TooSlowError, OSError) as exc:
            await trio.aclose_forcefully(tls)
            failures.append(_handshake_failure(where, exc))
            continue
        if cert.peer_id == mesh.me:
            await trio.aclose_forcefully(tls)
            raise ProtocolError("§6.2", "that table is hosted with this very identity (same state directory): "
                                "to join it from here, join with another --state-dir (another player's identity)", where)
        return _FrontDoor(tls, cert), (host, port)
    raise TableUnreachable(failures)
