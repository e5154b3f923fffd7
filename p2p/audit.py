"""The audit: re-verify a fairness log with the same code that played the game (§10.2).

Theory of operation
-------------------
A log holds the roster with everyone's signature and every delivered message, exactly
as signed. The audit checks, in order, and stops at the first thing that does not hold:

1. the roster decodes canonically and every member signed it; the game id follows; the
   header is signed by the writer it names (else nothing says whose log it is); a header
   that does not decode is told as damage, with its byte, one that decodes as the
   certificate or signature that does not hold;
2. each record: its signature by a seated member (§4.5), its schema (§4.4, §7.1, §9),
   its place in its sender's chain and in the agreed order (§7, `OrderReplay`); the
   ``log.end``, signed by the writer over everything before it (else the log was altered
   after it was closed); a log altered before that signed end (a record missing, moved or
   changed there) was signed so by its writer's key, and says so (`signed_false`);
3. the game: an observer `TableMachine` (no seat, no secrets) replays every record,
   which re-verifies every key proof, beacon, shuffle step, share and proof (§8), every
   engine transition (R1–R10), every round's openings with every card re-derived, and
   every score; the records of each stamp are held against the tie-break before the first
   of them is replayed, so that a record moved ahead of another of its stamp says the log
   was altered before it can seem to break a rule; a peer's violation stops the replay
   exactly where it stopped the game, and records past a message the table held behind
   shares the log lacks (with no stall claim about them) say the log was altered: no
   honest peer hands those over (§10.1);
4. the end: the game finished (every seat said ``done``) and the log was closed; its
   ``absent`` names neither its writer nor anybody at all once the game ended (an end
   no honest peer writes is its writer's, as it is signed by its key, `signed_false`). A log
   that stopped because the order refused a peer's message keeps that peer's signed
   messages as evidence (``log.evidence``): if they prove the violation (two bodies with
   one seq, a stamp below a promise, a stamp above what its message names with the
   messages it names), that peer is named; an unproven claim names nobody.

The result says what the game was (players, rounds, cards, scores, snaps, who saw
which card) and the verdict; `first_failure` names the record, the peer and the check.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from engine.errors import Words
from p2p.errors import ProtocolError
from p2p.identity import MAX_CERT_SIZE, Certificate, CertificateRefused, short_id, verify_signature
from p2p.log import HeaderUnreadable, LogContents, LogError, NotALog, read_log
from p2p.order import MESSAGES as ORDER_MESSAGES
from p2p.order import Delivered, ForeignGame, HeadsForked, OrderError, OrderReplay, lamport_bound, message_hash, other_seats
from p2p.plain import SHARE_MESSAGES, either, either_seats, leave_claim, side_message
from p2p.policy import told_with
from p2p.roster import Member, Roster, game_id_of, parse_canonical, roster_signature_valid
from p2p.schema import Schemas
from p2p.session import accuses, left_with
from p2p.signing import SignedMessage, open_signed, signed_frame
from p2p.table import MESSAGES as TABLE_MESSAGES
from p2p.table import Applied, Refused, RoundOutcome, SeatLeft, TableMachine
from p2p.table.intake import judged_at_once
from p2p.transport import link_schemas

NEVER_CLOSED = ("it was never closed: its game is still being played, or its peer stopped (it may resume, §11.3), "
                "or the records after this point were cut off")
"""What a log without its `log.end` may be (§10.2), in its own verdict and beside the others' (§10.3)."""

UNCLOSED_END = ("it holds the whole game but no log.end: its writer crashed or left without closing it, or the file "
                "was cut after its last record; everything it holds checks")
"""What a log that holds the whole game but was never closed may be (§10.2)."""


def torn_at(intact: int) -> str:
    """A torn log (§10.1), in its own verdict and beside the others' (§10.3)."""
    return (f"last record, from byte {intact} on, was cut short: its peer stopped while writing it, or the file "
            "was cut there")


@dataclass(frozen=True)
class Failure:
    """The first thing in a log that does not hold."""

    record: int | None  # index of the log.msg record, from 0 (None: the header or the end); text counts from 1
    seat: int | None  # the peer responsible, if one is
    section: str
    what: str
    suspects: tuple[int, ...] = ()  # (seat None) the seats one of which broke it: nothing tells which (§7.5)
    words: Words = ()  # `what` with its seats and slots left to name, where the table gave them so
    # the file is not as an honest peer writes and closes a log (§10.2 steps 1-2: its header, a record or
    # frame, a chain, the order, its end's signature): changed or damaged, whoever did it; nobody is blamed
    altered: bool = False
    # (altered) the writer, whose log.end verifies under its key over every byte before it: its key signed
    # the file as it is, which no honest program does (`signed_false`); no move at the table is blamed on it
    signed_by: int | None = None

    def describe(self, names: Sequence[str] = ()) -> str:
        where = "the log" if self.record is None else f"record {self.record + 1}"  # (from 1, as seats are)
        who = ""
        if self.seat is not None:
            seat = self.seat + 1  # a person counts seats from 1, as the report's players line does
            who = f" by {names[self.seat]} (seat {seat})" if self.seat < len(names) else f" by seat {seat}"
        elif self.suspects and all(s < len(names) for s in self.suspects):
            who = f" by {either(self.suspects, names)} ({either_seats(self.suspects)})"
        return f"{where}{who}: {self.section}: {told_with(self.words, self.what, names)}"


@dataclass(frozen=True)
class Departure:
    """Why a game ended early with nobody at fault: a seat's `leave` (§9.8), or the end
    of the writer's wait for an absent seat (§11.3, `log.end` with `absent`)."""

    seat: int  # the seat that left, or whose absence ended the game
    why: str  # as recorded: the `leave` reason, or the writer's `log.end` sentence
    told: str  # the whole clause, naming who did what ("Bo left the table (…)", "Ann's table ended it, naming …")
    named: str = ""  # what the log says of that seat, beside the others' (§10.3): "names Bo absent"


@dataclass(frozen=True)
class RoundStep:
    """A message of the round's protocol the story tells at its place (§9.7, §9.10): a
    seat's `challenge` (`card` and `check` as it sent them) or its `opening`."""

    record: int  # its log.msg index, from 0
    seat: int
    round: int
    kind: str  # "challenge" or "opening"
    card: int | None = None
    check: str | None = None


@dataclass(frozen=True)
class Voided:
    """Where and why a round became void (§9.10), as `TableMachine.void` says."""

    record: int  # the log.msg index (from 0) of the message at which it became void
    round: int
    check: str  # "not-a-card", "duplicate-card" (a card every seat saw) or "challenge"
    card: int
    challenger: int | None


@dataclass
class AuditResult:
    path: Path
    game_id: bytes = b""
    roster: Roster | None = None
    writer: int | None = None  # the seat whose log this is
    records: int = 0
    applied: list[Applied] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    rounds: list[RoundOutcome] = field(default_factory=list)
    steps: list[RoundStep] = field(default_factory=list)  # every challenge and opening delivered
    voided: list[Voided] = field(default_factory=list)
    finished: bool = False
    left: Departure | None = None  # a player left, or was away too long, and the game ended there
    closed: str | None = None
    end_signed: bool | None = None  # its `log.end` verifies under its writer's key (None: no end, or no writer)
    first_failure: Failure | None = None
    machine: TableMachine | None = None
    contents: LogContents | None = None
    not_a_log: bool = False  # the file does not start as every log does: not a fairness log at all

    @property
    def ok(self) -> bool:
        return self.first_failure is None

    @property
    def altered(self) -> bool:
        """Whether its own audit finds the file changed or damaged (`Failure.altered`):
        beside logs that are not, it is set aside as damaged (§10.3)."""
        return self.first_failure is not None and self.first_failure.altered

    @property
    def signed_as_is(self) -> bool:
        """Whether its writer's key signed the file as it is, up to its end: its `log.end`
        verifies over every byte before it, and what its own audit finds altered, if
        anything, lies there (`signed_false`), not in bytes after that end (anybody's)."""
        return bool(self.end_signed) and (not self.altered or self.first_failure.signed_by is not None)  # type: ignore[union-attr]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.roster.members) if self.roster else ()

    def member(self, peer: object) -> Member | None:
        """The seated member with this peer id, if the log's roster has one."""
        return self.roster.member(peer) if self.roster is not None else None

    @property
    def writer_name(self) -> str | None:
        """The name of the seat that wrote the log, if the log says."""
        names = self.names
        return names[self.writer] if self.writer is not None and self.writer < len(names) else None

    @property
    def totals(self) -> dict[str, int]:
        if self.machine is None or not self.rounds:
            return {}
        return dict(zip(self.names, self.rounds[-1].totals))

    @property
    def winners(self) -> list[str]:
        """Who won: nobody until the game finished (every seat said done, §9.8) and its log
        holds as a whole (a log cut before its `log.end` does not); a game stopped after its
        last round has no winner (§10.2)."""
        if self.machine is None or not self.finished or not self.machine.engine.over or not self.ok:
            return []
        return [self.names[s] for s in self.machine.engine.winners]


def audit(path: Path) -> AuditResult:
    """Audit the log at `path`; never raises for anything the log contains."""
    return signed_false(_checked(path))


def signed_false(result: AuditResult) -> AuditResult:
    """`result`, where its own audit finds the file altered (step 2, or the order of
    step 3) though its `log.end` verifies under its writer's key over every byte before
    it, with its failure saying whose the log is (`Failure.signed_by`): that key signed
    the file as it is, and an honest program never signs a log it did not write so (a
    crash or a failing disk leaves no end, a resumed seat logs on after what it logged,
    and bytes changed after the close fail the end's signature, §10.1)."""
    failure, contents = result.first_failure, result.contents
    if failure is None or not failure.altered or not result.end_signed or result.writer_name is None:
        return result
    if contents is not None and contents.damaged is not None and failure == _frame_damaged(*contents.damaged):
        return result  # (a frame after its end, which its signature does not cover: anybody's)
    what = failure.what.replace(" (nobody is blamed)", "").replace(": nobody is blamed", "")
    result.first_failure = replace(failure, what=f"{what}; {writer_signed_it(result.writer_name)}",
                                   signed_by=result.writer)
    return result


def writer_signed_it(name: str) -> str:
    """Why a log that is not as an honest program writes one, but whose `log.end`
    verifies under its writer's key, is its writer's (§10.2), in words."""
    return (f"yet its log.end verifies under {name}'s key, over every byte before it, so {name}'s key signed this "
            "log as it is, which no honest program does (a crash or a failing disk leaves a log without its end, "
            "and a byte changed after the close breaks the end's signature): the log is false, made so by "
            f"{name}'s program or with {name}'s key")


def _checked(path: Path) -> AuditResult:
    """The audit of the log at `path` (`audit`), before `signed_false`."""
    result = AuditResult(path)
    try:
        contents = read_log(path, partial=True)  # (a frame that cannot be read: everything before it is told)
    except HeaderUnreadable as exc:
        # (a changed length shows a whole header record in it: a log's, so no doubt that it is one)
        doubt = "" if "length was changed" in exc.reason else " (or the file is not a fairness log)"
        result.first_failure = Failure(None, None, exc.section, _header_damaged(
            f"its first frame, which starts at byte {exc.offset}{doubt}", "it cannot be read as a log.header", exc.reason,
            inside=False),
            altered=True)
        return result
    except NotALog as exc:  # (no log at all: nothing in it is checked, §10.2)
        result.first_failure = Failure(None, None, exc.section, exc.reason)
        result.not_a_log = True
        return result
    except LogError as exc:
        result.first_failure = Failure(None, None, exc.section, exc.reason)
        return result
    except OSError as exc:
        result.first_failure = Failure(None, None, "§10.1", f"the log cannot be read: {exc.strerror or exc}")
        return result
    result.contents = contents
    header = contents.header
    try:
        roster = parse_canonical(header.roster)
    except ProtocolError as exc:
        result.first_failure = _roster_failure(contents, exc)
        return result
    result.roster = roster
    result.game_id = game_id_of(header.roster)
    members = roster.members
    if header.seat >= len(members):  # (then the log has no writer: nothing may name one)
        result.first_failure = Failure(None, None, "§10.1", f"the header names its writer as seat {header.seat + 1}, "
                                                            f"but the roster has {len(members)} seats", altered=True)
        return result
    writer = members[header.seat]
    if not verify_signature(writer.cert.public_key, contents.header_signature[1], contents.header_signature[0]):
        result.first_failure = Failure(None, None, "§10.1", f"the log.header names seat {header.seat + 1} ({writer.name}) "
                                                            "as its writer, but its signature does not verify under "
                                                            f"{writer.name}'s key: the header was altered, and nothing "
                                                            "says whose log this is", altered=True)
        return result
    result.writer = header.seat
    if len(header.signatures) != len(members):
        result.first_failure = Failure(None, None, "§10.1", "the header does not hold one roster signature per seat",
                                       altered=True)
        return result
    for member, sig in zip(members, header.signatures):
        if not roster_signature_valid(member.cert, header.roster, sig):  # (not its signature: nobody is blamed)
            result.first_failure = Failure(None, None, "§6.6", f"the log's header does not hold: the signature it gives "
                                                               f"as seat {member.seat + 1}'s ({member.name}) over the "
                                                               f"roster does not verify under {member.name}'s key: the "
                                                               "header was altered", altered=True)
            return result

    seats = [m.peer_id for m in members]
    keys = {m.peer_id: m.cert.public_key for m in members}
    schemas = link_schemas(*ORDER_MESSAGES, *TABLE_MESSAGES)

    # Pass 1, the log's integrity: signatures, schemas, chains, stamps never backwards;
    # each sender's side chain unbroken too.
    opened: list[SignedMessage] = []
    integrity = OrderReplay(seats=seats, game=result.game_id, ties=False)
    broken: Failure | None = None
    sides: list[tuple[int, SignedMessage]] = []
    messages = contents.messages
    for index, (body, sig) in enumerate(contents.sides):
        try:
            side = open_signed(signed_frame(body, sig), keys, schemas)
            sides.append((integrity.side(side), side))
        except ProtocolError as exc:
            broken = Failure(None, None, exc.section, _damaged(contents.side_at[index], exc.reason, body, roster, side=True),
                             altered=True)
        except ForeignGame as exc:
            broken = Failure(None, None, exc.section, f"{side_record(contents.side_at[index])}: "
                                                      f"{_foreign(exc.peer, roster, side, 'share ')}", altered=True)
        except OrderError as exc:  # (its place in the file, and in its sender's side chain, §7.8)
            broken = Failure(None, None, exc.section, f"{side_record(contents.side_at[index])}, "
                                                      f"{_whose(exc.peer, roster)}: {exc.reason}{ALTERED}", altered=True)
        if broken is not None:  # (the game is still told up to there: every message the file holds before it)
            messages = messages[:sum(1 for side, _ in contents.sequence[:contents.sequence.index((True, index))]
                                     if not side)]
            break
    for index, (body, sig) in enumerate(messages):
        try:
            message = open_signed(signed_frame(body, sig), keys, schemas)
            integrity.next(message)
        except ProtocolError as exc:
            # a record no member signed, or signed but malformed (which no honest peer logs,
            # the order refuses it first): the log was altered, and nobody is blamed
            # (before any side record that failed, by the cut above: the first thing that fails)
            broken = Failure(index, None, exc.section, _damaged(contents.message_at[index], exc.reason, body, roster),
                             altered=True)
            break
        except ForeignGame as exc:  # (a replay: its signer may have sent it honestly in that game, §7.10)
            broken = Failure(index, None, exc.section, _foreign(exc.peer, roster, message), altered=True)
            break
        except OrderError as exc:
            # a record out of place says the log was altered: nobody at the table is blamed
            broken = _out_of_place(index, exc, roster)
            break
        opened.append(message)
    if broken is None and contents.damaged is not None:
        broken = _frame_damaged(*contents.damaged)
    if contents.end_signature is not None:  # (the writer's signature over everything before its end)
        result.end_signed = verify_signature(writer.cert.public_key, contents.end_signature[1], contents.end_signature[0])
        if not result.end_signed and broken is None:
            broken = Failure(None, None, "§10.1", f"the log.end's signature does not verify under its writer's key "
                                                  f"({writer.name}, seat {writer.seat + 1}): the log was altered after "
                                                  "it was closed (its end, or a record before it)", altered=True)

    # Pass 2, the game: the agreed order with its ties and heads (§7.4, §7.5), then every
    # message through the table machine, up to where the log's integrity holds. A log
    # altered anywhere is judged as altered: nothing in it may then convict a player.
    replay = OrderReplay(seats=seats, game=result.game_id)
    machine = TableMachine(game_id=result.game_id, seats=seats, rules=roster.rules, me=None)
    result.machine = machine
    for seat, side in sides:  # shares wait in the machine until their need comes up
        step = machine.receive_side(seat, side, 0.0)
        if step.violation is not None:
            v = step.violation
            result.first_failure = broken or Failure(None, v.seat, v.section, v.reason, words=v.words)
            return result
    # Records handed over while the machine held one behind a reveal's missing shares, not
    # closed by a stall claim about shares: no honest peer hands its table those (§10.1).
    unhanded: int | None = None
    # Where the tie-break breaks among the records of the stamp being replayed (§7.4): known
    # before any of them is judged, it comes first, as a record out of place there may seem
    # to break a rule (a share for another card) that it broke only in the altered order.
    ahead: tuple[int, OrderError] | None = None

    def stop(found: Failure) -> AuditResult:
        if ahead is not None:
            result.records = ahead[0] + 1
            found = _out_of_place(*ahead, roster)
        result.first_failure = _first(broken, found)
        return result

    for index, message in enumerate(opened):
        result.records = index + 1
        if ahead is None and (tie := replay.ties_ahead(opened[index:index + len(seats)])) is not None:
            ahead = index + tie[0], tie[1]  # (a stamp's records are at most one per seat, by the first pass)
        try:
            delivered = replay.next(message)
        except OrderError as exc:
            return stop(_out_of_place(index, exc, roster))
        unjudged = _order_verdict(result, index, delivered)
        if unjudged is not None:
            return stop(unjudged)
        if machine.holding and unhanded is None:
            unhanded = index
        step = machine.deliver(delivered, 0.0)
        if judged_at_once(delivered) or not machine.holding:
            unhanded = None
        if step.salt is not None:
            replay.set_salt(step.salt)
        result.applied.extend(step.applied)
        result.refused.extend(step.refused)
        result.rounds.extend(step.rounds)
        _round_steps(result, index, delivered)
        if isinstance(step.violation, SeatLeft):  # the game ends; later records are still checked
            assert step.violation.seat is not None
            seat = step.violation.seat
            reason, name = left_with(step.violation.said, result.names, seat), result.names[seat]
            result.left = Departure(seat, reason, _leaving(name, reason, accused=accuses(step.violation.said,
                                                                                       result.names, seat)),
                                    f"holds {name}'s leave")
            continue
        if step.violation is not None:
            v = step.violation
            return stop(Failure(index, v.seat, v.section, v.reason, v.suspects, v.words))
    if broken is not None:
        result.records = broken.record + 1 if broken.record is not None else result.records
        result.first_failure = broken
        return result
    if unhanded is not None:
        result.first_failure = _held_behind_shares(result, unhanded)
        return result
    result.finished = machine.finished
    result.closed = contents.ended
    if contents.absent is not None and contents.absent == result.writer:
        result.first_failure = Failure(None, None, "§10.1", "its log.end says the game ended because its own writer "
                                                            "was away: a table waits for others, never for itself, "
                                                            "so the log was altered", altered=True)
        return result
    if contents.absent is not None and (machine.finished or result.left is not None):
        result.first_failure = _absent_after_the_end(result, contents.absent)
        return result
    proven = None if machine.finished else _proven_violation(contents, keys, schemas, seats, result.game_id)
    if proven is None and (contents.left is not None or contents.leave is not None):  # (evidence comes first)
        early = _left_early(result, contents, opened, keys, schemas)
        if isinstance(early, Failure):
            result.first_failure = early
            return result
        result.left = early
    if (held := machine.held_leave) is not None and held.seat == result.writer and result.left is None \
            and contents.ended is not None and contents.absent is None:
        result.left = _left_held(result, held)
    if contents.absent is not None and not machine.finished and result.left is None and contents.absent < len(seats):
        # the writer's table ended the game for this seat: after the grace period, or at its
        # goodbye before its keys (§11.3)
        result.left = _absence(result, contents.absent, contents.ended or "")
    if proven is not None:
        result.first_failure = proven
    elif contents.torn:
        result.first_failure = Failure(None, None, "§10.1", f"the log's {torn_at(contents.intact)}")
    elif not machine.finished and result.left is None:
        if (awaited := _awaited_shares(result)) is not None:
            what = (f"the log ends waiting for {awaited}, which it does not hold "
                    "(the log is incomplete, or records of share messages were removed)")
        elif not opened and contents.ended is not None:  # (its end signs every byte before it: nothing was cut)
            what = (f"the log holds no message: its writer closed it before the game's first message (its log.end "
                    f"says: {contents.ended!r}), so there is no game to check")
        elif not opened:
            what = "the log holds no message: its game never began, or the file was cut after its header"
        elif machine.round_number == 0:
            what = "the log ends before round 1 began, before the game did"
        else:
            what = f"the log ends in round {machine.round_number}, before the game did"
        if contents.ended is None:  # no `log.end`: its writer is still at the table, or stopped
            what += f"; {NEVER_CLOSED}; everything before holds"
        result.first_failure = Failure(None, None, "§10.2", what)
    elif contents.ended is None:
        result.first_failure = Failure(None, None, "§10.1", f"the log was not closed: {UNCLOSED_END}")
    return result


def _round_steps(result: AuditResult, index: int, delivered: Delivered) -> None:
    """Keep what the story tells of the round's protocol at record `index`: a challenge
    or an opening delivered there, and the round becoming void there."""
    assert result.machine is not None
    inner = delivered.envelope.inner
    if delivered.rejected is None and inner["type"] in ("challenge", "opening"):
        result.steps.append(RoundStep(index, delivered.seat, inner["round"], inner["type"], inner.get("card"),
                                      inner.get("check")))
    void, number = result.machine.void, result.machine.round_number
    if void is not None and not any(v.round == number for v in result.voided):
        result.voided.append(Voided(index, number, *void))


def _left_early(result: AuditResult, contents: LogContents, opened: Sequence[SignedMessage],
                keys: Mapping[bytes, bytes], schemas: Schemas) -> Departure | Failure:
    """The writer left before its `leave` came back delivered (§9.8, `log.end` with `left`):
    the departure, or what in that claim an honest peer never writes: its end is its
    writer's own word, as its `absent` is, signed by its key, so such an end is told as
    the log altered, and `signed_false` names it its writer's."""
    assert result.machine is not None and result.writer is not None
    name, reason = result.names[result.writer], contents.left

    def altered(what: str) -> Failure:
        return Failure(None, None, "§10.1", f"its log.end {what}: the log was altered", altered=True)

    if reason is None:
        return altered("holds a leave but no reason for it (left)")
    if contents.absent is not None:
        return altered("says both that its writer left and that another seat's absence ended the game")
    if result.machine.finished or result.left is not None:
        return altered(f"says its writer, {name}, left before the table delivered its leave, "
                       "but the log holds the end of the game")
    if contents.leave is not None:
        body, sig = contents.leave
        try:
            leave = open_signed(signed_frame(body, sig), keys, schemas)
        except ProtocolError as exc:
            return altered(f"holds a leave that does not open ({exc.section}: {exc.reason})")
        inner = leave.inner
        assert result.roster is not None
        if leave.sender != result.roster.members[result.writer].peer_id or inner["type"] != "leave" \
                or inner["game"] != result.game_id or inner["reason"] != reason:
            return altered(f"holds a message that is not {name}'s leave of this game for the reason it gives")
        last = next((m for m in reversed(opened) if m.sender == leave.sender), None)
        if last is not None and (inner["seq"] <= last.inner["seq"] or inner["lamport"] <= last.inner["lamport"]
                                 or (inner["seq"] == last.inner["seq"] + 1
                                     and bytes(inner["prev"]) != message_hash(last.body))):
            return altered(f"holds a leave of {name}'s that does not follow its messages in the log (§7.2, §7.3)")
    left = left_with(reason, result.names, result.writer)
    then = ", and this log was closed before that leave came back in the agreed order (§9.8)"
    return Departure(result.writer, left, _leaving(name, left, then, accused=accuses(reason, result.names, result.writer)),
                     f"says its writer, {name}, left")


def _left_held(result: AuditResult, held: SeatLeft) -> Departure:
    """The writer's own `leave` is its log's last message, held behind a reveal whose shares
    the log does not hold (§9.4): its writer closed the log there, its wait for them run
    out (§9.8), and the game ended at that leave, where the others' did."""
    assert held.seat is not None
    seat, name, said = held.seat, result.names[held.seat], held.said
    left = left_with(said, result.names, seat)
    then = (f", and this log was closed while its table held that leave behind {_awaited_shares(result) or 'shares'}, "
            "which it does not hold (§9.4)")
    return Departure(seat, left, _leaving(name, left, then, accused=accuses(said, result.names, seat)),
                     f"holds {name}'s leave")


def _leaving(name: str, left: str, then: str = "", *, accused: bool) -> str:
    """A seat's leave as the report tells it: "Bo left the table (…)`then`", with what the
    log says of the accusation its reason makes, if it makes one (`accuses`: `leave_claim`)."""
    return f"{name} {left}{then}; {leave_claim(name, left)}" if accused else f"{name} {left}{then}"


def _absence(result: AuditResult, seat: int, why: str) -> Departure:
    """The writer's table ended the game for `seat`, the one its signed `log.end` names
    `absent` (§11.3): told from that seat, with the end's sentence quoted as the writer's
    own words ("Bo was away …"), which may say anything and prove nothing (§10.2)."""
    told = f"{result.writer_name}'s table ended it, naming {result.names[seat]} absent (§11.3)"
    return Departure(seat, why, f'{told}: "{why}"' if why else told, f"names {result.names[seat]} absent")


def _absent_after_the_end(result: AuditResult, seat: int) -> Failure:
    """A `log.end` that names a seat `absent` in a log that holds the end of the game
    (every `done`, or a delivered `leave`): a table whose game has ended waits for
    nobody (§11.3), so no honest peer writes it: the log was altered, under an end its
    writer's key signed (`signed_false` names it its writer's, §10.2)."""
    names = result.names
    named = f"seat {seat + 1} ({names[seat]})" if seat < len(names) else f"seat {seat + 1} (no seat of this game)"
    ended = "every seat said done" if result.left is None else "a leave was delivered"
    return Failure(None, None, "§10.1", f"its log.end names {named} absent, but the log holds the end of the game "
                                        f"({ended}), after which a table waits for nobody (§11.3): the log was "
                                        "altered (nobody is blamed)", altered=True)


def _held_behind_shares(result: AuditResult, index: int) -> Failure:
    """The log goes on past a message its table held behind a reveal whose shares the log
    does not hold: records an honest peer never hands over (§10.1); nobody is blamed."""
    assert result.machine is not None
    why = "records were added, or records of share messages were removed"
    if any(result.writer in missing for missing in result.machine.waiting_for_shares.values()):
        # (an honest peer logs each share it sends as it sends it)
        why = (f"its writer, {result.names[result.writer]}, went on without sending its own, or records of share "
               "messages were removed")
    return Failure(index, None, "§10.1",
                   f"the table held the records from here on, waiting for {_awaited_shares(result) or 'shares'}, which "
                   f"the log does not hold, and no stall claim about them follows: an honest peer hands its table "
                   f"nothing more until then; {why}")


def _awaited_shares(result: AuditResult) -> str | None:
    """The first reveal the replay waits for, and whose shares it lacks, in words."""
    assert result.machine is not None
    for need, missing in result.machine.waiting_for_shares.items():
        return f"the shares of reveal {need} from {', '.join(result.names[s] for s in missing)}"
    return None


def _order_verdict(result: AuditResult, index: int, delivered: Delivered) -> Failure | None:
    """What the order alone says against a record, where the table would not judge it:
    a head that names another message than the log holds (which of two seats signed
    falsely, one log cannot tell), and anything after the game's end."""
    names, seat = result.names, delivered.seat
    rejected = delivered.rejected
    if isinstance(rejected, HeadsForked):
        other = names[rejected.other]
        return Failure(index, None, rejected.section,
                       f"{names[seat]}'s message names a different message as {other}'s seq {rejected.seq} than this "
                       f"log holds: either {names[seat]} named a message {other} never signed, or {other} signed two "
                       "different messages as one (§7.10); one log cannot tell which: audit it together with the "
                       "others' logs (§10.3)")
    assert result.machine is not None
    if result.machine.finished:
        return Failure(index, None, "§10.1", f"{names[seat]}'s {delivered.envelope.inner['type']} comes after the end "
                                             "of the game (every seat had said done), where an honest log ends")
    if rejected is not None and result.left is not None:  # the table no longer judges: the order still does
        blamed, suspects = delivered.blamed
        return Failure(index, blamed, rejected.section, rejected.reason, suspects)
    return None


def _proven_violation(
    contents: LogContents, keys: Mapping[bytes, bytes], schemas: Schemas, seats: Sequence[bytes], game: bytes
) -> Failure | None:
    """The first ``log.evidence`` record whose signed messages prove a §7 violation."""
    for record in contents.evidence:
        try:
            messages = [open_signed(signed_frame(body, sig), keys, schemas) for body, sig in record.items]
        except ProtocolError:
            continue  # what does not verify proves nothing
        if (record.peer not in seats or not messages or messages[0].sender != record.peer
                or any(m.inner.get("game") != game for m in messages)):
            continue
        shown = _violation_shown(record.section, messages, seats)
        if shown is not None:
            return Failure(None, seats.index(record.peer), record.section, f"{shown} (evidence kept in the log)")
    return None


def _violation_shown(section: str, messages: Sequence[SignedMessage], seats: Sequence[bytes]) -> str | None:
    """What `messages` prove against the first one's signer under `section`, if anything:
    its own signed messages, and for an unjustified stamp the others' that it names."""
    if section == "§7.3" and _kind(messages[0]) == "content":
        unjustified = _stamp_unjustified(messages, seats)
        if unjustified is not None:
            return unjustified
    if any(m.sender != messages[0].sender for m in messages):
        return None
    if section == "§7.2":
        for a in messages:
            for b in messages:
                if a.body == b.body:
                    continue
                if _kind(a) == _kind(b) == "content" and a.inner["seq"] == b.inner["seq"]:
                    return f"signed two different messages with seq {a.inner['seq']}"
                if _kind(a) == _kind(b) == "side" and a.inner["sseq"] == b.inner["sseq"]:
                    return (f"signed two different messages as its {side_message(a.inner['sseq'], a.inner['type'])} "
                            f"({SHARE_MESSAGES})")
                if _kind(a) == _kind(b) == "content" and b.inner["seq"] == a.inner["seq"] + 1 \
                        and bytes(b.inner["prev"]) != message_hash(a.body):
                    return f"signed a seq {b.inner['seq']} that does not follow its seq {a.inner['seq']}: its chain forked"
                if _kind(a) == _kind(b) == "side" and b.inner["sseq"] == a.inner["sseq"] + 1 \
                        and bytes(b.inner["sprev"]) != message_hash(a.body):
                    return (f"signed a {side_message(b.inner['sseq'], b.inner['type'])} that does not follow its "
                            f"{side_message(a.inner['sseq'], a.inner['type'])}: its chain of share messages forked "
                            f"({SHARE_MESSAGES})")
                if _kind(a) == "ack" and _kind(b) == "content" and a.inner["last"][0] == b.inner["seq"] \
                        and bytes(a.inner["last"][1]) != message_hash(b.body):
                    return f"signed an ack that names another message as its seq {b.inner['seq']}"
    if section == "§7.3" and len(messages) == 2 and _kind(messages[0]) == "content":
        late, promise = messages
        stamp, seq = late.inner["lamport"], late.inner["seq"]
        before = promise.inner["seq"] if _kind(promise) == "content" else promise.inner["last"][0] if _kind(promise) == "ack" else None
        if before is not None and before < seq and promise.inner["lamport"] >= stamp:
            return f"stamped its seq {seq} with {stamp}, not above the {promise.inner['lamport']} it had promised"
    return None


def _kind(m: SignedMessage) -> str:
    """Which of the three kinds of signed message of §7 `m` is."""
    return "side" if "sseq" in m.inner else "ack" if m.inner["type"] == "ack" else "content"


def _stamp_unjustified(messages: Sequence[SignedMessage], seats: Sequence[bytes]) -> str | None:
    """§7.3: the first message's stamp is above the bound (`lamport_bound`) that its
    sender's previous message and the messages its heads name, all of them given, allow."""
    late = messages[0].inner
    seat = seats.index(messages[0].sender)
    by_hash = {message_hash(m.body): m.inner for m in messages[1:] if _kind(m) == "content"}

    def given(at: int, seq: int, digest: bytes) -> int | None:
        inner = by_hash.get(bytes(digest))
        return inner["lamport"] if inner is not None and inner["from"] == seats[at] and inner["seq"] == seq else None

    seq, stamp = late["seq"], late["lamport"]
    bound = lamport_bound(seat, seq, late["prev"], other_seats(len(seats))[seat], late["heads"], given)
    if bound is None or stamp <= bound:
        return None
    return f"stamped its seq {seq} with {stamp}, above the {bound} that its previous message and the messages it names allow"


def _first(broken: Failure | None, found: Failure) -> Failure:
    """What the replay `found`, unless the log's integrity broke further on (`broken`):
    then the log was altered and nobody is blamed, but the first record that does not
    hold is still the one the replay stopped at, where a record went missing or moved.
    What the replay found there is left out: it follows from the alteration, and taken
    alone it could cast doubt on honest seats ("one of the two signed falsely")."""
    if broken is None:
        return found
    if broken.record is None:  # (altered after it was closed: where, the end's signature cannot tell)
        return broken
    return Failure(found.record, None, broken.section,
                   f"the log was altered: a record is missing or out of place here, where the agreed order stops "
                   f"holding ({found.section}); record {broken.record + 1} shows it ({broken.what.removesuffix(ALTERED)})",
                   altered=True)


def _out_of_place(index: int, exc: OrderError, roster: Roster) -> Failure:
    """Record `index` out of place in its sender's chain or in the agreed order (§7.2,
    §7.4): an honest peer logs only what its order accepted, so the log was altered."""
    return Failure(index, None, exc.section, f"{_whose(exc.peer, roster)} message: {exc.reason}{ALTERED}", altered=True)


def _frame_damaged(at: int, why: str) -> Failure:
    """A frame that cannot be read (`LogContents.damaged`), at byte `at`: nothing after
    it can be checked; nobody is blamed (after a log's end, it is anybody's)."""
    return Failure(None, None, "§10.1", f"the file was changed or damaged in the frame that starts at byte {at}: {why}; "
                                        "it and everything after it cannot be checked, only the records before it",
                   altered=True)


def _header_damaged(where: str, what: str, reason: str, *, inside: bool = True) -> str:
    """A log's header that cannot be read (§10.1), in plain words, as a damaged record is:
    where in the file (`inside` its record: the roster in it, a certificate in that), and
    the check that failed; nothing after it can be checked."""
    # (`read_log`'s reasons are in words, "its length says …"; a check's, in brackets; none: `what` says it)
    told = f"{what}: {reason}" if reason.startswith("its ") else f"{what} ({reason})" if reason else what
    header = "the log's header (its first record, at byte 0)" if inside else "the log's header"
    return (f"the file was changed or damaged in {header}, in {where}: {told}; "
            "without its header nothing in the log can be checked")


def _roster_failure(contents: LogContents, exc: ProtocolError) -> Failure:
    """Why the roster in a log's header is no roster (§6.6): bytes that do not decode as
    one, or as a certificate in it, are damage, told with their byte; a certificate that
    decodes but does not hold (§3.1) is told as what it is."""
    refused = _refused_certificate(contents.header.roster) if exc.section == "§3.1" else None
    if refused is None:
        return Failure(None, None, exc.section, _header_damaged(
            f"the roster that starts at byte {contents.roster_at}", "it cannot be read as a roster", exc.reason),
            altered=True)
    whose, der = refused
    at = contents.roster_at + contents.header.roster.find(der)
    if not isinstance(exc, CertificateRefused) and 0 < len(der) <= MAX_CERT_SIZE:
        # (its bytes do not parse: the parser's own account of where in them says nothing to an auditor)
        return Failure(None, None, exc.section, _header_damaged(
            f"{whose} certificate in its roster, which starts at byte {at}",
            "it is not a valid certificate (its bytes do not read as an X.509 certificate)", ""), altered=True)
    if isinstance(exc, CertificateRefused):
        return Failure(None, None, exc.section,
                       f"the log's header does not hold: {whose} certificate in its roster (from byte {at}) reads as a "
                       f"certificate but does not hold ({exc.reason}): it is not a certificate as its player made it, "
                       "so the roster was altered, and nothing in the log can be checked", altered=True)
    return Failure(None, None, exc.section, _header_damaged(
        f"{whose} certificate in its roster, which starts at byte {at}", "it cannot be read as a certificate",
        exc.reason), altered=True)


def _refused_certificate(roster: bytes) -> tuple[str, bytes] | None:
    """The seat's possessive ("seat 2's (Bo)") and the bytes of the first certificate in
    an encoded roster that §3.1 refuses (None: none is, or the roster does not decode)."""
    from p2p.wire import decode

    try:
        members = decode(roster).get("members")
    except (ProtocolError, AttributeError):
        return None
    for index, member in enumerate(members if isinstance(members, list) else []):
        der = member.get("cert") if isinstance(member, dict) else None
        if isinstance(der, bytes):
            try:
                Certificate.from_der(der)
            except ProtocolError:
                name = member.get("name")
                return f"seat {index + 1}'s" + (f" ({name})" if isinstance(name, str) else ""), der
    return None


def _damaged(offset: int, reason: str, body: bytes, roster: Roster, *, side: bool = False) -> str:
    """A record (`side`: a side record, `side_record`) that does not open (§4.3–§4.5), in
    plain words: an honest peer logs only what it verified, so the file was changed there
    (or its disk failed)."""
    where = side_record(offset) if side else f"the record that starts at byte {offset}"
    reason = _BAD_SIGNATURE.sub(r"its signature does not verify under the key of \1, the seat it names as its sender",
                                reason)
    return (f"the file was changed or damaged in {where}: it is not a message as a seat of the table signed it "
            f"({reason}{_claimed(body, roster)})")


_BAD_SIGNATURE = re.compile(r"^bad signature on an? '[^']*' message from (\S+)$")
"""How the signature check (§4.5) says a record's signature fails, which `_damaged` says
in a player's words (the record's kind, and whose it says it is, `_claimed`, follow)."""


def side_record(offset: int) -> str:
    """A side record (§10.1 `log.side`) in a player's words, by the byte its frame starts
    at, with what a share message is (`SHARE_MESSAGES`)."""
    return f"the record of a share message that starts at byte {offset} ({SHARE_MESSAGES})"


ALTERED = "; the log was altered (nobody is blamed)"
"""What a record out of place in its sender's chain (§7.2, §7.8) or stamps (§7.4) says:
an honest peer logs only what its order accepted (§10.2, step 2)."""


def _foreign(peer: bytes, roster: Roster, message: SignedMessage, kind: str = "") -> str:
    """A record of another game in a log (§7.1): the seat signed it there, where it may
    have been honest (§7.10), so it proves nothing against that seat; the log was altered."""
    game = message.inner.get("game")
    of = f"game {game[:8].hex()}…" if isinstance(game, bytes) else "another game"
    return (f"{_whose(peer, roster)} {kind}message of another game ({of}), not of this one: it was put into this "
            "log from elsewhere, and proves nothing against its signer; the log was altered (nobody is blamed)")


def _whose(peer: bytes, roster: Roster) -> str:
    """A seat's possessive for a record it signed: its name, and its fingerprint."""
    member = roster.member(peer)
    return f"{short_id(peer)}'s" if member is None else f"{member.name}'s ({short_id(peer)})"


def _claimed(body: bytes, roster: Roster) -> str:
    """Who a record says it is from, for telling it apart in a failure that blames nobody,
    and for a side message its place in its sender's side chain (its `sseq`, §7.8), in
    words: "Bo's first share message"."""
    from p2p.wire import decode_map

    try:
        inner = decode_map(body)
    except ProtocolError:
        return ""
    member = roster.member(inner.get("from"))
    if member is None:
        return ""
    sseq = inner.get("sseq")
    said = f" {side_message(sseq, inner.get('type'))}" if type(sseq) is int else ""
    return f"; the record says it is {member.name}'s{said}"

