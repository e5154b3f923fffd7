"""Whether several fairness logs of one game tell the same game (§10.3).

Theory of operation
-------------------
Every honest peer logs the same content messages in the same agreed order, and each
sender's side messages in that sender's side-chain order (§10.1); a log closed early (a
crash, a failing disk, a seat that stopped waiting) holds a prefix of the others'. So
logs of one game *agree* when

1. they share one game id (the hash of one roster, §6.6);
2. no two of them are logs of one seat (by the writer each header's signature proves):
   a seat writes one log of a game, and goes on in it when it resumes (§11.3); one log
   given twice (the same records) is said so, and agrees with itself;
3. no sender has two different signed bodies of this game under one ``seq`` (its
   content chain, with the ``leave`` a log's end may hold) or one ``sseq`` (its side
   chain) anywhere among them (a body of another game is a replay, which proves nothing
   against its signer, §7.10); and
4. each log's ``log.msg`` records are a prefix of the longest log's, and none goes on
   past the end of the game where a finished log stops; and
5. no log closed before the game's end (a leave, an absence) is its writer's whose
   signed ``done``, or message of a later round than the log reaches, another log holds:
   a seat signs ``done`` only once it has delivered, and so logged, the end of the game
   (the last round's openings), and anything of a round once its table began it.

Where they do not, the first thing that breaks is named. Logs of another game id than the
most writers' are set aside as damaged where their own audit finds them altered (a
header changed); else the logs are of several games, each game's named. Two bodies
under one sequence number that both carry their sender's valid signature prove that
sender signed two different messages as one (equivocation, §7.10): it is named.
Anything else (the same messages in two orders, a record only one log holds) is not
something an honest table can produce and proves nothing about any player: one of the
logs was altered, or its peer did not follow the order, and nobody is blamed; a copy
that differs from another's and does not verify was changed or damaged in its log (an honest peer logs
only what verifies), whether or not the other copy verifies: that log is named damaged
and set aside, and the others are compared on their own. So is every log whose own
audit (§10.2) finds its file changed or damaged (a record dropped, repeated or moved,
its end's signature, its header: `AuditResult.altered`), where some log is not: it must
not hide the game the others hold. This compares what the logs hold, readable records
only.
A log closed early whose writer's signed `done` (or later message) another log holds had
records removed: it is set aside as damaged too. A log set aside whose `log.end` verifies
under its writer's key over what was found wrong with it (`AuditResult.signed_as_is`) is
named false, its writer's: that key signed it so, which no honest program does (§10.2).
What the logs prove against a seat (`Agreement.proof`: a violation their own audits find
with a seat named, or a seat's two signed messages they part on) and the log the game is
told from (`story`: not the proven seat's, one that holds its own checks, the longest)
are decided here, once.
Logs that agree may still name different seats as the one whose departure ended the
game (each writer's word, §10.2: seats that lost each other each see the other away):
`away` says which log names whom.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from engine.narrate import listed
from p2p.audit import NEVER_CLOSED, AuditResult, torn_at, writer_signed_it
from p2p.errors import ProtocolError
from p2p.identity import verify_signature
from p2p.plain import SHARE_MESSAGES, either, either_seats, side_message, stopped_on_a_link, table_message
from p2p.policy import told_with
from p2p.signing import SIGNED_DOMAIN
from p2p.wire import DEFAULT_LIMITS, decode_map


@dataclass(frozen=True)
class Side:
    """Where a log holds a side record: the byte its frame starts at (§10.2). It is told
    after the share message it holds is named (`side_message`), as a record."""

    at: int

    def __str__(self) -> str:
        return f"the record that starts at byte {self.at}"


Place = int | str | Side
"""Where a log holds a record: its `log.msg` index (from 0), "its log.end", or a `Side`."""


@dataclass(frozen=True)
class Parting:
    """The first place where the logs do not tell the same game."""

    section: str
    what: str
    seat: int | None = None  # a seat the logs prove broke the protocol (equivocation)
    record: int | None = None  # the `log.msg` index (from 0) where they part, if they part there
    damaged: tuple[AuditResult, ...] = field(default=(), compare=False)  # the logs whose copy of a record was changed
    games: tuple[tuple[AuditResult, ...], ...] = field(default=(), compare=False)  # (logs of several games) each game's


@dataclass(frozen=True)
class Proof:
    """A seat the logs prove broke a rule (§10.3): its violating message among the
    delivered records, or signed evidence (`log.evidence`), as the logs' own audits find
    it, or its two signed messages under one sequence number (equivocation)."""

    seat: int | None  # (None: one of `suspects`, nothing tells which, §7.5)
    suspects: tuple[int, ...]
    section: str
    record: int | None  # the `log.msg` index (from 0) of the violating message (None: evidence kept in the log)
    what: str
    holders: tuple[AuditResult, ...]  # the logs that hold the proof, in the order given

    def told(self, names: Sequence[str]) -> str:
        """"P2 (seat 3) broke §8.7 at record 47 (signed proof in P0's and P1's logs)"."""
        if not self.holders:  # (two signed messages under one number, as the logs part on them)
            return self.what
        if self.seat is not None:
            who = f"{names[self.seat]} (seat {self.seat + 1})"
        else:
            who = f"{either(self.suspects, names)} ({either_seats(self.suspects)})"
        at = "" if self.record is None else f" at record {self.record + 1}"
        kept = " kept as evidence" if self.record is None else ""
        whose = listed([f"{_writer(r)}'s" for r in self.holders])
        proof = f"signed proof{kept} in {whose} log{'s' if len(self.holders) > 1 else ''}"
        which = "; nothing tells which of them" if self.seat is None else ""
        return f"{who} broke {self.section}{at} ({proof}{which})"


@dataclass(frozen=True)
class Agreement:
    """The comparison of `logs` (each log's audit result, in the order given)."""

    logs: tuple[AuditResult, ...]
    records: int  # `log.msg` records of the longest log
    parting: Parting | None
    twice: tuple[str, ...] = ()  # one log given twice: "a and b are one log of seat 2 (Bo), given twice"
    # (a damaged log parts them) the comparison of the others, if two or more are left; of
    # one left, whether it is damaged too (`_damaged_beside`: an Agreement of that one log)
    others: Agreement | None = None

    @property
    def ok(self) -> bool:
        return self.parting is None

    @property
    def damaged(self) -> tuple[AuditResult, ...]:
        """The logs set aside, each because its copy of a record differs from another
        log's and does not verify (the other's may not either): it was changed or damaged
        there (its own verdict says where); in the order found."""
        if self.parting is None:
            return ()
        return (*self.parting.damaged, *(self.others.damaged if self.others is not None else ()))

    @property
    def rest(self) -> Agreement:
        """The comparison of the logs no damaged one is among (itself where none is, or
        where fewer than two readable logs are left)."""
        return self if self.others is None else self.others.rest

    @property
    def agree(self) -> bool:
        """Whether the logs compared (the readable ones, less those set aside as `damaged`)
        tell the same game: false where they part, or fewer than two are left."""
        return self.rest.ok

    @property
    def parted(self) -> Parting | None:
        """Where the logs compared part (`agree`): None where they agree; "fewer than two
        readable logs to compare" where no two are left once the damaged are set aside."""
        parting = self.rest.parting
        return Parting("§10.3", TOO_FEW) if parting is not None and parting.damaged else parting

    @cached_property
    def proof(self) -> Proof | None:
        """The seat the logs prove broke a rule (`Proof`), if they do: two signed messages
        under one sequence number where the logs part on them; else the violation the
        most logs' own audits find proven (a seat named on its signed message or on
        signed evidence, the file not found altered), the first given of those. Found
        once: the comparison and its logs' audits do not change once made."""
        parting = self.parting
        if parting is not None and parting.seat is not None:
            return Proof(parting.seat, (), parting.section, parting.record, parting.what, ())
        found: dict[tuple[object, ...], list[AuditResult]] = {}
        for result in self.compared:
            failure = result.first_failure
            if failure is not None and not failure.altered and (failure.seat is not None or failure.suspects):
                found.setdefault((failure.seat, failure.suspects, failure.section, failure.record), []).append(result)
        if not found:
            return None
        holders = max(found.values(), key=len)  # (dicts keep the order found: the first given wins a tie)
        failure = holders[0].first_failure
        assert failure is not None
        return Proof(failure.seat, failure.suspects, failure.section, failure.record,
                     told_with(failure.words, failure.what, holders[0].names), tuple(holders))

    @property
    def compared(self) -> tuple[AuditResult, ...]:
        """The readable logs not set aside as damaged, in the order given."""
        return tuple(r for r in self.logs if r.contents is not None and r.roster is not None
                     and all(r is not d for d in self.damaged))

    @property
    def told(self) -> AuditResult:
        """The log the game is told from (`story`)."""
        proof = self.proof
        return story(self.logs, self.damaged, proof.seat if proof is not None else None)

    @property
    def verified(self) -> bool:
        """The overall verdict (§10.3): every log holds its own audit, and they agree."""
        return self.ok and all(r.ok for r in self.logs)

    @property
    def departures(self) -> tuple[AuditResult, ...]:
        """The logs that say whose departure ended the game, when they name different
        seats (§10.3: each is its writer's word; seats that lost each other each see the
        other away); else none."""
        told = tuple(r for r in self.logs if r.left is not None)
        return told if len({r.left.seat for r in told if r.left is not None}) > 1 else ()

    @property
    def away(self) -> str | None:
        """Which log says what of the seat whose departure ended the game, when they name
        different seats (`departures`): "Bo's log names Ann absent; Ann's and Cy's name
        Bo absent"."""
        said: dict[int, dict[str, list[str]]] = {}
        for result in self.departures:
            assert result.left is not None
            said.setdefault(result.left.seat, {}).setdefault(result.left.named, []).append(_writer(result))
        if not said:
            return None
        clauses = []
        for told in said.values():
            for named, writers in told.items():
                verb, _, rest = named.partition(" ")
                many = len(writers) > 1
                verb = {"names": "name", "holds": "hold", "says": "say"}.get(verb, verb) if many else verb
                whose = listed([writer + "'s" for writer in writers])
                clauses.append(f"{whose} log{'s' if many else ''} {verb} {rest}")
        return "; ".join(clauses)

    def summary(self, *, others: bool = False) -> str:
        """One sentence: how the logs compare (`others`: these are the logs other than a
        damaged one, told after it); a damaged log, then how the others compare."""
        if self.parting is not None and self.parting.what == TOO_FEW:
            return f"The logs cannot be compared: {self.parting.section}: {TOO_FEW} (each one's own verdict says why)"
        counts = [len(r.contents.messages) for r in self.logs if r.contents is not None]
        readable = " readable" if len(counts) < len(self.logs) else ""  # (the others' verdicts say why not)
        if others:
            every = f"The other {len(counts)}{readable} logs"
        elif readable:
            every = f"The {len(counts)} readable logs"
        else:
            every = "Both logs" if len(counts) == 2 else f"All {len(counts)} logs"
        if self.parting is not None and self.parting.damaged:
            rest = "" if self.others is None else f" {self.others.summary(others=True)}"
            return f"{self.parting.what}.{rest}"
        if self.parting is not None:
            logs = every if others else "The logs"
            return f"{logs} do not tell the same game: {self.parting.section}: {self.parting.what}"
        proof = self.proof
        shorter = [f"{_writer(r)}'s ends after {len(r.contents.messages)}: {_ending(r)}{_before(r, proof)}"
                   for r in self.logs if r.contents is not None and len(r.contents.messages) < self.records]
        said = shorter + list(self.twice)
        tail = f" ({'; '.join(said)})" if said else ""
        altered = [r for r in self.logs if r.contents is not None and len(r.contents.messages) == self.records
                   and r.contents.ended is not None and not r.contents.torn  # (closed as its writer chose)
                   and r.first_failure is not None and r.first_failure.section.startswith("§10")
                   and stopped_on_a_link(r) is None]  # (one that a fault on a link stopped says so: `overall`)
        if altered:  # (the same messages, but not logs as honest peers write them: not "the same game")
            if len(altered) == 1:
                section = altered[0].first_failure.section  # type: ignore[union-attr]
                failing = f"{_writer(altered[0])}'s log fails its own audit ({section}): see its verdict"
            else:
                failing = f"the logs of {listed([_writer(r) for r in altered])} fail their own audits: see their verdicts"
            return f"{every} hold the same {self.records} messages in the same order{tail}, but {failing}."
        away = "" if self.away is None else " They differ on who was away: see the Overall line."
        return f"{every} tell the same game: {self.records} messages in the same order{tail}.{away}"


def story(results: Sequence[AuditResult], damaged: Sequence[AuditResult] = (),
          cheater: int | None = None) -> AuditResult:
    """The log the game is told from, of several given (§10.3): of the readable logs not
    set aside as `damaged` (else of the readable ones, else the first given), one not
    written by the seat the logs prove broke a rule (`cheater`), then one that is `sound`,
    then the longest, then the first given."""
    readable = [r for r in results if r.contents is not None and r.roster is not None]
    if not readable:
        return results[0]
    kept = [r for r in readable if all(r is not d for d in damaged)] or readable

    def rank(result: AuditResult) -> tuple[bool, bool, int]:
        return (cheater is not None and result.writer == cheater, not sound(result),
                -len(result.contents.messages))  # type: ignore[union-attr]

    return min(kept, key=rank)  # (min keeps the first of equals: the first given)


def sound(result: AuditResult) -> bool:
    """Whether a log holds its own audit, or fails it only on a violation it proves
    against a seat (a seat named, the file not found altered)."""
    failure = result.first_failure
    return failure is None or (not failure.altered and (failure.seat is not None or bool(failure.suspects)))


AWAY_WORD = ("which seat's departure ended the game is each writer's own word, §10.2: seats that lost each other "
             "each see the other away, §11.3")
TOO_FEW = "fewer than two readable logs to compare"


def compare(results: Sequence[AuditResult]) -> Agreement:
    """Compare the logs whose audits are `results` (at least two; unreadable ones are left
    out: their own audit says why)."""
    logs = tuple(r for r in results if r.contents is not None and r.roster is not None)
    longest = max(logs, key=lambda r: len(r.contents.messages), default=None)  # type: ignore[union-attr]
    records = 0 if longest is None else len(longest.contents.messages)  # type: ignore[union-attr]
    if len(logs) < 2:
        return Agreement(tuple(results), records, Parting("§10.3", TOO_FEW))
    assert longest is not None
    aside = _altered(logs)
    twice, copies = _one_writer_each(logs, aside)
    parting = _same_game(logs) or twice or _forked(logs)
    if parting is None:
        # Where the ordered records first differ: a copy there that does not verify tells
        # its log damaged (`_differ`) before a log is set aside for its own audit's finding.
        differ = _prefixes(logs, longest)
        parting = ((differ if differ is not None and differ.damaged else None) or _set_aside(logs, aside) or differ
                   or _past_the_end(logs) or _cut_short(logs))
    others = None
    if parting is not None and parting.damaged:  # (how the others compare, or whether the one left is damaged too)
        rest = [r for r in results if all(r is not d for d in parting.damaged)]
        left = [r for r in logs if all(r is not d for d in parting.damaged)]
        if len(left) > 1:
            others = compare(rest)
        elif left and (also := _damaged_beside(left[0], parting.damaged)) is not None:
            others = Agreement(tuple(rest), len(left[0].contents.messages), also)  # type: ignore[union-attr]
    return Agreement(tuple(results), records, parting, copies, others)


def _damaged_beside(result: AuditResult, aside: Sequence[AuditResult]) -> Parting | None:
    """The first record of the one log left once `aside` (the damaged) are set aside whose
    copy differs from a set-aside log's and does not verify: that log is damaged too,
    though no other is left to compare it with (its `log.msg` records)."""
    for index, (body, sig) in enumerate(result.contents.messages):  # type: ignore[union-attr]
        for other in aside:
            theirs = other.contents.messages  # type: ignore[union-attr]
            if index < len(theirs) and theirs[index] != (body, sig) and not _signed(result, body, sig):
                parting = _differ([result, other], index, (result, body, sig), (other, *theirs[index]))
                return replace(parting, damaged=(result,))  # (the other is set aside already)
    return None


def _same_game(logs: Sequence[AuditResult]) -> Parting | None:
    """Logs of more than one game id: those whose own audit finds the file altered (a
    header changed) set aside as damaged where the others, the most writers first, are of
    one game; else the logs are of several games, each game's named."""
    games: dict[bytes, list[AuditResult]] = {}
    for result in logs:
        games.setdefault(result.game_id, []).append(result)
    if len(games) == 1:
        return None
    ranked = sorted(games.values(), key=lambda g: (all(r.altered for r in g), -len({r.writer for r in g}), -len(g)))
    odd = [r for group in ranked[1:] for r in group]
    if all(r.altered for r in odd) and not all(r.altered for r in ranked[0]):
        one = len(odd) == 1
        game = ranked[0][0].game_id.hex()[:16]
        found = listed(sorted({r.first_failure.section for r in odd}))  # type: ignore[union-attr]
        its, it_is = ("its", "it is") if one else ("their", "they are")
        return Parting("§10.3", f"{listed([_name(r) for r in odd])} {'is' if one else 'are'} damaged (see "
                                f"{'its verdict' if one else 'their verdicts'}): {its} own audit finds the file "
                                f"altered ({found}: nobody is blamed), and {it_is} not of game {game}…, which the "
                                "other logs are of", None, None, tuple(odd))
    groups = tuple(tuple(g) for g in games.values())  # (in the order given)
    each = ", ".join(f"{listed([str(r.path) for r in g])} of game {g[0].game_id.hex()[:16]}…" for g in groups)
    return Parting("§10.3", f"these are logs of {len(groups)} different games ({each}): audit each game's logs apart",
                   games=groups)


def _one_writer_each(logs: Sequence[AuditResult],
                     aside: Sequence[AuditResult] = ()) -> tuple[Parting | None, tuple[str, ...]]:
    """Two logs of one seat (its writer, as each header's signature proves): the one log
    given twice, said so; two different ones, where they part (a seat writes one log of a
    game, §10.1, and resumes in it, §11.3), unless one is to be set aside as damaged
    (`aside`): a damaged copy of a seat's log is that log, changed."""
    copies: list[str] = []
    seen: dict[int, AuditResult] = {}
    for result in logs:
        if result.writer is None:
            continue
        first = seen.setdefault(result.writer, result)
        if first is result:
            continue
        seat, one, other = f"seat {result.writer + 1} ({result.writer_name})", Path(first.path), Path(result.path)
        if first.contents != result.contents:
            if any(r is first or r is result for r in aside):
                continue  # (a damaged copy of the seat's log, set aside: not a second log)
            return Parting("§10.3", f"two logs of {seat}: {one.name} and {other.name} differ, and a seat writes one "
                                    "log of a game (it goes on in it when it resumes, §11.3), so one was altered, or "
                                    "is another seat's log signed again as its own (nobody is blamed)"), ()
        if one.resolve() == other.resolve():
            copies.append(f"the log of {seat}, {other.name}, is given twice")
        else:
            copies.append(f"{one.name} and {other.name} are one log of {seat}, given twice")
    return None, tuple(copies)


def _altered(logs: Sequence[AuditResult]) -> tuple[AuditResult, ...]:
    """The logs whose own audit finds the file changed or damaged (§10.2 steps 1-2: its
    header, a record or frame, a chain, the order, its end's signature), where at least
    one log is not: those are set aside (§10.3). Where every log is, none is set aside
    for it (there is nothing sounder to tell the game from), and they are compared."""
    altered = tuple(r for r in logs if r.altered)
    return altered if len(altered) < len(logs) else ()


def _set_aside(logs: Sequence[AuditResult], aside: Sequence[AuditResult]) -> Parting | None:
    """The first log of `aside` (`_altered`), named damaged: what its own audit found,
    and where its records part from those of the logs not set aside, if they do (a record
    dropped, repeated or moved), or that they do not (its end, a note, a frame after them
    changed)."""
    if not aside:
        return None
    bad = aside[0]
    failure = bad.first_failure
    assert failure is not None and bad.contents is not None
    sound = [r for r in logs if all(r is not d for d in aside)]
    longest = max(sound, key=lambda r: len(r.contents.messages))  # type: ignore[union-attr]
    full, mine = longest.contents.messages, bad.contents.messages  # type: ignore[union-attr]
    at = "" if failure.record is None else f" at record {failure.record + 1}"
    if failure.signed_by is not None:  # (its end verifies over it as it is: the writer's key signed it so)
        found = (f"{_name(bad)} is false (see its verdict): its own audit finds the file altered{at} "
                 f"({failure.section}) under a log.end that {bad.writer_name}'s key signed over it as it is")
    else:
        found = (f"{_name(bad)} is damaged (see its verdict): its own audit finds the file altered{at} "
                 f"({failure.section}: nobody is blamed)")
    others = "the other logs" if len(sound) > 1 else _name(sound[0])
    index = next((i for i, record in enumerate(mine) if i >= len(full) or record != full[i]), None)
    if not mine:
        return Parting("§10.3", f"{found}; it holds no record", None, None, (bad,))
    if index is None:
        holds = "hold" if len(sound) > 1 else "holds"
        return Parting("§10.3", f"{found}, though {others} {holds} the same {len(mine)} records in the same order",
                       None, None, (bad,))
    if index >= len(full):
        there = f"it holds {len(mine) - index} more records than {others}"
    else:
        holding = [r for r in sound if index < len(r.contents.messages)  # type: ignore[union-attr]
                   and r.contents.messages[index] == full[index]]  # type: ignore[union-attr]
        whose = others if len(holding) == len(sound) else listed([_name(r) for r in holding])
        there = f"it holds {_about(bad, mine[index][0])} there, {whose} {_about(longest, full[index][0])}"
    return Parting("§10.3", f"{found}, and it parts from {others} at record {index + 1}: {there}",
                   None, index, (bad,))


def _forked(logs: Sequence[AuditResult]) -> Parting | None:
    """Two different validly signed bodies under one sender's (side) sequence number; else
    the first copy that differs from another and does not verify (a damaged log). Every
    record is looked at before a damaged copy is told: a log set aside as damaged must not
    hide a seat's two signed messages that the others hold (§7.10)."""
    roster = logs[0].roster
    assert roster is not None
    held: dict[tuple[bytes, str, int], tuple[bytes, bytes, AuditResult, Place]] = {}
    unsigned: Parting | None = None
    for result in logs:
        contents = result.contents
        assert contents is not None
        # (the `leave` its log.end holds, §10.1, is of its writer's content chain too)
        chains = [(contents.messages, "seq", True), (contents.sides, "sseq", False),
                  ([contents.leave] if contents.leave is not None else [], "seq", False)]
        for records, counter, ordered in chains:
            for index, (body, sig) in enumerate(records):
                try:
                    inner = decode_map(body, DEFAULT_LIMITS, tree=False)
                except ProtocolError:
                    continue  # (its own audit names it)
                sender, number = inner.get("from"), inner.get(counter)
                member = roster.member(sender)
                if member is None or not isinstance(number, int) or inner.get("game") != result.game_id:
                    continue  # (a record no seat signed, or of another game: its own audit names it)
                key = (sender, counter, number)
                record: Place = (index if ordered else "its log.end" if counter == "seq"
                                 else Side(contents.side_at[index]))
                if key not in held:
                    held[key] = (body, sig, result, record)
                    continue
                body0, sig0, result0, record0 = held[key]
                if body0 == body:
                    continue
                seat = member.seat
                signed0, signed = _signed(result0, body0, sig0), _signed(result, body, sig)
                chain = (table_message(number) if counter == "seq"
                         else f"{side_message(number, inner.get('type'))} ({SHARE_MESSAGES})")
                where = f"{_at(result0, record0)} holds one, {_at(result, record)} the other"
                if signed0 and signed:
                    return Parting("§7.10", f"{member.name} (seat {seat + 1}) signed two different messages as its "
                                            f"{chain}: {where}", seat, _index(record))
                if unsigned is None:
                    unsigned = _unsigned_copy(logs, f"{member.name}'s {chain}", counter == "seq",
                                              (result0, record0, body0, sig0), (result, record, body, sig))
                if signed and not signed0:  # (later copies are compared with the one its sender signed)
                    held[key] = (body, sig, result, record)
    return unsigned


def _prefixes(logs: Sequence[AuditResult], longest: AuditResult) -> Parting | None:
    """Each log's ordered records a prefix of the longest log's."""
    full = longest.contents.messages  # type: ignore[union-attr]
    for result in logs:
        mine = result.contents.messages  # type: ignore[union-attr]
        for index, record in enumerate(mine):
            if record != full[index]:
                return _differ(logs, index, (result, *record), (longest, *full[index]))
    return None


def _differ(logs: Sequence[AuditResult], index: int, one: tuple[AuditResult, bytes, bytes],
            other: tuple[AuditResult, bytes, bytes]) -> Parting:
    """Where two logs hold different records at `index`: a copy whose signature does not
    verify was damaged in its log (its own verdict says where), and where neither does,
    every log whose copy there does not verify is; two signed messages are the same
    messages in two orders."""
    (a, body_a, sig_a), (b, body_b, sig_b) = one, other
    signed_a, signed_b = _signed(a, body_a, sig_a), _signed(b, body_b, sig_b)
    if signed_a != signed_b:
        (bad, body_bad, sig_bad), (good, body_good, sig_good) = (one, other) if signed_b else (other, one)
        theirs = _theirs(logs, bad, good, body_good)
        if _claims(body_bad) == _claims(body_good):
            what = (f"its copy of record {index + 1}, {_about(good, body_good)}, differs from {theirs} "
                    f"({_changed(body_bad, sig_bad, body_good, sig_good)})")
        else:
            what = (f"its record {index + 1} differs from {theirs}: it holds {_about(bad, body_bad)}, which does not "
                    f"verify, in place of {_about(good, body_good)}")
        return Parting("§10.3", f"{_name(bad)} is damaged (see its verdict): {what}", None, index, (bad,))
    if not signed_a:  # (an honest peer logs only what verifies: each such copy was changed in its log)
        bad = tuple(r for r in logs if index < len(r.contents.messages)  # type: ignore[union-attr]
                    and not _signed(r, *r.contents.messages[index]))  # type: ignore[union-attr]
        neither = "neither verifies" if len(bad) == 2 else "none verifies"
        copies = (f"copies of record {index + 1}, {_about(a, body_a)}," if _claims(body_a) == _claims(body_b)
                  else f"records {index + 1}")
        return Parting("§10.3", f"{listed([_name(r) for r in bad])} are damaged (see their verdicts): their "
                                f"{copies} differ, and {neither}", None, index, bad)
    return Parting("§10.3", f"record {index + 1}: {_name(a)} holds {_about(a, body_a)}, {_name(b)} "
                            f"{_about(b, body_b)}; honest peers log one order (§10.1), so a log was altered or its "
                            "peer broke the order (nobody is blamed)", None, index)


def _changed(body_bad: bytes, sig_bad: bytes, body_good: bytes, sig_good: bytes) -> str:
    """What of a damaged copy differs from the one its sender signed, in words."""
    if body_bad == body_good:
        return "its signature was changed"
    return "its body was changed" if sig_bad == sig_good else "its body and its signature were changed"


def _theirs(logs: Sequence[AuditResult], bad: AuditResult, good: AuditResult, body: bytes) -> str:
    """Whose copy a damaged one (in `bad`'s log) differs from: "the other logs'" where
    every other log holds the signed `body`, else those that do ("Ann's", "Ann's and Bo's")."""
    others = [r for r in logs if r is not bad]
    holding = [r for r in others if r is good or _holds(r, body)]
    if len(holding) == len(others) > 1:
        return "the other logs'"
    return listed([f"{_writer(r)}'s" for r in holding])


def _holds(result: AuditResult, body: bytes) -> bool:
    """Whether `result`'s log holds a record (ordered, side, or its end's leave) with `body`."""
    contents = result.contents
    assert contents is not None
    held = [*contents.messages, *contents.sides, *([contents.leave] if contents.leave is not None else [])]
    return any(mine == body for mine, _ in held)


def _claims(body: bytes) -> tuple[object, object] | None:
    """The sender and `seq` a record's body says it has (None: it does not decode)."""
    try:
        inner = decode_map(body, DEFAULT_LIMITS, tree=False)
    except ProtocolError:
        return None
    return repr(inner.get("from")), repr(inner.get("seq"))


def _signed(result: AuditResult, body: bytes, sig: bytes) -> bool:
    """Whether `body` is signed by the seat it says it is from (§4.5)."""
    try:
        member = result.member(decode_map(body, DEFAULT_LIMITS, tree=False).get("from"))
    except ProtocolError:
        return False
    return member is not None and verify_signature(member.cert.public_key, sig, SIGNED_DOMAIN + body)


def signed_by(result: AuditResult, seat: int, body: bytes, sig: bytes) -> bool:
    """Whether `body` says it is from `seat` and that seat's key signs it (§4.5)."""
    member = result.roster.members[seat] if result.roster is not None and seat < len(result.roster.members) else None
    return member is not None and _signed(result, body, sig) and result.member(_sender(body)) is member


def _sender(body: bytes) -> object:
    try:
        return decode_map(body, DEFAULT_LIMITS, tree=False).get("from")
    except ProtocolError:
        return None


def _unsigned_copy(logs: Sequence[AuditResult], message: str, content: bool,
                   one: tuple[AuditResult, Place, bytes, bytes], other: tuple[AuditResult, Place, bytes, bytes]) -> Parting:
    """Two bodies of one `message` ("Cy's 15th message to the table (content message 14)", of its `content` chain or
    its side chain) of which at most one is signed by its sender: a copy that is not was
    changed or damaged in its log (both, where neither is)."""
    (a, at_a, body_a, sig_a), (b, at_b, body_b, sig_b) = one, other
    signed_a = _signed(a, body_a, sig_a)
    if not signed_a and not _signed(b, body_b, sig_b):  # (each copy was changed in its log)
        if isinstance(at_a, int) and at_a == at_b:
            message, where = f"record {at_a + 1}, {_about(a, body_a)},", ""
        else:
            where = f" ({_place(at_a)} in {_writer(a)}'s log, {_place(at_b)} in {_writer(b)}'s)"
        return Parting("§10.3", f"{_name(a)} and {_name(b)} are damaged (see their verdicts): their copies of "
                                f"{message} differ, and neither verifies{where}", None, _index(at_b),
                       (a, b))
    (bad, at_bad, body_bad, sig_bad), (good, at_good, body_good, sig_good) = (other, one) if signed_a else (one, other)
    if content:  # ("Cy's message 14 (swap)", as the one its sender signed says)
        message = _about(good, body_good)
    changed = _changed(body_bad, sig_bad, body_good, sig_good)
    if isinstance(at_bad, int) and at_bad == at_good:  # (one record of the agreed order: its place said once)
        message, where = f"record {at_bad + 1}, {message},", changed
    elif isinstance(at_bad, Side) and isinstance(at_good, Side):  # (a byte said once where both logs have it there)
        there = "in" if at_bad.at == at_good.at else f"at byte {at_good.at} in"
        where = f"{changed}; it starts at byte {at_bad.at} in {_writer(bad)}'s log and {there} {_writer(good)}'s"
    else:
        where = f"{changed}; {_place(at_bad)} in {_writer(bad)}'s log, {_place(at_good)} in {_writer(good)}'s"
    return Parting("§10.3", f"{_name(bad)} is damaged (see its verdict): its copy of {message} differs from "
                            f"{_theirs(logs, bad, good, body_good)} ({where})", None, _index(at_bad), (bad,))


def _past_the_end(logs: Sequence[AuditResult]) -> Parting | None:
    """A log that goes on after the game's end, where a finished log stops (§10.1: an
    honest log ends with the message that finished the game)."""
    finished = next((r for r in logs if r.finished), None)
    if finished is None:
        return None
    end = len(finished.contents.messages)  # type: ignore[union-attr]
    for result in logs:
        held = len(result.contents.messages)  # type: ignore[union-attr]
        if held > end:
            return Parting("§10.3", f"{_name(result)} holds {held - end} record{'s' if held - end > 1 else ''} after the "
                                    f"end of the game, where {_name(finished)} ends (every seat had said done): a "
                                    "log was altered (nobody is blamed)", None, end)
    return None


def _cut_short(logs: Sequence[AuditResult]) -> Parting | None:
    """A log closed before the game's end whose writer signed, in another log, what it
    signs only past where its own log stops: `done`, which a seat signs only once it has
    delivered (and logged) the last round's openings, or anything of a later round than
    its log reaches, which a seat signs only once its table began that round (on an
    opening it logged first). (The others' `done`s may honestly be missing: a seat can go
    away after the end; and its own messages of a round its log reaches, for another
    seat may deliver what this one could not.)"""
    for result in logs:
        member = None if result.writer is None or result.roster is None else result.roster.members[result.writer]
        if member is None or result.left is None or result.machine is None or result.machine.engine.over:
            continue
        reach = result.machine.round_number
        for other in logs:
            contents = other.contents
            assert contents is not None
            records: list[tuple[Place, bytes, bytes]] = [
                (i, body, sig) for i, (body, sig) in enumerate(contents.messages)]
            records += [(Side(at), body, sig) for (body, sig), at in zip(contents.sides, contents.side_at)]
            for index, body, sig in records:
                try:
                    inner = decode_map(body, DEFAULT_LIMITS, tree=False)
                except ProtocolError:
                    continue
                number = inner.get("round")
                later = type(number) is int and number > reach
                if (inner.get("type") != "done" and not later) or inner.get("from") != member.peer_id \
                        or inner.get("game") != result.game_id \
                        or not verify_signature(member.cert.public_key, sig, SIGNED_DOMAIN + body):
                    continue
                held = len(result.contents.messages)  # type: ignore[union-attr]
                why = ("a seat signs done only once it has delivered, and logged, the end of the game" if not later
                       else f"its log reaches round {reach} only, and a seat signs nothing of a round before its "
                            "table has begun it, on an opening it logged first")
                kind = inner.get("type")
                what = ("done" if not later else f"a share message of round {number}" if kind == "shares"
                        else f"a {kind} of round {number}")
                removed = ("so records were removed from its log (nobody is blamed)" if not result.signed_as_is else
                           f"so records were removed from its log, {writer_signed_it(member.name)}")
                return Parting("§10.3", f"{_name(result)} ends after {held} messages, closed early ("
                                        f"{result.left.told}), but {member.name} signed {what}, {_at(other, index)}: "
                                        f"{why}, {removed}", None, held,
                               (result,))  # (set aside: the others may still tell the game)
    return None


def _before(result: AuditResult, proof: Proof | None) -> str:
    """", before record 47, the proof against P2", where a log stops before the message
    the others hold as proof against a seat."""
    if proof is None or proof.record is None or not proof.holders or proof.seat is None:
        return ""
    if len(result.contents.messages) > proof.record:  # type: ignore[union-attr]
        return ""
    return f", before record {proof.record + 1}, the proof against {proof.holders[0].names[proof.seat]}"


def _ending(result: AuditResult) -> str:
    """How a log that stops short of the others' ends, in its own verdict's words (§10.2)."""
    contents = result.contents
    assert contents is not None
    if contents.damaged is not None:
        return f"the file was changed or damaged in the frame that starts at byte {contents.damaged[0]}"
    if contents.torn:
        return f"its {torn_at(contents.intact)}"
    if contents.ended is None:
        return NEVER_CLOSED
    if result.end_signed is None:
        return "its closing record was not checked (its header does not say who wrote it)"
    if not result.end_signed:
        return "its closing record does not carry its writer's signature (the log was altered after it was closed)"
    return "it was closed early"


def _writer(result: AuditResult) -> str:
    return result.writer_name or str(result.path)


def _name(result: AuditResult) -> str:
    """"Bo's log (x-seat2.bandit-log)", or the file's name alone where no writer is proven."""
    name = Path(result.path).name
    return f"{result.writer_name}'s log ({name})" if result.writer_name else name


def _index(record: Place) -> int | None:
    return record if isinstance(record, int) else None


def _place(record: Place) -> str:
    """Where in its log a record lies: "at record 47", "in the log.end", "at byte 4410"."""
    if isinstance(record, Side):
        return f"at byte {record.at}"
    return "in the log.end" if isinstance(record, str) else f"at record {record + 1}"


def _at(result: AuditResult, record: Place) -> str:
    """Where a log holds a record: its `log.msg` index, or a place named (its end, the
    byte a side record starts at: side records lie where each log took them)."""
    if not isinstance(record, int):
        return f"{_name(result)} in {record}"
    return f"{_name(result)} at record {record + 1}"  # (counted from 1 in words, §10.2)


def _about(result: AuditResult, body: bytes) -> str:
    """"Cy's message 12 (snap)"."""
    try:
        inner = decode_map(body, DEFAULT_LIMITS, tree=False)
    except ProtocolError:
        return "a record that does not decode"
    member = result.member(inner.get("from"))
    who = member.name if member is not None else "an unknown peer"
    elsewhere = " of another game" if inner.get("game") != result.game_id else ""
    return f"{who}'s message {str(inner.get('seq'))[:20]} ({str(inner.get('type'))[:40]}){elsewhere}"


__all__ = ["Agreement", "Parting", "Proof", "compare", "signed_by", "sound", "story"]
