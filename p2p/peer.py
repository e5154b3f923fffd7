"""A live seat at a table: the sans-I/O order and table machines driven by trio (§7, §9, §10).

Theory of operation
-------------------
After the lobby, every peer runs one `TablePeer` over the mesh the lobby left open. It
owns the I/O and the clock; every decision belongs to the machines:

* frames from the mesh go to the `Orderer` the moment they arrive (the mesh calls
  `_on_events` from the link's task); once every link with frames has handed them over,
  `_work` sends one acknowledgement if one is due, before anything else (every other
  peer's delivery waits on it, §7.4), then takes what the order can deliver one message
  at a time, appends it to the fairness log and feeds it to the `TableMachine`; what the
  machine wants sent is stamped by the orderer and written to every link in the same
  call; waiting for frames, `_work` uses lulls (no frame in or out for `quiet.LULL`):
  it collects garbage once enough has piled up (`p2p.quiet`) and makes ahead, one at a
  time, the shares of this seat's cards that a snap would ask for
  (`TableMachine.share_ahead`), so that neither lands in the middle of a snap race;
* after every input, `p2p.ackwaits.AcksWatch` is told whose acks the next delivery
  waits for: it says what the player is told of them, which seats the table waits for
  as for a link down (the timers stand meanwhile) and which stalls to claim (§9.11
  "Acks"); and `p2p.cuts.CutWatch` is given the others' reports of links they miss
  (§11.3): it says when and how each is told; the peer words both and sends the claims;
* a timer task wakes at the earliest deadline of either machine (retransmission,
  heartbeat, turn timer, ready barrier) or of those watches, and at nothing else; one that wakes well past
  its deadline finds this process was stopped, and stands the table's clocks from when
  the others took it for gone (`_woke_from_a_stop`);
* the seat is played by a bot (`SeatDriver`, with human-like thinking and reaction
  times unless the game is headless) or by a person through the `TableSession` surface
  (the terminal client).

Processing is synchronous between awaits, so each received frame is handled
atomically. The log is fsync'd at every round end and closed on the way out, whatever
the way out is (game over, a violation, a leave, Ctrl-C), but two: a seat that goes away
meaning to come back (`go_away`: its terminal hung up) and one whose program failed leave
it open, synced, with their journal, to be taken back as after a kill. A game that
ended at a point of the agreed order (the last round scored, a delivered `leave`) is
then seen off (`p2p.farewell`, §11.4): the peer stays on its links, answering as before, until the
others have what they need from it to get there too.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import trio

from engine import Bot, GameEnded, Intent, Prng, SeatView
from p2p import lobby, quiet
from p2p.ackwaits import ACKS_SLOW_WINDOW, AcksTold, AcksWatch
from p2p.cuts import QUIET, CutTold, CutWatch
from p2p.errors import ProtocolError, RemoteError
from p2p.farewell import SEE_OFF_LIMIT, Farewell
from p2p.identity import Identity, short_id
from p2p.lobby import LobbyResult
from p2p.journal import Journal, JournalContents, SeatJournal, open_seat_journal
from p2p.log import FairnessLog, LogContents, header_for
from p2p.order import MESSAGES as ORDER_MESSAGES
from p2p.order import HEARTBEAT_EVERY, Mark, Orderer, OrderError, absence_since
from p2p.policy import Verdict, on_link_fault, on_order_error, on_refusal, on_violation
from p2p.schema import Schemas
from p2p.session import (CHOSE_TO_LEAVE, WENT_AWAY, YOU_LEFT, Line, Progress, RoundReport, SeatInfo, SessionRecord,
                         cut_after_stop, left_the_table, left_with, left_yourself, unanswered_after_stop)
from p2p.signing import SignedMessage, signed_message
from p2p.stops import stop_began
from p2p.table import MESSAGES as TABLE_MESSAGES
from engine.narrate import Narrator, Told, listed, possessive
from p2p.rejoin import restore, resumed_note
from p2p.table import Intake, SeatDriver, SeatLeft, Step, TableMachine
from p2p.table.driver import Basis
from p2p.table.messages import INTENTS
from p2p.table.secrets import SeatSecrets
from p2p.transport import SILENCE, LinkDown, LinkUp, Mesh, MeshEvent, Received, link_schemas

log = logging.getLogger("bandit_lan.peer")


def table_schemas() -> Schemas:
    """Every message a table's mesh carries: link, lobby, order (§7) and table (§9)."""
    return link_schemas(*lobby.MESSAGES, *ORDER_MESSAGES, *TABLE_MESSAGES)


@dataclass(frozen=True)
class Pace:
    """How a bot seat plays in real time: thinking before a decision and reacting to a
    card turned up (its `SnapDelay`). Headless games play at full speed."""

    think: float = 0.0
    react: bool = False


HUMAN_PACE = Pace(think=0.9, react=True)
LEAVE_WAIT = 3.0  # seconds a leaving peer waits for its leave to come back in order
# A stall claim waits at least until a link gone silent meanwhile is known and reported
# (§9.11, §11.3): with a shorter turn time, a silent link would be taken for withholding.
STALL_AT_LEAST = SILENCE + HEARTBEAT_EVERY
ALIVE_EVERY = 2.0  # seconds between marks of life on the journal (after a crash: when it stopped)
REDIAL_MAX = 1.0  # the longest pause between two attempts to reach a missing peer
JUST_BACK = 5.0  # seconds after a seat's return during which its missing links are its reconnecting
ACKS_STALL_AT_LEAST = SILENCE + 1.0  # the least time a seat may hold it back before its stall is claimed (§9.11)
# Seconds a process back from a stop the others noticed tries to reach them, at least:
# by then a link that only held what came before the stop was dropped as silent (§11.3).
BACK_FROM_STOP_WAIT = SILENCE + 1.0
FULL_SPEED = Pace()


@dataclass
class GameSummary:
    """How a game ended, for `play`/`host`/`join` to print."""

    game_id: bytes
    names: tuple[str, ...]
    rounds: int
    totals: dict[str, int]
    winners: list[str]
    log_path: Path
    finished: bool
    why: str
    left: bool = False  # this seat left the table on purpose (`leave`)
    departed: str | None = None  # the other player whose `leave` ended the game, in the agreed order (§9.8)
    away: str | None = None  # this seat went away meaning to come back, and why (`TablePeer.go_away`, §11.3)

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id.hex(),
            "rounds": self.rounds,
            "totals": self.totals,
            "winners": self.winners,
            "finished": self.finished,
            "why": self.why,
            "left": self.left,
            "departed": self.departed,
            "away": self.away,
        }


@dataclass
class Resumption:
    """What a restarted peer continues from: its reopened log and journal (§11.3)."""

    log: FairnessLog
    contents: LogContents
    journal: Journal
    journal_contents: JournalContents
    unreachable: bool = False  # its old port is taken now: the others cannot dial it, so it dials every seat
    notes: tuple[str, ...] = ()  # what the resume found, for the player's screen (it stopped long ago, its port taken)
    stopped: float | None = None  # how long ago the seat last ran (its journal's age), if known


@dataclass
class _Watchers:
    changed: trio.Event = field(default_factory=trio.Event)

    def poke(self) -> None:
        self.changed.set()
        self.changed = trio.Event()


def _either_end(reports: dict[int, tuple[float, tuple[int, ...]]]) -> set[int]:
    """The seats at either end of a link that other peers report down (`_link_reports`)."""
    return set(reports).union(*(away for _since, away in reports.values()))


class TablePeer(SessionRecord):
    """One seat of a running game. Implements `p2p.session.TableSession`."""

    def __init__(
        self,
        mesh: Mesh,
        lobby_result: LobbyResult,
        identity: Identity,
        *,
        log_path: Path,
        bot: Bot | None = None,
        seed: int = 0,
        pace: Pace = FULL_SPEED,
        on_line: Callable[[Line], None] | None = None,
        journal_dir: Path | None = None,
        seated: SeatJournal | None = None,
        resume: Resumption | None = None,
        grace: float | None = None,
        slot_label: Callable[[int], str] = str,
    ) -> None:
        """`seated`: this seat's journal, written as it signed the roster (else one is
        written in `journal_dir` now, if given); `resume`: a seat taken back after its
        game began (§11.3). `grace`: how long this seat waits for a seat away, if not the
        table's rule (`grace_s`, §6.8; tests shorten it). `slot_label` names a penalty
        slot in the table log's lines (a screen: its key). `on_line` is given each line
        as it is told by a seat played without a screen (line mode): its lines tell its
        looks with their faces, which a screen shows on the cards instead."""
        SessionRecord.__init__(self, log_path=str(log_path))
        self._watch = _Watchers()  # (first: a resumed seat's replay below tells its lines already)
        self._on_line: Callable[[Line], None] | None = None  # (set after a replay: its lines were printed before)
        self._narrator = Narrator(tuple(m.name for m in lobby_result.roster.members), lobby_result.seat,
                                  turns=True, slot_label=slot_label, private_faces=on_line is not None)
        self._game_over: GameEnded | None = None  # told once the last round's scores stand
        roster = lobby_result.roster
        grace = float(roster.rules.grace_s) if grace is None else grace
        self.mesh = mesh
        self.identity = identity
        self.roster = roster
        self._me = lobby_result.seat
        self.game_id = lobby_result.game_id
        self._signed = lobby_result.signed()  # (sent again on every link that comes up, §6.6)
        self.names = tuple(m.name for m in roster.members)
        seats = tuple(m.peer_id for m in roster.members)
        self._resumed: Step | None = None
        self._dials_all = resume is not None and resume.unreachable
        self._replayed, self._replay_ms = 0, 0.0  # (a resumed peer: records replayed, and how long it took)
        self._replayed_shares = 0  # (of them, share messages)
        self._unseen_start: int | None = None  # (a resumed peer: the turn or peek under way, begun before the crash)
        self._alive_at = -ALIVE_EVERY  # when the journal was last marked alive
        self._departed: str | None = None  # (the player whose leave ended the game, if not this seat)
        # (a resumed peer, or one back from a stop the others noticed: the seats it lost, told
        # once all are reached; () until a resumed peer begins)
        self._reconnecting: tuple[int, ...] | None = () if resume is not None else None
        self._woke_at = -JUST_BACK  # when this process last ran again after a stop the others noticed
        self._back_from_stop = False  # (`_reconnecting` are the links the others closed during a stop of this process)
        self._ran_at: float | None = None  # the last moment this process is known to have run (`_notice_stop`)
        self._stops: list[tuple[float, float]] = []  # (from, to): when this process did not run
        # (back from a stop the others noticed: by when it must reach one of them, since they end
        # the game then, how long it was stopped and when it woke; None once a seat is reached)
        self._rejoin: tuple[float, int, float] | None = None
        # (back from a stop that ran past the others' grace period for this seat: its whole
        # seconds, until every seat is reached again; it then names nobody absent)
        self._past_grace: int | None = None
        # (then: when the player reads which seats answered and how long it waits for the others)
        self._answers_due: float | None = None
        self._left_for_stop = False  # (it leaves for that stop: said once)
        # (the log's words for an end whose screen words say "you": the log is read by others)
        self._log_words: dict[str, str] = {YOU_LEFT: left_the_table(self.names[self._me])}
        # (our first content message not yet delivered, by how many of ours were, and when a screen first saw it)
        self._sending_since: tuple[int, float] | None = None
        if resume is None:
            if seated is None and journal_dir is not None:  # (no journal written at signing: written now)
                seated = open_seat_journal(
                    journal_dir, game=self.game_id, roster=lobby_result.canonical, seat=self._me, log=log_path,
                    port=mesh.port, addresses=[m.address for m in roster.members], grace=grace,
                )
            secrets = SeatSecrets(seated.seed) if seated is not None else SeatSecrets.draw(os.urandom)
            self.orderer = Orderer(seats=seats, me=self._me, game=self.game_id, sign=self._sign)
            self.machine = TableMachine(game_id=self.game_id, seats=seats, rules=roster.rules, me=self._me, secrets=secrets)
            try:
                header = header_for(lobby_result.canonical, lobby_result.signatures, self._me)
                self.log = FairnessLog.create(log_path, header, identity)  # (it signs the header and, at the close, the end)
            except BaseException:  # no log, no seat (§10.1): nothing to resume either
                if seated is not None:
                    seated.abandon_untaken()
                raise
            self.journal = None
            if seated is not None:
                self.journal, seated.taken = seated.journal, True
                self._dials_all = seated.dials_all
            replayed: list[Step] = []
            self._replayed_end: Step | None = None
        else:
            started = time.perf_counter()
            back = restore(
                log=resume.contents, journal=resume.journal_contents, seats=seats, rules=roster.rules,
                keys={m.peer_id: m.cert.public_key for m in roster.members}, schemas=table_schemas(),
                sign=self._sign, now=trio.current_time(), on_applied=self._narrate, on_step=self._replayed_step,
            )
            self.orderer, self.machine = back.orderer, back.machine
            if self.orderer.sent_of("leave"):  # (it had left: the others no longer dial it, §9.8)
                self._dials_all = True
            self.log, self.journal = resume.log, resume.journal
            self._resumed, replayed = back.unsent, back.steps
            # (a crash between logging what ended the game and closing the log: it is over)
            self._replayed_end = next((s for s in reversed(replayed) if s.finished or s.violation is not None), None)
            self._replayed, self._replayed_shares = back.replayed, back.shares
            self._replay_ms = (time.perf_counter() - started) * 1000
            self._unseen_start = self.machine.engine.turn
        self._resume_notes = resume.notes if resume is not None else ()
        self._stopped_before = resume.stopped if resume is not None else None  # (a resumed peer: its journal's age)
        self.orderer.owed = lambda seats: self.machine.owed(seats)  # (the machine may be swapped: asked late)
        self._intake = Intake()  # delivered, not yet taken by the machine (nor logged)
        self.orderer.kept = lambda seat: self._intake.kept(seat, self.machine)  # (a flood kept waiting is refused, §7.2)
        self.failed = False
        """Set when this program failed while the seat played (here, or in the screen that
        drives it): its log is left open and its journal kept, resumable as after a kill."""
        self.driver = SeatDriver(self.machine, bot, Prng.derive(seed, self._me)) if bot is not None else None
        # (the bot's turn or ready decision in its thinking time: what it was taken on, and its wait)
        self._thinking: tuple[Intent, Basis | None, trio.CancelScope] | None = None
        self._timer_at = float("inf")  # when the timer task wakes next unless woken earlier
        self._touched = False  # the table changed since the last `_after_processing` (not only acks)
        for step in replayed:
            if self.driver is not None:
                self.driver.observe(step)
        self.machine.on_applied = partial(self._narrate, self.machine)
        self.machine.stall_s = max(self.machine.stall_s, STALL_AT_LEAST)
        self.machine.clocks.timers_stand = grace  # (an absence that long ends the game anyway, §11.3)
        self.pace = pace
        self._on_line = on_line
        self._wake = trio.Event()
        self._arrived = trio.Event()  # frames were taken into the order: `_work` has work
        self._journal_failure: str | None = None  # why the journal stopped taking records
        self._leaving_why: str | None = None  # why this seat is leaving, once it said goodbye
        self._away_reason: str | None = None  # why this seat went away meaning to come back (`go_away`)
        self.comes_back = True
        """Whether the seat can go away meaning to come back (`go_away`): not one taken back
        only to leave, nor one whose bots end with its command (nothing would wait for it)."""
        self._done = trio.Event()
        self._nursery: trio.Nursery | None = None
        self._why = ""
        self.grace = grace
        self.acks_grace: float | None = None
        """How long a seat whose links are up may hold back every delivery before the game
        ends naming it (§9.11 "Acks"): the grace period, unless set apart (a shortened wait
        for seats away need not shorten the one for a slow seat's acks)."""
        self._absent: dict[int, float] = {}  # seat -> since when its link is down
        self._returned: dict[int, tuple[float, Mark]] = {}  # seat -> (how long it was away, the table's mark) at its return
        self._back_at: dict[int, float] = {}  # seat -> when its link came back after an absence
        self._told_after: set[int] = set()  # seats whose violation after the game's end was told
        self._acks = AcksWatch()  # whose acks the next delivery waits for, and how long it waited on them (§9.11)
        self._told_gone: set[int] = set()  # seats that left whose player was told what the table waits for
        self._suspended = False  # no timer or stall claims: a link is down here or elsewhere (§11.3)
        self._cut_watch = CutWatch(self._me, silence=SILENCE)  # the others' reports of links they miss, as told (§11.3)
        self._heard: dict[int, float] = {}  # seat -> when a frame last came from it
        self._active_at = 0.0  # when a frame last came or went (a lull follows, `quiet`)
        self._ahead = True  # the table changed since `share_ahead` last found nothing to make
        self._redialing: set[int] = set()
        self._absent_seat: int | None = None  # the seat whose absence ended the game
        self._leave_reason: str | None = None  # the reason this seat gave in its `leave` (§9.8)
        self._said_bye: set[int] = set()  # seats whose link went down after a goodbye
        self._lost_why: dict[int, str] = {}  # seat -> how its link last went down
        self._in_order_end = False  # the game ended at a point of the agreed order (§11.4)
        self._late: list[MeshEvent] = []  # events that came as the game ended, for the farewell
        self.see_off_limit = SEE_OFF_LIMIT
        self._gone_by = float("inf")  # when this process must be gone (it was told to stop)
        self._see_off_wake = trio.Event()  # something changed for the stay after the end

    # -- TableSession ----------------------------------------------------------------

    @property
    def me(self) -> int:
        return self._me

    @property
    def seats(self) -> tuple[SeatInfo, ...]:
        return tuple(SeatInfo(m.seat, m.name, m.cert.short) for m in self.roster.members)

    def view(self) -> SeatView:
        return self.machine.engine.view(self._me)

    def notice_stop(self) -> None:
        """A screen about to look: if this process was stopped and nothing of the seat ran
        since, the stop is taken in now (`_notice_stop`), so that a screen that runs first
        after a stop reads it (`Progress.stopped_s`) before it acts."""
        if not self._done.is_set():
            self._notice_stop(trio.current_time())

    @property
    def progress(self) -> Progress:
        """As recorded (`SessionRecord`), with the intents this seat sent that the agreed
        order has not delivered yet: asked when a screen looks, not after every frame (a
        screen calls `notice_stop` first)."""
        progress = self._progress
        progress.sending = tuple(kind for kind in self.orderer.unsettled() if kind in INTENTS)
        now, oldest = trio.current_time(), self.orderer.delivered_mine  # (the first not delivered: its number)
        if not progress.sending:
            self._sending_since = None
        elif self._sending_since is None or self._sending_since[0] != oldest:
            self._sending_since = (oldest, now)
        progress.sending_for = 0.0 if self._sending_since is None else now - self._sending_since[1]
        progress.held_by = tuple(self.orderer.holding_ours()) if progress.sending else ()
        progress.stopped_past_grace = self._past_grace
        progress.gone = tuple(sorted(self.orderer.gone()))
        progress.reconnecting_after_stop = self._back_from_stop
        return progress

    def submit(self, intent: Intent) -> bool:
        """Send an intent of this seat; whether it was sent: not once the game ended or
        the seat's run is over (it ended, or its caller cancelled it), when nothing is."""
        if self._over():
            return False
        self._notice_stop(trio.current_time())  # (the screen's timer may run first after a stop)
        self._send_intent(intent)
        self._after_processing()
        return True

    def _over(self) -> bool:
        """Whether this seat plays no more: its game ended, or its run is over (it ended,
        or was cancelled: its log is closed and its links may be gone), when it sends nothing."""
        return self._done.is_set() or self._progress.ended

    @property
    def rejoining(self) -> bool:
        """A resumed seat that has not yet begun, or a seat (resumed, or back from a stop of
        its program) that has not yet reached every seat it lost meanwhile."""
        return self._reconnecting is not None

    def now(self) -> float:
        return trio.current_time()

    async def changed(self) -> None:
        await self._watch.changed.wait()

    async def leave(self, reason: str = CHOSE_TO_LEAVE, within: float | None = None) -> bool:
        """Say goodbye through the agreed order and wait (briefly) until our own `leave`
        is delivered back, so this log ends where everybody else's does (§9.8). `reason`
        tells the others why (the client's Ctrl-C, or a signal that stops the process); a
        second call while the first is under way only waits with it. After the game ended
        there is nothing to leave: the seat only marks itself leaving, so that a client
        still showing the final standings closes. `within`: the seconds this process has
        to be gone (it was told to stop), to which the stay after the end is cut (§11.4).
        Whether this call sent the seat's `leave`: not after the game or the seat's run is
        over (`submit`), when nothing is sent, nor while a first is under way."""
        if within is not None:
            self._gone_by = min(self._gone_by, trio.current_time() + within)
            self._see_off_wake.set()
        if self._over():
            self._progress.leaving = True
            self._watch.poke()
            return False
        self._notice_stop(trio.current_time())  # (before the leave goes out, §9.6)
        if not self._send_leave(reason, YOU_LEFT):  # already on the way out
            with trio.move_on_after(LEAVE_WAIT):
                await self._done.wait()
            return False
        self._progress.leaving = True
        await self._await_leave()
        return True

    async def go_away(self, reason: str, within: float | None = None) -> None:
        """Stop playing this seat meaning to come back (its terminal was closed, §11.3):
        no `leave`; the log is left open and the journal kept, both made durable, the
        journal saying why (`reason`, as the others would read it), so that `--resume`
        takes the seat back; the links close without a goodbye, so the others wait for
        it as for a crash. A seat that cannot come back (`comes_back` false), or whose
        game ended, or that is leaving already, or that keeps no journal to be taken back
        from, leaves as `leave` would (`within` as there)."""
        if not self.comes_back or self.journal is None or self._over() or self._leaving_why is not None:
            await self.leave(reason, within)
            return
        self._away_reason = reason
        self._why = WENT_AWAY
        self._progress.leaving = True  # (a screen closes: its seat is gone from it)
        self._done.set()

    def _send_leave(self, reason: str, why: str) -> bool:
        """Send this seat's `leave` (§9.8) with `reason`: the game is to end here with
        `why` (`_await_leave`). The one place where the seat decides to leave: only the
        first call sends (its player leaving just as a stop's end makes the seat leave,
        say), and its reason stands, on the wire and in the log. Whether it was the first."""
        if self._leaving_why is not None:
            return False
        self._leaving_why, self._leave_reason = why, reason
        self._send({"type": "leave", "v": 1, "reason": reason})
        # (the others no longer dial a seat whose leave they took: while it waits for its
        # leave to come back, it re-makes every link it loses itself, §9.8)
        self._dials_all = True
        for seat in list(self._absent):
            if self._still_away(seat):
                self._start_redial(seat)
        return True

    async def _await_leave(self, wait: float = LEAVE_WAIT) -> None:
        """Once this seat sent its leave (`_send_leave`), wait `wait` seconds at most for it
        to come back delivered; the game then ends here as the leave said, whichever way
        the ending arrives."""
        assert self._leaving_why is not None
        self._after_processing()
        with trio.move_on_after(wait):
            await self._done.wait()
        if not self._done.is_set() and self._leave_held():
            shares = "; ".join(f"reveal {need} waits for the shares of {listed([self.names[s] for s in missing])}"
                               for need, missing in self.machine.waiting_for_shares.items())
            self._note(f"after {wait:g} s the table had delivered this seat's leave but held it behind a reveal "
                       f"({shares}, §9.4): the log closes at that leave, where the others' game ends", "§9.8")
        elif not self._done.is_set():
            waited = sorted(set(self._absent) | {s for away in self._cut_watch.cut_off.values() for s in away} - {self._me})
            names = ", ".join(self.names[s] for s in waited)
            if wait > 0:
                told = f"the table had not delivered this seat's leave after {wait:g} s"
                told += f" (it waited for {names})" if waited else ""
            else:  # (back from a stop, with no link up to bring it back: `_rejoin_failed`)
                told = "this seat did not wait for its leave to come back delivered"
                told += f" (it would have waited for {names})" if waited else ""
            self._note(f"{told}: the log closes without it; the others' game ends at that leave, or when their "
                       "grace period runs out", "§9.8")
        self._finish(self._leaving_why)

    def _leave_held(self) -> bool:
        """Whether this seat's own `leave` is delivered, in its log, and held by the table
        behind a reveal whose shares have not come (§9.4): the game ended at it, for the
        others who had them, and for this log."""
        held = self.machine.held_leave
        return held is not None and held.seat == self._me

    def _own_leave(self) -> SignedMessage | None:
        """The `leave` this seat signed when its player left (or it was stopped), if it
        could be signed yet (§7.3): not one a verdict sent meanwhile (§11.2)."""
        return next((e for e in self.orderer.sent_of("leave") if e.inner["reason"] == self._leave_reason), None)

    def _check_storage(self) -> None:
        """Once the log or the journal failed (a full disk, say), leave the table once."""
        failure = self.log.failure or self._journal_failure
        # This seat can no longer record the game (§10.1): it leaves, so the others' game
        # ends cleanly at one point of the order and no move goes unrecorded here.
        if (failure is not None and self._nursery is not None and not self._done.is_set()
                and self._send_leave(f"its records could not be written ({failure})",
                                     f"this game's records could not be written here ({failure})")):
            self._say(f"This game's records cannot be written here ({failure}): you leave the table.", "error")
            self._spawn(self._await_leave)

    # -- running ---------------------------------------------------------------------

    def _spawn(self, fn: Callable[..., Any], *args: Any) -> bool:
        """Start `fn(*args)` in the seat's task group (the game's, then the farewell's)
        while it runs; whether it was started. Once that group began to close (the game
        ended, the seat was stopped or failed), nothing more is started in it: what was
        asked of the seat has no game left to be done in."""
        if self._nursery is None:
            return False
        self._nursery.start_soon(fn, *args)
        return True

    def _stand_down(self) -> None:
        """The seat's task group begins to close (its tasks are being cancelled, and
        may take a while): from now on nothing is started in it (`_spawn`), and the mesh
        queues what its links bring instead of calling this seat from their tasks (the
        farewell takes it, or nobody). A link's task does not wait for the seat's, so it
        could otherwise call in once the group has closed, and start a task there."""
        self._nursery = None
        self.mesh.detach()

    async def run(self) -> GameSummary:
        """Play until the game ends (or stops); the log is closed on every way out."""
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                try:
                    nursery.start_soon(self._timers)
                    nursery.start_soon(self._work)
                    if self._resumed is None:
                        self._handle(self.machine.start())
                    else:
                        self._begin_resumed()
                    self._after_processing()
                    quiet.settle()  # (before any frame is taken: nothing is timed yet)
                    self.mesh.attach(self._on_events)
                    await self._done.wait()
                finally:
                    self._stand_down()
                nursery.cancel_scope.cancel()
        except Exception:  # a fault of this program, not an end of the game: resumable, as after a kill (§11.3)
            self.failed = True
            raise
        finally:
            if self._away_reason is not None and self.journal is not None:
                self.journal.away(self._away_reason)
            if self.failed or self._away_reason is not None:  # (both resumable, as after a kill)
                self.log.drop()
                if self.journal is not None:
                    self.journal.close(finished=False)
            quiet.release()
            if self.orderer.ack_due() and not self.log.closed:
                self._broadcast(self.orderer.ack(trio.current_time()))
            early = self._leave_reason is not None and not self._in_order_end  # (left before its leave came back)
            ended = self._log_words.get(self._why, self._why)
            self.log.close(ended or "the peer stopped", absent=self._absent_seat,
                           left=self._leave_reason if early else None,
                           leave=self._own_leave() if early else None)
            if self.journal is not None:  # the log is closed: there is nothing left to resume
                self.journal.close(finished=True)
            self._progress.ended = True
            self._progress.ended_why = self._why or "stopped"
            self._progress.finished = self.machine.finished
            self._watch.poke()
        if self._in_order_end:
            await self._see_off()
        # (a `bye` on every link: we are gone; its reason is for the others: the one our
        # `leave` gave, not our own screen's "you left the table")
        await self.mesh.aclose(self._leave_reason or self._why or "the game ended", away=self._away_reason is not None)
        self._watch.poke()
        return self.summary()

    def summary(self) -> GameSummary:
        m = self.machine
        # Only rounds whose shuffles were opened and verified count (§8.9): a round that
        # ended without its openings is void.
        verified = m.outcomes[-1].totals if m.outcomes else tuple(0 for _ in self.names)
        totals = dict(zip(self.names, verified))
        winners = [self.names[s] for s in m.engine.winners] if m.engine.over else []
        # This seat left if it said goodbye when asked to (a stop after the game only closes the screen).
        left = self._progress.leaving and self._leaving_why is not None
        return GameSummary(self.game_id, self.names, len(m.outcomes), totals, winners, self.log.path, m.finished, self._why,
                           left=left, departed=None if left else self._departed, away=self._away_reason)

    def _on_events(self, events: list[MeshEvent]) -> None:
        """Frames that arrived together on one link (the mesh calls this from the link's
        task): take them into the order at once, and leave the rest to `_work`, which runs
        once every link that has frames now has handed them over. Events that come as
        this process runs again after a stop are read as such (`_notice_stop`), whichever
        task runs first."""
        self._active()
        self._notice_stop(trio.current_time())
        for i, event in enumerate(events):
            if self._done.is_set():
                self._late.extend(events[i:])  # (the farewell takes them, §11.4)
                return
            self._on_event(event)
        if self._touched or self.orderer.has_work():
            self._arrived.set()
        else:  # acks that completed nothing (most of them): `_work` would find nothing to do
            self._wake_if_sooner(self.orderer.next_deadline())

    async def _work(self) -> None:
        """After each burst of frames (from any number of links): acknowledge once, and
        before anything else (every other peer's delivery waits on it, §7.4), then let the
        machine work through what the order released. A shuffle step of ours that became
        due is made after that, once the screen has shown what happened and the links have
        handed over what came meanwhile."""
        while True:
            await self._next_arrival()
            self._take_arrivals()
            if self._done.is_set():
                return
            if self.machine.owes_work:  # (only what the order releases makes a step due)
                await trio.lowlevel.checkpoint()
                if self._arrived.is_set():
                    self._take_arrivals()
                if not self._done.is_set():
                    self._handle(self.machine.catch_up())
                    self._after_processing()

    async def _next_arrival(self) -> None:
        """Wait for frames; on the way, use lulls for work that would otherwise land in
        a snap race: garbage collection and shares made ahead (one piece per pass, so
        frames that come meanwhile wait for one piece at most)."""
        while not self._arrived.is_set():
            if not (self._ahead or quiet.wanted()):
                await self._arrived.wait()
                return
            with trio.move_on_at(self._active_at + quiet.LULL):
                await self._arrived.wait()
            if not self._arrived.is_set():
                self._use_lull(trio.current_time())

    def _use_lull(self, now: float) -> None:
        """If no frame came or went for `quiet.LULL` (frames that did not wake `_work`
        may have come meanwhile): make one share ahead, or, when none is left to make,
        collect garbage if enough piled up (what making shares left behind included)."""
        if now < self._active_at + quiet.LULL or self._done.is_set():
            return
        if self._ahead and self.machine.share_ahead():
            return
        self._ahead = False
        quiet.tidy()

    def _take_arrivals(self) -> None:
        self._arrived = trio.Event()
        if self._done.is_set():
            return
        for envelope in self.orderer.released(self._sending_at()):  # (content that waited, §7.3)
            self._broadcast(envelope)
        if self.orderer.ack_due():
            self._broadcast(self.orderer.ack(self._sending_at()))
        self._process()
        if self._touched:
            self._after_processing()
            return
        if self.orderer.reports_changed:  # (only acks came, but one says its sender's links changed:
            self._after_processing(changed=False)  # screens, claims and the stall clock take note)
            return
        # Only acks (or side messages) came and the table is as it was, but the order may
        # now have an earlier deadline: evidence of a fork (§7.10), a confirmation (§7.3).
        self._wake_if_sooner(self.orderer.next_deadline())

    def _on_event(self, event: MeshEvent) -> None:
        if isinstance(event, Received):
            seat = self._seat_of(event.peer)
            if seat is not None:
                self._heard[seat] = trio.current_time()
            if isinstance(event.message, SignedMessage):
                self._receive(event.peer, event.message)
        elif isinstance(event, LinkDown):
            self._touched = True  # a link came or went: screens and timers take note
            seat = self._seat_of(event.peer)
            if seat is not None:
                self._lost_why[seat] = event.reason
                if event.clean:
                    self._said_bye.add(seat)
            self._link_down(event)
        elif isinstance(event, LinkUp):
            self._touched = True
            seat = self._seat_of(event.peer)
            if seat is None:
                return
            self._said_bye.discard(seat)
            self._heard[seat] = trio.current_time()
            self._rejoin = None  # (back from a stop: a seat is reached, so the table goes on)
            # its lobby may still wait for our roster signature, which may have gone down
            # with the link that dropped while the roster was being signed (a game ignores it)
            self.mesh.send(event.peer, self._signed)
            since = self._absent.pop(seat, None)
            if since is not None:
                self._returned[seat] = (trio.current_time() - since, self.orderer.mark((seat,)))
                self._back_at[seat] = trio.current_time()
                self._note(f"link to {self.names[seat]} restored")
                self.orderer.set_away(self._absent)
            if seat in self._progress.waiting_for:
                self._progress.waiting_for = tuple(s for s in self._progress.waiting_for if s != seat)
                self._tell_back(seat)
            # whatever it missed goes again now, not at the next timeout
            self.orderer.on_link_up(seat, trio.current_time())

    def _tell_back(self, seat: int) -> None:
        """A seat's link is up again: the player hears that it is back, or, while this
        seat itself comes back from a restart or a stop, that it reached that seat and
        whom it still waits for, and once that it reaches everybody again."""
        if self._reconnecting is None:
            self._say(f"{self.names[seat]} is back.", "table", seat)
            return
        waited = self._progress.waiting_for
        if waited:
            now = trio.current_time()
            if self._past_grace is not None:  # (after a stop past the grace period: which seats answered)
                if self._answers_due is None:  # (once the first answers are told)
                    self._tell_unanswered(now)
                return
            ends = self._grace_ends()
            within = "" if ends is None else f" (the game ends if they are not back within {max(0.0, ends - now):.0f} s)"
            self._say(f"Reconnected to {self.names[seat]}; waiting for {listed([self.names[s] for s in waited])}"
                      f"{within}.", "table", seat)
            return
        back = listed([self.names[s] for s in self._reconnecting])
        self._say(f"Back at the table: reconnected to {back}.", "table")
        self._reconnecting = None
        self._back_from_stop = False

    def _receive(self, link_peer: bytes, message: SignedMessage) -> None:
        """Take one signed message into the order (the machine sees it in `_process`)."""
        # A message relayed by another peer is taken like any other (its signature, not
        # the link, says who wrote it): the order relays forked messages as evidence (§7.10);
        # only what it says of its sender's present state is taken from the sender's link.
        try:
            self.orderer.receive(message, trio.current_time(), relayed=link_peer != message.sender)
        except OrderError as exc:
            self._touched = True
            forged = next((e for e in exc.evidence if not e.verify(self.mesh.keys)), None)
            if forged is not None:  # an ack its own link vouched for, signed wrongly (§4.5)
                error = ProtocolError("§4.5", f"bad signature on a {forged.type!r} message from {short_id(forged.sender)}")
                self._judge(on_link_fault(error, self._seat_of(forged.sender)), tell_others=True)
                return
            if exc.evidence:  # kept for the audit, and shown to the others so they see it too
                self.log.evidence(exc.section, exc.peer, exc.evidence)
                for envelope in exc.evidence:
                    self._broadcast(envelope)
            self._judge(on_order_error(exc, self._seat_of(exc.peer), self._seat_of(link_peer)), tell_others=True)

    def _process(self) -> None:
        """Feed the machine what the order released: side messages as they arrived, then
        content in the agreed order."""
        now = trio.current_time()
        for seat, side in self.orderer.side_deliveries():
            self.log.append_side(side)
            self._handle(self.machine.receive_side(seat, side, now))
            if self._done.is_set():
                return
        self._pump()

    def _pump(self) -> None:
        """Hand the machine what it can take of the agreed order, logging each message as
        it goes in (`Intake`): what waits behind a held message first, then new deliveries."""
        now = trio.current_time()
        for delivered in self._intake.pull(self.orderer.deliveries(), self.machine):
            self.log.append(delivered.envelope)
            self._handle(self.machine.deliver(delivered, now))
            if self._done.is_set():
                return

    def _handle(self, step: Step) -> None:
        self._touched = True
        self._ahead = True
        if step.salt is not None:
            self.orderer.set_salt(step.salt)
        for payload in step.send:
            self._send(payload)
        for payload in step.side:
            side = self.orderer.send_side(payload, self._sending_at())
            self.machine.sent_side(side)
            self.log.append_side(side)
            self._broadcast(side)
        self._tell_refusals(step, live=True)
        if self.driver is not None:
            self.driver.observe(step)
        for outcome in step.rounds:
            self.log.sync()
            quiet.settle()  # the round's scores stand: nothing is timed until the next deal
        self._retell(step)
        self._end_at(step)

    def _end_at(self, step: Step) -> None:
        """If `step` ended the game (a player left, a violation, the last round scored),
        end it here."""
        if isinstance(step.violation, SeatLeft):
            seat = step.violation.seat
            who = "You" if seat == self._me else self.names[seat] if seat is not None else "A player"
            left = left_with(step.violation.said, self.names, seat)  # "left the table (its reason)", as every log has it
            if seat == self._me:  # ("You left the table (your program was terminated)")
                left = left_yourself(left)
            self._say(f"{who} {left}; the game ends here (this round does not count).", "table", seat)
            if seat != self._me and seat is not None and not self._done.is_set():
                self._departed = self.names[seat]
            self._in_order_end = not self._done.is_set()
            self._finish(f"{'you' if seat == self._me else who} {left}")
        elif step.violation is not None:
            self._judge(on_violation(step.violation))
        elif step.finished:
            self._in_order_end = not self._done.is_set()
            self._finish("the game ended")

    def _send_intent(self, intent: Intent) -> None:
        """Send a local intent, then do ahead what its delivery will need (the claim goes
        out first)."""
        if self.driver is not None:
            self.driver.sending(intent)
        self._send(self.machine.submit(intent))
        self.machine.prepare(intent)

    def _send(self, payload: dict[str, Any]) -> None:
        # Never deliverable at once (it needs every other peer's promise), so no pump here:
        # the delivery loop stays the only place where the machine is fed. (It may wait
        # for what an ack of ours promised, §7.3: `_take_arrivals` sends it then.)
        for envelope in self.orderer.post(payload, self._sending_at()):
            self._broadcast(envelope)

    def _sending_at(self) -> float:
        """The time a message of this seat's is stamped with as it goes out, a stop taken
        in first (`_notice_stop`): work that ran long before it (a shuffle step made, a
        proof checked) may have been stopped midway, and a message sent before the stop
        is noticed would pass for the last one the others heard before it."""
        now = trio.current_time()
        self._notice_stop(now)
        return now

    def _broadcast(self, envelope: SignedMessage) -> None:
        self._active()
        self._journal_sent(envelope)
        self.mesh.broadcast_frame(envelope.wire)

    def _journal_sent(self, envelope: SignedMessage) -> None:
        """Journal a message this seat signed before it leaves: what was sent, and every
        promise an ack made (§7.3), is never forgotten (§11.3)."""
        if self.journal is not None:
            self.journal.sent(envelope)
            if self.journal.failure is not None:  # it misses this message: nobody may resume from it
                self._journal_failure = self.journal.failure
                self.journal.abandon()
                self.journal = None

    def _sign(self, inner: dict[str, Any]) -> SignedMessage:
        return signed_message(self.identity, inner)

    def _after_processing(self, *, from_timers: bool = False, changed: bool = True) -> None:
        """After any input: acknowledge, let the bot decide, refresh timers and screens
        (a timer that changed nothing at the table does not wake the screens). Screens
        woken here have seen whatever touched the table, wherever it was handled."""
        if changed:
            self._touched = False
        self._check_storage()
        self.orderer.reports_seen()
        reports = self._link_reports()  # (both watches read them: asked once an input)
        told = self._track_acks(reports)
        told = self._track_links(reports) or told
        if self.orderer.ack_due() and not self._done.is_set():
            self._broadcast(self.orderer.ack(self._sending_at()))
        self._drive()
        self._update_deadlines()
        if not from_timers:
            self._wake_if_sooner(self._next_deadline())
        if changed or told:
            self._watch.poke()

    def _track_links(self, reports: dict[int, tuple[float, tuple[int, ...]]] | None = None) -> bool:
        """Timer and stall claims wait while any link of the table is down, ours or one
        another peer reports (§11.3), and the stall clock stands meanwhile, so a lost link
        is never taken for withholding (§9.11). A seat that left and is gone (§9.8) is
        waited for as away, but what it last reported of its links says nothing now
        (`_link_reports`, read afresh unless given). What the player is told of the
        reports is `CutWatch`'s to decide. True if the reports changed."""
        if reports is None:
            self.orderer.reports_seen()
            reports = self._link_reports()
        if reports:  # (acks that cannot reach everyone, §11.3: the time they were awaited was the cut's)
            self._acks.forget(_either_end(reports))
        now = trio.current_time()
        told, changed = self._cut_watch.track(now, reports, grace=self.grace, waiting_for=self._progress.waiting_for,
                                         just_back=lambda seat: self._just_back(seat, now),
                                         quiet=lambda seat: self._gone_quiet(seat, now), reaching=self._reaching)
        for change in told:
            self._say(*self._report_words(change), change.seat)
        suspended = self._waits(reports)
        if suspended:  # (asked again as the seats whose wait goes on change)
            self.machine.clocks.pause(now, self._owes_anyway())
        elif self._suspended:
            self.machine.clocks.resume(now)
        self._suspended = suspended
        return changed

    def _report_words(self, told: CutTold) -> tuple[str, str]:
        """What the player reads of a report of missing links (`CutWatch.track`), and its kind."""
        name, left = self.names[told.seat], f"{told.left:.0f} s"
        missing = listed([self.names[s] for s in told.seats]) if told.seats else ""
        if told.what == "keeps coming back":
            whom = listed([self.names[s] if s != self._me else "you" for s in told.seats])
            return (f"{possessive(name, self.names)} report that it has no link to {whom} keeps coming back: the table "
                    f"counts it as one absence, and the game ends if it is not over within {left}.", "warning")
        if told.what == "contested":
            verb = "says" if len(told.denied) == 1 else "say"
            return (f"{name} says it cannot reach {missing}, but {listed([self.names[s] for s in told.denied])} {verb} "
                    f"otherwise; the table waits (the game ends naming {name} if that is not over within {left}).",
                    "warning")
        if told.what == "one way":
            return (f"{name} says it has no link to you, though its messages reach you; the game ends if that is not "
                    f"over within {left}.", "warning")
        if told.what == "between":
            return (f"{name} and {missing} lost the link between them; the table waits for that link (the game ends "
                    f"if it is not back within {left}).", "warning")
        if told.what == "reconnecting":
            return f"{name} is still reconnecting to {missing}; the table waits for that.", "table"
        if told.what == "lost":
            return (f"{name} lost the link to {missing}; the table waits for that link (the game ends if it is not "
                    f"back within {left}).", "warning")
        return f"{name}{' says it' if told.contested else ''} reaches everybody again.", "table"

    def _gone_quiet(self, seat: int, now: float) -> bool:
        """Whether nothing came from `seat` for a while (`QUIET`): another seat's report
        that it cannot reach `seat` likely comes just before this seat loses its own link
        too (a player's program stopped, say)."""
        heard = self._heard.get(seat)
        return heard is None or now - heard >= QUIET

    def _just_back(self, seat: int, now: float) -> bool:
        """Whether `seat` came back from an absence within the last `JUST_BACK` seconds:
        the links it lacks meanwhile are the ones it is dialling anew."""
        return now - self._back_at.get(seat, -JUST_BACK) < JUST_BACK

    def _claims_wait(self) -> bool:
        """Whether a link of the table is down, ours or one another peer reports, or the
        table waits for a seat's acks (`_waits`, the reports read afresh)."""
        return self._waits(self._link_reports())

    def _waits(self, reports: dict[int, tuple[float, tuple[int, ...]]]) -> bool:
        """Whether a link of the table is down, ours or one in `reports` (`_link_reports`),
        or the table waits for a seat's acks (`_acks_held`): timer and stall claims wait,
        and the stall clock stands."""
        return bool(self._absent or reports or self._acks_held())

    def _track_acks(self, reports: dict[int, tuple[float, tuple[int, ...]]] | None = None) -> bool:
        """Note whose acks (promises §7.3, echoes §7.10) the next delivery waits for
        (`AcksWatch`), and tell the player what changed: a seat away, or at either end of a
        link another seat reports down (`_link_reports`, read afresh unless given), is
        waited for as such (§11.3): its acks cannot reach everyone, which is no
        withholding. True if the player was told."""
        if reports is None:
            reports = self._link_reports()
        now = trio.current_time()
        held = self.orderer.holding_back()
        token, seats = held if held is not None else (("", -1), ())
        cut = _either_end(reports)
        waiting = [s for s in seats if s not in self._absent and s not in cut]
        told = self._acks.track(now, token, waiting, alone=not self._absent and not reports, stall=self._acks_stall_s,
                                absent=self._absent.keys(), cut=cut)
        for change in told:
            self._say(*self._acks_words(change), change.seat)
        return bool(told)

    def _acks_words(self, told: AcksTold) -> tuple[str, str]:
        """What the player reads of a change in a seat's acks (`AcksWatch.track`), and its kind."""
        whose = possessive(self.names[told.seat], self.names)
        if told.what == "held":
            return (f"Waiting for {whose} program to confirm the table's last messages (§7.3): no move counts until "
                    "it does, and the timers stand meanwhile.", "warning")
        if told.what == "confirms":
            return f"{whose} program confirms the table's messages again.", "table"
        if told.what == "slow":
            return (f"{whose} acknowledgements keep the table waiting: {told.waited:.0f} s of the last "
                    f"{ACKS_SLOW_WINDOW:.0f} s went by waiting for them alone (§7.3); if that goes on, the other "
                    "seats claim its stall (§9.11).", "warning")
        return f"{whose} acknowledgements keep up with the table again.", "table"

    def _acks_held(self) -> frozenset[int]:
        """The seats whose acks the table waits for as for a link down (`AcksWatch.held`):
        the timers stand, and the stall clock times those seats alone."""
        return self._acks.held(trio.current_time())

    @property
    def _acks_stall_s(self) -> float:
        """How long a seat's acks alone may keep the table waiting, within twice that
        time, before its stall is claimed (§9.11 "Acks")."""
        return max(self.machine.stall_s, ACKS_STALL_AT_LEAST)

    def _claim_acks(self, now: float) -> None:
        """Claim, once a round, the stall of a seat whose acks alone kept the next delivery
        waiting for the stall time within twice that (`AcksWatch.claims`), while every
        link of the table is up (§9.11 "Acks")."""
        if self._absent or self._link_reports() or not self.machine.playing:
            return
        number = self.machine.round_number
        for seat in self._acks.claims(now, number, self._acks_stall_s):
            self._send({"type": "stalled", "v": 1, "round": number, "what": "acks", "need": 0, "seats": [seat]})

    def _acks_deadline(self) -> float | None:
        return self._acks.deadline(trio.current_time(), self.machine.round_number, self._acks_stall_s)

    def _owes_anyway(self) -> frozenset[int]:
        """The seats whose work the stall clock times while a link of the table is down:
        the reporter, when one seat's own report is all that is down here (§9.11, §11.3),
        or the seat whose acks the table waits for, when it is all the table waits for.
        Its share goes to every seat through any link it has (relayed, §7.6), and a seat
        it names, hearing it on their own link, still waits on it: if that seat says it
        reaches the reporter, the report is false, else that seat's own clocks stand (its
        link is down) and it never claims, so the stall is counted only where it is one."""
        causes = frozenset(self._link_reports()) | self._acks_held()
        return causes if len(causes) == 1 and not self._absent else frozenset()

    def _link_reports(self) -> dict[int, tuple[float, tuple[int, ...]]]:
        """Other peers' reports of the links they miss (§11.3), but those by or about a
        seat that left and is gone: its last word stands for good, and says nothing now."""
        gone = self.orderer.gone()
        reports = {}
        for seat, (since, away) in self.orderer.cut_off().items():
            rest = tuple(s for s in away if s not in gone)
            if seat not in gone and rest:
                reports[seat] = (self._present(since), rest)
        return reports

    def _wake_if_sooner(self, deadline: float | None) -> None:
        """A deadline moved earlier than the timer task's: wake it to recompute."""
        if deadline is not None and deadline < self._timer_at:
            self._wake.set()

    def _drive(self) -> None:
        driver = self.driver
        if driver is None or self._done.is_set():
            return
        if self._thinking is not None and self._thinking[1] != driver.basis():
            intent, _, waiting = self._thinking  # (taken on a table that changed: thought anew from now)
            waiting.cancel()
            self._thinking = None
            driver.withdraw(intent)
        claim = driver.snap()  # a snap first: the turn is decided on the table it leaves
        if claim is not None:
            self._later(driver.snap_delay() if self.pace.react else 0.0, claim)
        while (intent := driver.act()) is not None:
            self._later(self.pace.think, intent, thinking=True)

    def _later(self, delay: float, intent: Intent, *, thinking: bool = False) -> None:
        """Send the bot's decision after its thinking (or reaction) time, if the table
        has not moved on meanwhile (else the bot decides again). A decision `thinking`
        (a turn or ready one) is given up as soon as what it was taken on changes
        (`SeatDriver.basis`, see `_drive`)."""
        if delay <= 0:
            self._send_intent(intent)
            return
        waiting = trio.CancelScope()

        async def send_later() -> None:
            with waiting:
                await trio.sleep(delay)
            if waiting.cancel_called or self._done.is_set():  # (given up, even if its time ran out meanwhile)
                return
            if self._thinking is not None and self._thinking[2] is waiting:
                self._thinking = None
            self._notice_stop(trio.current_time())
            assert self.driver is not None
            if self.driver.still_wanted(intent):
                self._send_intent(intent)
            self._after_processing()

        if not self._spawn(send_later):  # (the seat no longer plays)
            return
        if thinking:
            assert self.driver is not None
            self._thinking = (intent, self.driver.basis(), waiting)

    def _next_deadline(self) -> float:
        """The earliest moment the timer task has work (see `_timers` for the machine's)."""
        machine = self.machine.next_deadline(self._owes_anyway() if self._claims_wait() else None)
        deadlines = [d for d in (self.orderer.next_deadline(), machine, self._link_deadline(), self._acks_deadline())
                     if d is not None]
        return min(deadlines, default=float("inf"))

    def _active(self) -> None:
        """A frame came or went: the next lull is `quiet.LULL` from now."""
        self._active_at = trio.current_time()

    async def _timers(self) -> None:
        while True:
            self._timer_at = self._next_deadline()
            with trio.move_on_at(self._timer_at):
                await self._wake.wait()
            self._wake = trio.Event()  # (the work below never sets it: see from_timers)
            now = trio.current_time()
            self._notice_stop(now)
            self._check_links(now)
            if self._done.is_set():
                return
            if self.journal is not None and now - self._alive_at >= ALIVE_EVERY:
                self.journal.alive()
                self._alive_at = now
            self._send_timed(now)
            # While a peer is away nothing can be ordered, and a peer that is away is not
            # withholding anything: no timer or stall claims until every link of the table
            # is back, ours and those the others report (§11.3), but about a seat whose own
            # report is all that is down: that excuses nothing it owes (§9.11).
            step = self.machine.on_timer(now, self._owes_anyway() if self._claims_wait() else None)
            self._claim_acks(now)
            if step.changed():  # (an empty step must not mark the table touched: the next
                self._handle(step)  # heartbeat that arrives would then wake the screens)
            self._after_processing(from_timers=True, changed=step.changed())

    def _notice_stop(self, now: float) -> None:
        """If the timer task should have run more than `stops.OVERSLEPT` ago, this process
        was stopped (`stop_began`): take it into account once, before anything that came
        meanwhile. Whatever runs first after a stop calls this before it acts (the timer
        task, a link's events, an intent of the player's screen or of the bot, a leave),
        and so does every message of this seat's as it is stamped (`_sending_at`): a frame
        sent first would pass for the last one the others heard before the stop
        (`orderer.last_sent`), so the stop would seem too short for them to have missed
        this seat."""
        # (the stop began after the last moment this process is known to have run, not
        # at the deadline it missed, up to a heartbeat later)
        began = stop_began(self._timer_at, self._ran_at, now)
        if began is not None:
            self._timer_at = now  # (noticed: the timer task, running next, finds nothing overdue)
            self._woke_from_a_stop(began, now)
        self._ran_at = now

    def _woke_from_a_stop(self, ran: float, now: float) -> None:
        """This process last ran at `ran` (the stop is timed from then: its timer task,
        due up to a heartbeat later, missed its deadline some time after) and ran again
        only at `now`: it was stopped (Ctrl-Z, SIGSTOP) or its machine slept. It heard
        nobody meanwhile, so it blames nobody's silence: every seat is heard anew from now,
        and the time it was stopped counts toward no seat's absence (§11.3). The others
        heard nothing from it either: `SILENCE` after its last frame they took its links for
        lost, and their clocks stood from then (§9.6, §11.3). Its own clocks stand from the
        same moment, so the turn timer its player sees, and the timer and stall claims it
        makes, agree with theirs. When the others missed it, the links they closed are its
        reconnecting, and it must reach one of them before their grace period for it runs
        out (`_rejoin`), else they have ended the game, naming it away (`_rejoin_failed`)."""
        self._heard = dict.fromkeys(self._heard, now)
        self._stops.append((ran, now))
        self._acks.forget()  # (it heard no ack meanwhile: nobody kept it waiting)
        for seat, away in self._absent.items():
            self._absent[seat] = away + max(0.0, now - max(ran, away))
        last = self.orderer.last_sent  # (the others heard it last then; `ran` if it never sent)
        since = (ran if last is None else last) + SILENCE
        stopped = round(now - ran)  # (the log and the screen say the same whole seconds)
        how = (f"its clocks stood for the last {round(now - since)} s of it, as the others' did" if since < now
               else "too short for the others to miss it: its clocks ran on")
        self._note(f"this peer did not run for {stopped} s (its process was stopped, or its machine slept); "
                   f"{how}", "§9.6")
        if since < now:  # (the others missed it: the player hears why the table was waiting)
            self._rejoin = (max(since + self.grace, now + BACK_FROM_STOP_WAIT), stopped, now)
            self._say(self._stop_told(stopped, since, now), "warning")
            if since + self.grace <= now:  # (the others, if they ran, have ended the game for this seat)
                self._past_grace = stopped
                self._answers_due = now + BACK_FROM_STOP_WAIT
            self._woke_at = now  # (the links the others closed meanwhile are this seat's reconnecting, not news)
        self.machine.clocks.stand_while_stopped(since, now)
        self._progress.stopped_s += now - ran  # (what the player's screen showed nobody meanwhile)
        self._watch.poke()

    def _stop_told(self, stopped: int, since: float, now: float) -> str:
        """The player's line for a stop of `stopped` seconds (rounded) of this process
        that the others noticed at `since`."""
        paused = min(stopped, round(now - since))
        ran = stopped - paused
        text = f"This program did not run for {stopped} s (it was stopped, or the computer slept). "
        if ran >= 1 and stopped > ran:
            text += (f"The table's timers ran on for the first {ran} s of it, until the others missed you, "
                     f"and were paused for the last {stopped - ran} s.")
        else:
            text += "The others missed you at once: the table's timers were paused meanwhile."
        if since + self.grace <= now:
            text += (f" That is longer than the table waits for a player away ({self.grace:.0f} s): the others "
                     f"have likely ended the game.")
        return text

    def _rejoin_failed(self, stopped: float, unreached: tuple[int, ...] = (),
                       cuts: tuple[tuple[int, tuple[int, ...]], ...] = ()) -> None:
        """Back from a stop (or resumed after one past the grace period, `_begin_resumed`),
        this seat reached no other seat before their grace period for
        it ran out (or, after a stop past that grace period, not the seats `unreached`,
        or other seats could not reach the ones they report, `cuts`, within the grace
        period after it): they have ended the game, naming it away (§11.3). It names
        nobody absent (a table waits for others, never for itself, §10.2, and the others
        did not go away): it leaves (§9.8), and its log closes as after a leave that could
        not come back delivered (§10.1)."""
        grace = f"{self.grace:.0f} s"
        how = (f"was stopped for {stopped:.0f} s, longer than the table's grace period ({grace})"
               if stopped > self.grace else
               f"was stopped for {stopped:.0f} s, and could not reach the table again within its grace period ({grace})")
        me = self.names[self._me]
        you = it = logged = ""  # (what the seats reached report they cannot reach: on screen, in the note, in the log)
        if cuts:
            you, it, logged = (self._cut_words(cuts, "could not reach", word) for word in ("you", "it", me))
        if unreached:
            names = listed([self.names[s] for s in unreached])
            ended = (f"{names} {'has' if len(unreached) == 1 else 'have'} likely ended the game, naming you away, "
                     "and could not be reached again" + (f" ({you} either)" if you else ""))
            noted = (f"could not reach {names} after it: {names} likely ended the game, naming it away"
                     + (f" ({it} either)" if it else "") + "; it names nobody absent")
            words = unanswered_after_stop(me, how, names, logged)
        elif cuts:  # (every seat answered here: what the others report is not theirs to answer)
            ended = f"every other seat answered after it, but {you} within the grace period"
            noted = f"reached every other seat after it, but {it} within the grace period; it names nobody absent"
            words = cut_after_stop(me, how, f"{logged} within the grace period")
        else:
            ended = "the others have ended the game, naming you away"
            noted = "reached no other seat after it: the others have ended the game, naming it away"
            words = unanswered_after_stop(me, how)
        why = f"your program {how}: {ended}"
        if not self._send_leave(f"their program {how}", why):  # (the leave's reason, §9.8)
            return  # (its player left first: that leave stands)
        self._left_for_stop = True
        self._note(f"this peer {how}, and {noted}; it leaves the table", "§11.3")
        self._log_words[why] = words
        self._say(f"Your program {how}: {ended}.", "error")
        self._spawn(self._await_leave, 0.0)

    def _send_timed(self, now: float) -> None:
        """What the order's timer has due: retransmissions, a heartbeat, evidence."""
        linked = self.mesh.linked()
        for seat, envelope in self.orderer.on_timer(now):
            if seat < 0:  # our ack (a heartbeat, or one that confirms side messages)
                self._journal_sent(envelope)
                self.mesh.broadcast_frame(envelope.wire)
            elif self.machine.seats[seat] in linked:  # (a missing peer gets all of it on its return)
                self.mesh.send_frame(self.machine.seats[seat], envelope.wire)

    # -- after the game (§11.4) -----------------------------------------------------------

    async def _see_off(self) -> None:
        """Stay on the links, answering as in the game (nothing more is delivered or
        logged), until every other seat has what it needs from us to end the game too,
        or said goodbye; a seat whose link dropped is waited for (bounded)."""
        linked = self.mesh.linked()
        up = [s for s, peer in enumerate(self.machine.seats) if peer in linked]
        began = trio.current_time()
        farewell = Farewell.begin(len(self.names), self._me, began, up=up, gone=self._said_bye,
                                  limit=self.see_off_limit)
        holds = self.orderer.holds_ours
        told: set[int] = set()

        def on_events(events: list[MeshEvent]) -> None:
            for event in events:
                self._farewell_event(farewell, event)
            if self.orderer.ack_due():
                self.mesh.broadcast(self._ack_frame())
            self._see_off_wake.set()

        late, self._late = self._late, []
        on_events(late)
        self.mesh.broadcast(self._ack_frame())  # our promise at the end, with our heads: all a seat may lack
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            try:
                self.mesh.attach(on_events)
                while True:
                    farewell.until = min(farewell.until, self._gone_by)  # told to stop: cut short
                    if farewell.over(holds, trio.current_time()):
                        break
                    dropped = [s for s in farewell.staying_for(holds) if s not in farewell.up]
                    self._tell_dropped([s for s in dropped if s not in told], farewell.until - trio.current_time())
                    told.update(dropped)
                    for seat in dropped:  # §6.5: the lower seat dials
                        if self._dials(seat):
                            self._start_redial(seat, lambda seat=seat: not {seat} & (farewell.up | farewell.gone))
                    timed = self.orderer.next_deadline()
                    with trio.move_on_at(farewell.until if timed is None else min(timed, farewell.until)):
                        await self._see_off_wake.wait()
                    self._see_off_wake = trio.Event()
                    self._send_timed(trio.current_time())
            finally:
                self._stand_down()
            nursery.cancel_scope.cancel()
        behind = farewell.staying_for(holds)
        if behind:
            names = listed([self.names[s] for s in behind])
            self._say(f"Left the table without word from {names} within {farewell.until - began:.0f} s.", "warning")
            self._watch.poke()

    def _tell_dropped(self, seats: list[int], staying: float) -> None:
        if seats:
            names = listed([self.names[s] for s in seats])
            how = "; ".join(f"{self.names[s]}: {self._lost_why[s]}" for s in seats if s in self._lost_why)
            self._say(f"The link to {names} dropped as the game ended{f' ({how})' if how else ''}: staying up to "
                      f"{max(staying, 0):.0f} s so that {names} can finish it too.", "table")
            self._watch.poke()

    def _farewell_event(self, farewell: Farewell, event: MeshEvent) -> None:
        seat = self._seat_of(event.peer)
        if seat is None:
            return
        if isinstance(event, Received) and isinstance(event.message, SignedMessage):
            try:
                self.orderer.receive(event.message, trio.current_time(), relayed=event.peer != event.message.sender)
            except OrderError as exc:  # (the log is closed: the game this peer recorded is over)
                verdict = on_order_error(exc, self._seat_of(exc.peer), seat)
                log.warning("after the game, from %s (%s): %s", verdict.who(self.names), short_id(exc.peer), exc)
                if verdict.seat is not None and verdict.seat not in self._told_after:  # (once a seat: it may resend)
                    self._told_after.add(verdict.seat)
                    self._say(verdict.after_the_game(self.names), "warning", verdict.seat)
            farewell.heard(seat)
        elif isinstance(event, LinkUp):
            farewell.link_up(seat)
            self.orderer.on_link_up(seat, trio.current_time())
            self.mesh.broadcast(self._ack_frame())  # it may have restarted: our promise again, at once
        elif isinstance(event, LinkDown):
            self._lost_why[seat] = event.reason
            farewell.link_down(seat, clean=event.clean)

    def _ack_frame(self) -> dict[str, Any]:
        return self.orderer.ack(trio.current_time()).frame()

    def _update_deadlines(self) -> None:
        engine = self.machine.engine
        turn = self.machine.turn_started_at()
        peek = self.machine.peek_started_at()
        self._deadlines.turn = None if turn is None else turn + self.roster.rules.turn_s
        self._deadlines.peek = None if peek is None else peek + self.roster.rules.peek_s
        # No countdown when the game is over, while a link is down (the clocks stand, §9.6,
        # §11.3), or for a turn that began before this seat crashed: the others' clocks
        # know how long ago, and a countdown from the restart would promise time the player
        # does not have (this seat still claims at its own, later deadline, in case nobody
        # else can).
        unseen = engine.turn == self._unseen_start
        running = self._deadlines.turn is not None or self._deadlines.peek is not None
        self._deadlines.unknown = unseen and running and not (engine.over or self._suspended)  # (the screen says so)
        if engine.over or self._suspended or unseen:
            self._deadlines.turn = self._deadlines.peek = None
        # (a grace period runs only while the table is suspended: no work on a healthy table)
        self._deadlines.grace = self._grace_ends() if self._suspended and not engine.over else None

    def _link_down(self, event: LinkDown) -> None:
        seat = self._seat_of(event.peer)
        if seat is None or self._done.is_set():
            return
        if event.fault and event.error is not None:  # it sent what no honest peer sends (§11.2)
            self._judge(on_link_fault(event.error, seat), tell_others=True)
            return
        if event.clean and self._never_sat_down(seat):  # gone for good: nothing to wait for (§11.3)
            why = f"{self.names[seat]} left before the game began ({event.said or 'no reason given'})"
            self._note(why, "§11.3", event.peer)
            self._say(f"{why}: the game ends here.", "error", seat)
            self._finish(why, absent=seat)  # (a game that could not start: no departure, whatever the reason)
            return
        self._acks.forget({seat})  # (its silence before the loss was known is its absence, §11.3)
        if seat not in self._absent:  # (a return the table could not use does not end the absence: §11.3)
            self._absent[seat] = absence_since(trio.current_time(), self._returned.pop(seat, None), self.orderer.mark((seat,)))
            self.orderer.set_away(self._absent)
            if isinstance(event.error, RemoteError):  # (the peer's claim, in its words: no accusation of ours)
                self._note(event.error.closed_note(self.names[seat]), "§4.6", event.peer)
            elif event.error is not None:
                self._note(f"link to {self.names[seat]} closed: {event.error}", event.error.section, event.peer)
            else:
                self._note(f"link to {self.names[seat]} lost: {event.reason}")
        if seat in self.orderer.gone():  # it left (§9.8): its leave, not its return, is what the table waits for
            # (nor is it dialled again, and a dial to it that fails, under way as its leave came, loses no link)
            self._tell_gone(seat)
            return
        # A seat that sent its leave waits for nobody: its game ends at that leave, or after
        # LEAVE_WAIT whatever comes (§9.8); and a seat whose game ended at it says goodbye as
        # soon as this one holds what delivers it (§11.4), often before it is delivered here.
        if seat not in self._progress.waiting_for and self._leaving_why is None:
            self._progress.waiting_for = (*self._progress.waiting_for, seat)
            ends = self._rejoin[0] if self._rejoin is not None else self._absent[seat] + self.grace
            left = max(0.0, ends - trio.current_time())
            if trio.current_time() - self._woke_at < JUST_BACK:  # (the others took this seat for gone: not theirs)
                if self._reconnecting is None and self._past_grace is not None:  # (then it waits for every seat)
                    self._say(f"Reconnecting to the table (you leave it if no seat answers within {left:.0f} s)…",
                              "table")
                elif self._reconnecting is None:
                    self._say(f"Reconnecting to the table (the game ends if that takes more than {left:.0f} s)…", "table")
                self._reconnecting = (*(self._reconnecting or ()), seat)
                self._back_from_stop = True
            else:
                name = self.names[seat]
                reports = self._link_reports()
                others = [s for s in range(len(self.names)) if s not in (self._me, seat) and s not in self._absent]
                also = [self.names[s] for s in others if s in reports and seat in reports[s][1]]
                unheard = [self.names[s] for s in others if s not in reports or seat not in reports[s][1]]
                # (what the others report, and no claim of those that have not reported losing it)
                either = f", and {listed(also)} cannot reach {name} either" if also else ""
                either += f" (no word of {name} yet from {listed(unheard)})" if also and unheard else ""
                self._say(f"Lost the link to {name} ({event.reason}){either}; waiting for {name} "
                          f"(the game ends if they are not back within {left:.0f} s).", "warning", seat)
                self._cut_watch.own_loss(self._progress.waiting_for)  # (a report told just before: now this seat's loss)
        if self._dials(seat):  # it keeps trying until the peer is back (§11.3)
            self._start_redial(seat)

    def _tell_gone(self, seat: int) -> None:
        """`seat` left the table and its link is gone, its `leave` not yet delivered: the
        game ends at that leave, once the seats the table waits for are back, or when the
        first grace period runs out (§9.8, §11.3). With nobody else away the leave comes
        in order at once, and says so itself."""
        waited = [self.names[s] for s in self._progress.waiting_for if s != seat]
        ends = self._grace_ends()
        if waited and ends is not None and seat not in self._told_gone:  # (once: a link it dials again may end again)
            self._told_gone.add(seat)
            self._say(f"{self.names[seat]} left the table; the game ends when {listed(waited)} "
                      f"{'is' if len(waited) == 1 else 'are'} back (or in {max(0.0, ends - trio.current_time()):.0f} s).",
                      "table", seat)

    def _dials(self, seat: int) -> bool:
        """Whether this peer dials `seat` when their link is down: the lower seat does
        (§6.5); a seat that sent its leave (§9.8), and a resumed peer that the others
        cannot reach at its old port, dial all."""
        return self._me < seat or self._dials_all

    def _never_sat_down(self, seat: int) -> bool:
        """Whether the table still waits for `seat`'s keys, its first message (§9.2), and
        nothing of its content has arrived: a seat whose keys (or leave) came, not yet
        delivered, sat down, and its goodbye is a link lost like any other (one that ended
        the game at a leave says goodbye once this peer holds what delivers it, §11.4)."""
        owed = self.machine.owed((seat,))
        return owed is not None and owed[0] == "keys" and not self.orderer.heard_content(seat)

    def _start_redial(self, seat: int, wanted: Callable[[], bool] | None = None) -> None:
        """Dial `seat` until `wanted()` no longer holds (by default: while it is away
        during the game)."""
        if seat not in self._redialing and self._spawn(self._redial, seat, wanted or partial(self._still_away, seat)):
            self._redialing.add(seat)

    def _still_away(self, seat: int) -> bool:
        """Whether `seat` is away during the game and may come back: not one that left and
        is gone (§9.8), which is not dialled again."""
        return seat in self._absent and seat not in self.orderer.gone() and not self._done.is_set()

    async def _redial(self, seat: int, wanted: Callable[[], bool]) -> None:
        peer = self.machine.seats[seat]
        pause = 0.05
        try:
            while wanted():
                try:
                    self.mesh.dial(peer)  # (no-op while a dial is under way)
                except (KeyError, ValueError):
                    return  # no address known: it will have to dial us
                await trio.sleep(pause)
                pause = min(pause * 2, REDIAL_MAX)
        finally:
            self._redialing.discard(seat)

    def _grace_ends(self) -> float | None:
        """When the first grace period runs out: of a seat away, or of a link another
        seat reports down (§11.3); back from a stop the others noticed, theirs for this
        seat (`_rejoin`)."""
        if self._rejoin is not None:
            return self._rejoin[0]
        times = [since + self.grace for since in self._timed_absences().values()]
        times += [since + self.grace for since, _ in self._link_reports().values()]
        return min(times, default=None)

    def _timed_absences(self) -> dict[int, float]:
        """The seats away whose grace period may end the game (§11.3), with since when:
        every one, but a seat that left and is gone (§9.8) while the table waits for
        another seat's word or return. A seat gone holds back no delivery (§7.10); what
        holds back its `leave` is that other seat, which the ending then names (a false
        echo's teller, say, not the honest author it kept from the others' tables)."""
        gone = self.orderer.gone()
        if not gone or not (self._acks.waited(trio.current_time()) or any(s not in gone for s in self._absent)):
            return self._absent
        return {seat: since for seat, since in self._absent.items() if seat not in gone}

    @property
    def _acks_wait(self) -> float:
        return self.grace if self.acks_grace is None else self.acks_grace

    def _present(self, since: float) -> float:
        """`since`, later by the time this process was stopped after it: an absence is
        counted only while this process runs (§11.3)."""
        return since + sum(max(0.0, end - max(begin, since)) for begin, end in self._stops)

    def _link_deadline(self) -> float | None:
        grace = self._grace_ends()
        times = [t for t in (grace, self._answers_due) if t is not None]
        times.append(self._cut_watch.deadline(trio.current_time(), self._link_reports, self.grace))
        times += [since + self._acks_wait for since in self._acks.holding().values()]
        linked = self.mesh.linked()
        times += [heard + SILENCE for seat, heard in self._heard.items()
                  if seat not in self._absent and self.machine.seats[seat] in linked]
        return min((t for t in times if t is not None), default=None)

    def _check_links(self, now: float) -> None:
        """Drop links that went silent (so they are redialled); end the game for a peer
        that stayed away longer than the grace period (§11.3)."""
        linked = self.mesh.linked()
        for seat, heard in list(self._heard.items()):
            peer = self.machine.seats[seat]
            if seat not in self._absent and peer in linked and now >= heard + SILENCE:
                self._heard.pop(seat)
                self.mesh.close_link(peer, f"nothing heard for {SILENCE:.0f} s")
        if self._rejoin is not None:  # (back from a stop: the seats lost meanwhile are this seat's absence)
            by, stopped, woke = self._rejoin
            # (a link up `BACK_FROM_STOP_WAIT` after the wake was heard since: one holding only what came before is dropped)
            reached = bool(set(self.machine.seats) & self.mesh.linked())
            if now < woke + BACK_FROM_STOP_WAIT or (now < by and not reached):
                return
            self._rejoin = None
            if not reached and self._leaving_why is None and not self._done.is_set():
                self._rejoin_failed(stopped)
                return
        if self._answers_due is not None and now >= self._answers_due:
            self._answers_due = None
            self._tell_unanswered(now)
        reports = self._link_reports()
        if self._past_grace is not None and not self._absent and not reports:
            self._past_grace = None  # (every seat is reached again: the others did not end the game)
        grace = f"{self.grace:.0f} s"
        expired = [(seat, seat, f"was away for more than {grace}", f"did not come back within {grace}")
                   for seat, since in self._timed_absences().items() if now >= since + self.grace]
        for seat, (since, away) in reports.items():  # two others cannot reach each other
            if now >= since + self.grace:
                # (away from this seat too: said as the others say it; but not the other end of
                # this very cut, whose goodbye came here: its game ended as its grace period for
                # the cut ran out, timed from its own loss, a moment before this seat's, §11.4)
                ended = {s for s in away if s in self._said_bye and seat in reports.get(s, (0.0, ()))[1]}
                if all(s in self._absent and s not in ended for s in away):
                    expired.append((away[0], away[0], f"was away for more than {grace}",
                                    f"did not come back within {grace}"))
                    continue
                missing = listed([self.names[s] for s in away])
                denied = self._reaching(seat, away)
                if denied:  # (it is the one the table waits for: a table waits for others, never for itself, §10.2)
                    said = (f"said for more than {grace} that it could not reach {missing}, while "
                            f"{listed([self.names[s] for s in denied])} reached it")
                    expired.append((seat, seat, said, said))
                    continue
                expired.append((seat, away[0], f"could not reach {missing} for more than {grace}",
                                f"could not reach {missing} within {grace}"))
        # (a seat that holds every delivery back, its link up: its stall claims cannot be
        # delivered without its promises, so the table waits for it as for a seat away)
        wait = f"{self._acks_wait:.0f} s"
        expired += [(seat, seat, f"acknowledged none of the table's messages for more than {wait}",
                     f"acknowledged none of the table's messages within {wait}")
                    for seat, since in self._acks.holding().items() if now >= since + self._acks_wait]
        if expired and self._past_grace is not None:  # (its own stop ran past the grace period: it names nobody)
            if self._leaving_why is not None:  # (its player's own leave, or a failed store: that ends it, now)
                self._finish(self._leaving_why)
            elif not self._left_for_stop and not self._done.is_set():
                self._rejoin_failed(self._past_grace, self._unreached(), self._cuts())
            return
        if expired:
            seat, absent, what, told = expired[0]
            name, round_ = self.names[seat], self.machine.round_number
            why = f"{what}; " + (f"round {round_} is void" if round_ else "no round was dealt")
            section = "§7.3" if "acknowledged none" in what else "§11.3"
            self._note(f"{name} {why}", section, self.machine.seats[seat])
            self._say(f"{name} {told}: the game ends here"
                      + (f" (round {round_} does not count)." if round_ else ", before its first round."),
                      "error", seat)
            self._finish(f"{name} {why}", absent=absent)

    def _reaching(self, seat: int, away: tuple[int, ...]) -> list[int]:
        """The seats of `seat`'s report (§7.1 `away`) that say they reach it: this one, on
        their own link, and each other one this seat reaches whose own acks name no link
        down to `seat`. The two ends of one link disagree, so one of them does not tell
        the truth, and the table waits for the reporter (§11.3)."""
        reports = self._link_reports()
        return [s for s in away if s == self._me or (s not in self._absent and seat not in reports.get(s, (0.0, ()))[1])]

    def _unreached(self) -> tuple[int, ...]:
        """The other seats this seat cannot reach."""
        return tuple(sorted(set(self._absent) - {self._me}))

    def _cuts(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """What seats this one reaches report they cannot reach, of seats this one does
        reach (a seat missed here too is said as missed here): (reporter, seats)."""
        reports = self._link_reports()
        cuts = ((seat, tuple(s for s in away if s not in self._absent)) for seat, (_, away) in sorted(reports.items())
                if seat not in self._absent)
        return tuple((seat, away) for seat, away in cuts if away)

    def _cut_words(self, cuts: tuple[tuple[int, tuple[int, ...]], ...], verb: str, me: str) -> str:
        """`cuts` (`_cuts`) in words: "Bo cannot reach Cy and Dan cannot reach you", with
        `verb` ("cannot reach") and `me` for this seat ("" for none)."""

        def named(seats: tuple[int, ...]) -> str:
            return listed([me if s == self._me else self.names[s] for s in seats])

        return listed([f"{self.names[seat]} {verb} {named(away)}" for seat, away in cuts]) if cuts else ""

    def _tell_unanswered(self, now: float) -> None:
        """Back from a stop past the grace period (§11.3), this seat reached some seats:
        the player reads which answered, which did not, what those it reached report they
        cannot reach (`_cuts`: theirs, not a seat unanswered here), and how long it waits
        before it leaves (those that did not answer likely ended the game). Said once its
        wait to reach the table is over, and again as a seat answers later; nothing while
        it is leaving."""
        unreached, cuts = self._unreached(), self._cuts()
        ends = self._grace_ends()
        if (self._past_grace is None or not (unreached or cuts) or ends is None or ends <= now or self._left_for_stop
                or self._leaving_why is not None or self._done.is_set()):
            return
        cut = self._cut_words(cuts, "cannot reach", "you")
        if not unreached:  # (what another seat reports is no answer missing here)
            self._say(f"Every other seat answered, but {cut}: waiting {ends - now:.0f} s more, then you leave the "
                      "table.", "warning")
            return
        answered = [self.names[s] for s in range(len(self.names)) if s != self._me and s not in unreached]
        missing = listed([self.names[s] for s in unreached])
        has = "has" if len(unreached) == 1 else "have"
        who = f"{listed(answered)} answered; {missing} {has} not" if answered else f"{missing} {has} not answered"
        whom = missing if len(unreached) == 1 and not cuts else "them"
        self._say(f"{who}{f'; {cut}' if cut else ''}: waiting {ends - now:.0f} s more for {whom}, then you "
                  f"leave the table ({missing} {has} likely ended the game, naming you away).", "warning")

    def _begin_resumed(self) -> None:
        """A restarted peer (§11.3): say so, send what the crash kept from being sent,
        and wait for the others, who are reached through the links the mesh dials."""
        assert self._resumed is not None
        now = trio.current_time()
        self._note(resumed_note(self._replayed, self._replayed_shares, self._replay_ms))
        for text in self._resume_notes:
            self._say(text, "warning")
        reconnecting = "reconnecting to the table"
        stopped = self._stopped_before
        if stopped is not None and stopped >= self.grace:  # (the others, if they ran, have ended the game for this seat)
            # as after a stop past the grace period (`_woke_from_a_stop`): no move counts, it names
            # nobody absent, and it leaves if no seat answers within `BACK_FROM_STOP_WAIT`, or if a
            # grace period runs out here before every seat has (`_rejoin_failed`)
            self._past_grace = round(stopped)
            self._answers_due = now + BACK_FROM_STOP_WAIT
            self._rejoin = (self._answers_due, self._past_grace, now)
            reconnecting += f" (you leave it if no seat answers within {BACK_FROM_STOP_WAIT:.0f} s)"
        self._say(f"Resumed the game from your log ({self._replayed} records); {reconnecting}…", "table")
        for seat in range(len(self.names)):
            if seat != self._me and self.machine.seats[seat] not in self.mesh.linked():
                self._absent.setdefault(seat, now)
        self.orderer.set_away(self._absent)
        self._progress.waiting_for = tuple(sorted(self._absent))
        self._reconnecting = self._progress.waiting_for or None
        self._handle(self._resumed)
        self._broadcast(self.orderer.ack(now))
        for seat in list(self._absent):
            if self._dials(seat):
                self._start_redial(seat)
        if self._replayed_end is not None and not self._done.is_set():
            self._end_at(self._replayed_end)  # (then seen off as after any end, §11.4)

    def _judge(self, verdict: Verdict, *, tell_others: bool = False, told: Told | None = None) -> None:
        """Apply the §11.2 policy: log and show who broke which rule (`told`: the
        narrator's line for it, if it has one); on an abort, end the game here, and, when
        the others may not have seen it, tell them why."""
        culprit = self.machine.seats[verdict.seat] if verdict.seat is not None else None
        self._note(verdict.note(self.names), verdict.section, culprit)
        if told is not None:
            self._say(told.text, told.kind, verdict.seat)
        else:
            self._say(verdict.line(self.names), "error" if verdict.aborts else "warning", verdict.seat)
        if not verdict.aborts:
            return
        if tell_others and verdict.seat != self._me:
            self._send({"type": "leave", "v": 1, "reason": verdict.leave_reason(self.names)})
        self._finish(f"{verdict.who(self.names)} broke the rules of the table ({verdict.section})")

    def _finish(self, why: str, *, absent: int | None = None) -> None:
        """End the game here with `why`: the first ending wins, and a player's own leaving
        wins over any; `absent` is the seat whose absence is that ending (§11.3)."""
        if not self._done.is_set():
            # (its own leave held behind a reveal's shares as the game ends here, its wait
            # run out, say: the game ended at that leave, and the log's end says so)
            self._in_order_end = self._in_order_end or self._leave_held()
            self._why = self._leaving_why or why
            self._absent_seat = absent if self._leaving_why is None else None
            self._done.set()
            self._tell_unordered()

    def _tell_unordered(self) -> None:
        """The game ended with moves of this seat's sent but not yet in the agreed order
        (sent while a player was away, say): they never count; the player reads so, and
        the log notes it."""
        kinds = [kind for kind in self.orderer.unsettled() if kind in INTENTS]
        if not kinds:
            return
        why = None if self.machine.finished else self._why
        left = self._leave_reason is not None and not self._in_order_end  # (its leave not back: sent before it)
        they = "it" if len(kinds) == 1 else "they"
        self._note(f"this seat left before the order delivered its {listed(kinds)}: the others deliver {they} "
                   "just before its leave, if their game reaches it" if left else
                   f"the game ended before the order delivered this seat's {listed(kinds)}: {they} never counted",
                   "§9.8")
        told = self._narrator.unordered([INTENTS[kind][0] for kind in kinds], why, left)
        self._say(told.text, told.kind, told.seat)

    def _seat_of(self, peer: bytes) -> int | None:
        try:
            return self.machine.seats.index(peer)
        except ValueError:
            return None

    def tell(self, text: str, kind: Any = "table") -> None:
        """Add a line of the caller's own to the table's event log (what the lobby knew)."""
        self._say(text, kind)

    def _say(self, text: str, kind: Any = "table", seat: int | None = None, yours: bool = False) -> None:
        line = Line(text, kind, seat, yours)
        self._lines.append(line)
        if self._on_line is not None:
            self._on_line(line)
        self._watch.poke()  # (a line is a change: one said on a timer, the table standing, wakes its watchers)

    def _narrate(self, machine: TableMachine, event: Any, notes: Any, stamp: int | None = None) -> None:
        """Tell the player what the machine just applied (live, and again when a resumed
        seat replays its log, so its screen shows the story so far); `stamp` is its
        message's Lamport stamp (§7.3), which tells a race from the table's lot (§7.4)."""
        # The engine ends the game when it scores the last round, but that round's result
        # is provisional until its shuffles are opened (§8.9, §9.7): who won is told then.
        ended = [note for note in notes if isinstance(note, GameEnded)]
        if ended:
            self._game_over = ended[-1]
            notes = [note for note in notes if not isinstance(note, GameEnded)]
        for told in self._narrator.narrate(machine.engine, event, notes, stamp):
            self._say(told.text, told.kind, told.seat, told.yours)  # type: ignore[arg-type]

    def _tell_refusals(self, step: Step, *, live: bool) -> None:
        """Tell the player each intent `step` refused, in the table's words. Live, another
        seat's refusal is also judged and noted in the log (§11.2); a replay finds that
        note already in the log and only tells the line again."""
        for refused in step.refused:
            told = self._narrator.refusal(refused.intent, refused.section, refused.told)
            if live and refused.seat != self._me:
                self._judge(on_refusal(refused), told=told)
            else:
                self._say(told.text, told.kind, refused.seat)

    def _replayed_step(self, step: Step) -> None:
        """What `step` told the player when it was live: its refusals, then its rounds."""
        self._tell_refusals(step, live=False)
        self._retell(step)

    def _retell(self, step: Step) -> None:
        """The rounds whose scores stand after `step`: their reports and their lines."""
        for outcome in step.rounds:
            self._reports.append(
                RoundReport(outcome.round, outcome.scores, outcome.totals, outcome.caller, outcome.exhausted,
                            outcome.tableaus, True, "every seat showed how it shuffled, and every card was where it should be")
            )
            self._say(f"Round {outcome.round}: every shuffle was shown and checked; the scores stand.", "round")
            if self._game_over is not None:
                told, self._game_over = self._narrator.game_over(self._game_over), None
                self._say(told.text, told.kind, told.seat)  # type: ignore[arg-type]

    def _note(self, text: str, section: str | None = None, peer: bytes | None = None) -> None:
        """A `log.note` for the fairness log (§10.1). The player is told in the table's own
        words (`_say`), so the program's log keeps it below the warnings a screen shows."""
        log.info("%s", text)
        self.log.note(text, peer=peer, section=section)
