"""The audit told in words: who played, each round's cards and scores, every move with
every snap and how it was resolved, who saw which card when, what the writer's peer
noted as it played (lost links, a restart: its own, unsigned account), how and why it
closed its log (its `log.end`), and the verdict (what `bandit-lan audit` prints); given
several logs of one game, what each other log's writer noted, and how they compare.

The story of a round is the table's own narration (`engine.narrate`, the lines a player
reads on screen), told by an all-knowing narrator: a fresh engine replays the audited
events with every face the log lets the auditor know filled into the private reveals,
so every look is told with its card. A card is named, with its number in the deck so that it can be
followed through the game, wherever the log tells it: every card of a finished round
(its openings re-derive them all), and in any round every card that was turned face up
for all (its shares are in the log), also where a seat had seen it privately before. A
card seen only privately in a round that did not count stays "a card unknown to the
audit", and the round says first why it does not count (`_uncounted`: cut short before its openings, made
void by a challenge or a card all saw, or played out with openings that failed or never
all came). A challenge, a move that did not count and the violation the game stopped at
are told at their record, the verdict in plain words first (`p2p.plain`), a violation that
stopped the game before a round's deal under that round's title (`undealt`), and what of an
unfinished game's score stands in a sentence (`stands`). Turns are counted from 1 in each
round."""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Iterator, Mapping, Sequence

from engine import ALL, Game, Revealed, RoundEnded, RoundStarted, TurnStarted
from engine.errors import slot_named, spell
from engine.narrate import Narrator, card_named, cut_short, listed, slot_words
from p2p.agreement import AWAY_WORD, TOO_FEW, Agreement, Proof, signed_by, sound, story
from p2p.audit import AuditResult
from p2p.errors import closed_saying, printable
from p2p.identity import short_id
from p2p.log import Note
from p2p.plain import link_fault, link_fault_words, plain, stopped_on_a_link, unproven, unsigned_fault, verdict
from p2p.table import Refused


def game_report(result: AuditResult, *, brief: bool = False, others: Sequence[AuditResult] = ()) -> Iterator[str]:
    """The report's lines, each printed safely (§4.6): a log holds text its writer's peer
    chose (its notes, the reason in its `log.end`) and text other peers sent (a leave's
    reason), and an auditor reads a suspect's log, so none of it may move the cursor,
    clear the screen or start a line of its own (a fake verdict). `others`: the logs
    given with it (§10.3), whose writers' notes follow its own (`noted_elsewhere`)."""
    return (printable(line) for line in _game_report(result, brief=brief, others=others))


def comparison_report(agreement: Agreement) -> Iterator[str]:
    """Each log compared, with its own verdict in a line, then whether they agree (§10.3);
    printed safely, as `game_report`."""
    return (printable(line) for line in _comparison_report(agreement))


def told_from(results: Sequence[AuditResult], damaged: Sequence[AuditResult] = (),
              cheater: int | None = None) -> AuditResult:
    """The log the game is told from, of several given (§10.3, `p2p.agreement.story`)."""
    return story(results, damaged, cheater)


def passed_over(results: Sequence[AuditResult], told: AuditResult,
                damaged: Sequence[AuditResult] = (), cheater: int | None = None) -> Iterator[str]:
    """Where the game is told from a log other than the first given: why each given
    before it is not (it cannot be read, is `damaged`, is the proven `cheater`'s, fails
    its own audit, or holds fewer messages), named (their own verdicts come with the
    comparison); printed safely."""
    before = results[:next(i for i, r in enumerate(results) if r is told)]
    if not before:
        return
    aside = [r.path.name for r in before if any(r is d for d in damaged)]
    unreadable = [r.path.name for r in before if r.roster is None or r.contents is None]
    kept = [r for r in before if r.roster is not None and r.contents is not None and all(r is not d for d in damaged)]
    why = []
    if unreadable:
        why.append(f"{listed(unreadable)} cannot be read as {'a log' if len(unreadable) == 1 else 'logs'}")
    false = [r.path.name for r in before if any(r is d for d in damaged) and r.signed_as_is]
    for names, said in (([n for n in aside if n not in false], "damaged"), (false, "false")):  # (false: §10.2)
        if names:
            why.append(f"{listed(names)} {'is' if len(names) == 1 else 'are'} {said}")
    for result in kept:
        held = len(result.contents.messages)  # type: ignore[union-attr]
        if cheater is not None and result.writer == cheater:
            why.append(f"{result.path.name} is {result.writer_name}'s")
        elif not sound(result):
            why.append(f"{result.path.name} fails its own audit")
        else:
            why.append(f"{result.path.name} holds {held} message{'s' * (held != 1)}, fewer than {told.path.name}")
    see = "its own verdict" if len(before) == 1 else "their own verdicts"
    if kept and told.ok:
        first = "the longest log that holds every check"
    elif kept and cheater is not None:
        first = f"the longest log not written by {told.names[cheater]}, whom the logs prove broke the rules"
    elif kept:
        first = "the longest of the others"
    else:
        first = "the first that can" if not aside else "the first readable log that is not damaged"
    yield printable(f"{'; '.join(why)} (see {see} with the logs compared below): the game is told from "
                    f"{told.path.name}, {first}.")
    yield ""


def _game_report(result: AuditResult, *, brief: bool = False, others: Sequence[AuditResult] = ()) -> Iterator[str]:
    if result.not_a_log:  # (no log at all: no violation of one)
        yield f"{result.path} {NOT_A_LOG}; nothing to check."
        return
    roster = result.roster
    yield f"Fairness log: {result.path}"
    if roster is None:
        yield from _verdict(result)
        return
    writer = result.writer_name or "its writer"
    by = (f"seat {result.writer + 1} ({writer})" if result.writer is not None
          else "a writer it does not prove (its header's signature fails)")
    yield f"Game {result.game_id.hex()[:16]}…, written by {by}"
    yield "Players: " + ", ".join(f"{m.seat + 1} {m.name} ({short_id(m.peer_id)})" for m in roster.members)
    rules = roster.rules
    deck = "the default deck" if not rules.skills_text else f"a custom deck of {rules.skills.size} cards"
    yield (f"Rules: game to {rules.target}, turn timer {rules.turn_s} s, ready barrier {rules.peek_s} s, {deck}, "
           f"a player away is waited for {rules.grace_s} s.")
    yield f"Records: {result.records} signed message{'' if result.records == 1 else 's'} checked."
    if not brief:
        yield from _rounds(result)
        noted = noted_elsewhere(result, others)
        yield from _notes(result, writer, noted, others)
        yield from _notes_elsewhere(result, noted, others)
    yield from _end(result)
    yield from _verdict(result)


def _comparison_report(agreement: Agreement) -> Iterator[str]:
    yield ""
    yield f"Logs compared ({len(agreement.logs)}):"
    for result in agreement.logs:
        if result.not_a_log:
            yield f"  {result.path.name} {NOT_A_LOG}"
            continue
        if result.roster is None:  # (no header to tell a writer or a message by)
            assert result.first_failure is not None
            yield f"  {result.path.name} cannot be read as a log: {result.first_failure.describe(result.names)}"
            continue
        writer = result.writer_name or "a writer it does not prove"
        if result.ok:
            state = ("intact, the game finished" if result.left is None
                     else f"intact, the game ended early because {result.left.told}")
        else:
            assert result.first_failure is not None
            state = f"NOT VERIFIED: {verdict(result)} In detail: {result.first_failure.describe(result.names)}"
        yield f"  {result.path.name}, written by {writer}: {result.records} messages checked; {state}"
    yield agreement.summary()
    yield ""
    yield overall(agreement)


NOT_A_LOG = "is not a bandit-lan fairness log (its first bytes are not a log's header)"
"""A file given to the audit that does not start as every log does (§10.2), after its name."""


def overall(agreement: Agreement) -> str:
    """The last line of a report on several logs (§10.3): one verdict over them all, the
    one the exit status gives (each log's own verdict and the comparison come before).
    A seat the logs prove broke a rule is named first; logs of several games are told
    apart; where the logs agree, a log that fails its own audit is named with what is odd
    about it, and what the logs that hold every check tell follows."""
    logs = agreement.logs
    if agreement.verified:
        told = agreement.told
        given = len(logs) - len(agreement.twice)
        every = "both logs" if given == 2 else f"all {given} logs"
        after = "".join(f" {line[0].upper()}{line[1:]}." for line in (*agreement.twice, *unsupported(agreement)))
        if given == 1:
            return f"Overall: FAIR: {_log_named(told)} holds every check.{after}"
        if agreement.away is not None:  # (not one log's story: each says its own, §10.3)
            return (f"Overall: FAIR: {every} hold every check and tell the same game, which ended early, but they "
                    f"differ on who was away: {agreement.away} ({AWAY_WORD}).{after}")
        if told.left is not None:
            return (f"Overall: FAIR: {every} hold every check and tell the same game, which ended early: "
                    f"{told.left.told}.{after}")
        won = f" Winner{'s' if len(told.winners) > 1 else ''}: {listed(told.winners)}." if told.winners else ""
        return f"Overall: FAIR: {every} hold every check and tell the same game.{won}{after}"
    proof = agreement.proof
    first = [] if proof is None else [_proven(agreement, proof)]
    parting = agreement.parting
    if parting is not None and parting.games:
        return f"Overall: NOT VERIFIED: {'; '.join([*first, parting.what])}."
    damaged = agreement.damaged
    if damaged:  # (told apart from the others, which may still agree: §10.3)
        return _overall_damaged(agreement, damaged, first)
    why = [*first, *_own_failures([r for r in logs if not _proves(r, proof)], agreement)]
    if parting is not None and parting.seat is None:
        why.append("the logs cannot be compared" if parting.what == TOO_FEW else "the logs do not tell the same game")
    elif parting is None and proof is None:
        held = [r for r in logs if r.ok]
        if held:
            whose = listed([f"{_writer(r)}'s" for r in held])
            why.append(_held(held, agreement.told, f"{whose} log{'s' if len(held) > 1 else ''}"))
    return f"Overall: NOT VERIFIED: {'; '.join(why)}."


def unsupported(agreement: Agreement) -> list[str]:
    """What the logs say against a player that no signed record in them supports (§10.3),
    each in a clause: a note naming a seat under a rule that no log's refused moves or
    proof show it broke, a `log.end` of a finished game that names a player or a rule,
    and `log.evidence` against a seat that does not verify as signed by it. Such words
    are their writer's alone; the verdict does not rest on them."""
    said: list[str] = []
    refused = {(r.seat, r.section) for result in agreement.compared for r in result.refused}
    proof = agreement.proof
    accused: dict[tuple[int, str], list[str]] = {}  # (seat, section) -> the writers whose notes name it
    for result in agreement.compared:
        for note in result.contents.notes:  # type: ignore[union-attr]
            member = result.member(note.peer)
            if member is None or member.seat == result.writer or not note.section or note.section == "§11.3":
                continue
            if closed_saying(note.text, note.section) is not None:  # (that peer's own claim, quoted: §4.6)
                continue
            if (member.seat, note.section) in refused or (proof is not None and proof.seat == member.seat):
                continue
            writers = accused.setdefault((member.seat, note.section), [])
            if _writer(result) not in writers:
                writers.append(_writer(result))
    for (seat, section), writers in accused.items():
        many = len(writers) > 1
        whose = listed([f"{writer}'s" for writer in writers])
        owner = "their writers'" if many else f"{writers[0]}'s"
        named = (f"{whose} log{'s name' if many else ' names'} {agreement.told.names[seat]} under {section} in "
                 f"{'notes' if many else 'a note'}")
        if unsigned_fault(section):  # (no log can hold proof of it, nor of its absence)
            said.append(f"{named}, unsigned: the logs can neither confirm nor refute {'them' if many else 'it'}")
        else:
            said.append(f"{named}: those words are {owner} alone, unsigned, and nothing in the logs supports them")
    for result in agreement.compared:
        contents, writer = result.contents, _writer(result)
        assert contents is not None
        ended = contents.ended or ""
        named = any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", ended) for name in result.names)
        if result.finished and ("§" in ended or named):
            said.append(f"{writer}'s log ends saying \"{ended}\": those words are {writer}'s alone, and nothing in "
                        "the logs supports them: every record checks and the game finished")
        for record in contents.evidence:
            member = result.member(record.peer)
            if member is None:
                continue
            if not all(signed_by(result, member.seat, body, sig) for body, sig in record.items):
                said.append(f"{writer}'s log keeps evidence against {member.name} under {record.section} that does "
                            f"not verify as {member.name}'s: it proves nothing")
            else:
                said.append(f"{writer}'s log keeps messages of {member.name}'s as evidence under {record.section}, "
                            "which prove no violation")
    return said


def _proves(result: AuditResult, proof: Proof | None) -> bool:
    """Whether a log fails its own audit on the proof against a seat (named with it, not
    apart), or on another violation it proves against the same seat."""
    if proof is None:
        return False
    failure = result.first_failure
    return any(result is h for h in proof.holders) or (
        failure is not None and sound(result) and (failure.seat, failure.suspects) == (proof.seat, proof.suspects))


def _held(logs: Sequence[AuditResult], told: AuditResult, whose: str) -> str:
    """What `logs` that hold every check tell (`whose`: how they are named), with how the
    game ended, so that the winner reads as the game's, never the logs': "Bo's and Cy's
    logs hold every check and tell the same game, which Di won", "Ann's log holds every
    check and tells a game that ended early"."""
    if len(logs) == 1:
        said, which, that = f"{whose} holds every check", " and tells a game that", " and tells a game whose"
    else:
        said, which, that = f"{whose} hold every check and tell the same game", ", which", ", whose"
    if told.left is not None:
        return f"{said}{which} ended early"
    if len(told.winners) > 1:
        return f"{said}{that} win {listed(told.winners)} shared"
    return f"{said}{which} {told.winners[0]} won" if told.winners else said


def _proven(agreement: Agreement, proof: Proof) -> str:
    """The proof against a seat in words, and the logs that stop before it, unsaid in them."""
    names = agreement.told.names
    said = proof.told(names)
    if proof.record is None or not proof.holders:
        return said
    short = [r for r in agreement.compared if all(r is not h for h in proof.holders)
             and len(r.contents.messages) <= proof.record]  # type: ignore[union-attr]
    if not short:
        return said
    stops = [f"{_writer(r)}'s log stops before that proof, after {len(r.contents.messages)} messages"  # type: ignore[union-attr]
             for r in short]
    return "; ".join([said, *stops])


def _overall_damaged(agreement: Agreement, damaged: Sequence[AuditResult], first: Sequence[str] = ()) -> str:
    """The overall line where a log's copy of a record was changed or damaged (§10.3):
    that log cannot be verified; what the others hold, and whether they agree."""
    logs = [r for r in agreement.logs if all(r is not d for d in damaged)]
    readable = [r for r in logs if r.contents is not None and r.roster is not None]
    false = [r for r in damaged if r.signed_as_is]
    broken = "; and ".join(_altered_words(damaged))
    rest = agreement.rest  # (the readable others, compared on their own, where two or more are left)
    compared = len(readable) > 1
    if all(r.ok for r in logs) and (rest.ok if compared else len(logs) == 1):
        kind = "other" if false else "undamaged"  # (a false log is not damaged: its writer made it so)
        held = _held(logs, agreement.told, f"the {len(logs)} {kind} logs" if compared else _log_named(logs[0]))
        return f"Overall: NOT VERIFIED: {'; '.join([*first, f'{held}; but {broken}'])}."
    proof = agreement.proof
    why = [*first, broken, *_own_failures([r for r in logs if not _proves(r, proof)])]
    if compared and not rest.ok:
        others = f"the other {len(readable)}{'' if len(readable) == len(logs) else ' readable'} logs"
        why.append(f"{others} do not tell the same game")
    return f"Overall: NOT VERIFIED: {'; '.join(why)}."


def _altered_words(altered: Sequence[AuditResult]) -> list[str]:
    """The logs whose own audit finds the file altered, told as damaged ("… cannot be
    verified"), or false where their writer's key signed them as they are (§10.2)."""
    false = [r for r in altered if r.signed_as_is]
    unsigned = [r for r in altered if all(r is not f for f in false)]
    told = []
    if unsigned:
        told.append(f"{listed([_log_named(r) for r in unsigned])} {'is' if len(unsigned) == 1 else 'are'} damaged, "
                    "and a damaged log cannot be verified")
    if false:  # (its end verifies over it as it is: its writer's key signed it so, §10.2)
        keys = listed([f"{r.writer_name}'s key" for r in false])
        one = len(false) == 1
        told.append(f"{listed([_log_named(r) for r in false])} {'is' if one else 'are'} false, signed as "
                    f"{'it is' if one else 'they are'} by {keys}, which no honest program does")
    return told


def _own_failures(logs: Sequence[AuditResult], agreement: Agreement | None = None) -> list[str]:
    """Of `logs`, those that fail their own audit, those whose header cannot be read, and
    those that are no log at all, each named once: "Bo's log (b.bandit-log) fails its own
    audit", "e cannot be read as a log", "c and d are not fairness logs". Given the
    `agreement` of logs that tell the same game, each failing log is named apart with
    what is odd about it beside the others (`_odd`). A log whose own audit finds it
    altered is here only where every log given is (none was set aside, §10.3): it is told
    as one set aside is, damaged or false (`_altered_words`)."""
    failing = [r for r in logs if not r.ok and not r.not_a_log and r.roster is not None]
    altered = [r for r in failing if r.altered]  # (none set aside: every log is, §10.3)
    failing = [r for r in failing if not r.altered]
    unreadable = [r.path.name for r in logs if r.roster is None and not r.not_a_log]
    strangers = [r.path.name for r in logs if r.not_a_log]
    odd = {id(r): _odd(r, agreement) for r in failing} if agreement is not None and agreement.ok else {}
    # (a log a fault stopped is no failing one, shorter or not: each writer's table stopped where it met the fault)
    stopped = [r for r in failing if stopped_on_a_link(r) is not None]
    why = [*_altered_words(altered), *_named_on_a_link(stopped, agreement if odd else None)]
    failing = [r for r in failing if all(r is not s for s in stopped)]
    if failing and not any(odd.values()):
        named = [_log_named(r) for r in failing]
        why.append(f"{listed(named)} {'fails its own audit' if len(failing) == 1 else 'fail their own audits'}")
    elif failing:
        why.extend(f"{_log_named(r)} fails its own audit{': ' + odd[id(r)] if odd[id(r)] else ''}" for r in failing)
    if unreadable:
        why.append(f"{listed(unreadable)} cannot be read as {'a log' if len(unreadable) == 1 else 'logs'}")
    if strangers:
        why.append(f"{listed(strangers)} {'is not a fairness log' if len(strangers) == 1 else 'are not fairness logs'}")
    return why


def _named_on_a_link(logs: Sequence[AuditResult], agreement: Agreement | None = None) -> list[str]:
    """Of `logs` that each end where a fault no signed record shows (a frame on a link,
    a malformed header: `link_fault`) stopped its writer's table, what they say, by the
    seat and section each names (each its writer's word, unsigned): "Ann's log (a) and
    Bo's log (b) each name Mal under §4.3 …". Given the `agreement` of logs that tell the
    same game, one that stops sooner than the game it tells is said to be no less honest."""
    named: dict[tuple[int, str], list[AuditResult]] = {}
    for result in logs:
        fault = stopped_on_a_link(result)
        assert fault is not None
        named.setdefault(fault, []).append(result)
    why = []
    for (seat, section), writers in named.items():
        name = writers[0].names[seat]
        many = len(writers) > 1
        why.append(f"{listed([_log_named(r) for r in writers])} {'independently name' if many else 'names'} {name} "
                   f"under {section}, as the one who stopped the table: {name} {link_fault_words(writers[0])}, "
                   f"by {'each' if many else 'its'} writer's word, unsigned, since {unproven(section)}; every record "
                   f"{'they hold' if many else 'it holds'} checks{_sooner(writers, agreement)}")
    return why


def _sooner(writers: Sequence[AuditResult], agreement: Agreement | None) -> str:
    """Of `writers`' logs, those that stop before the game the `agreement` tells, each
    in a clause after its length: the fault stopped its writer's table sooner ("" if none)."""
    if agreement is None or agreement.told.contents is None:
        return ""
    told = agreement.told
    total = len(told.contents.messages)
    said = [f"{_log_named(r)} holds {len(r.contents.messages)} of the {total} messages in {_writer(told)}'s log"
            for r in writers if r is not told and r.contents is not None and len(r.contents.messages) < total]
    if not said:
        return ""
    one = len(said) == 1
    return (f", and {listed(said)}: the fault stopped {'its' if one else 'their'} writer's table sooner, which is "
            f"no fault of {'that log' if one else 'those logs'}")


def _odd(result: AuditResult, agreement: Agreement) -> str:
    """What is odd about a log that fails its own audit beside the others, which agree
    with it: that it stops short of the game they hold ("" where it does not)."""
    contents, told = result.contents, agreement.told
    assert contents is not None
    held = len(contents.messages)
    if told is not result and told.contents is not None and held < len(told.contents.messages):
        closed = f", where its end says \"{contents.ended}\"" if contents.ended is not None else ""
        return f"it stops after {held} of the {len(told.contents.messages)} messages in {_writer(told)}'s log{closed}"
    return ""


def _writer(result: AuditResult) -> str:
    return result.writer_name or result.path.name


def _log_named(result: AuditResult) -> str:
    """"Bo's log (seat2.bandit-log)", or the file's name alone where no writer is proven."""
    return f"{result.writer_name}'s log ({result.path.name})" if result.writer_name else result.path.name


def public_faces(result: AuditResult) -> list[dict[int, int]]:
    """Per round (index 0 is round 1), every card turned face up for all (a discard, a
    snapped card) and its face: what every seat saw, whether or not the round ended.
    The openings of a finished round tell the rest; an unfinished round has only these."""
    rounds: list[dict[int, int]] = []
    for applied in result.applied:
        event = applied.event
        if isinstance(event, RoundStarted):
            rounds.append({})
        elif isinstance(event, Revealed) and event.to == ALL and event.face is not None and rounds:
            rounds[-1][event.card] = event.face
    return rounds


def _rounds(result: AuditResult) -> Iterator[str]:
    names = result.names
    assert result.roster is not None
    rules = result.roster.rules
    skills = rules.skills
    outcomes = {o.round: o for o in result.rounds}
    public = public_faces(result)
    game = Game(len(names), skills, rules.target)
    narrator = Narrator(names, None, private_faces=True, card_ids=True, scores=False)
    round_no = 0
    turn = 0  # the round's turns so far (0: before its first turn)
    ended: int | None = None  # the record at which the round under way was played to its end (R7, R8)
    lines: list[str] = []
    faces: Mapping[int, int] = {}

    def flush() -> Iterator[str]:
        outcome = outcomes.get(round_no)
        yield ""
        yield f"Round {round_no}"
        if outcome is None:  # (first: why it does not count, and why a card only a seat saw is not named in it)
            yield f"  {_uncounted(result, round_no, ended)}"
        yield from (f"  {line}" for line in lines)
        if outcome is not None:  # (after the story, whose last move they follow: R8 turns them up then)
            yield "  Every card turned face up at the end of the round (R8):"
            for seat, tableau in enumerate(outcome.tableaus):
                cards = ", ".join(f"{slot_words(slot)}: {card_named(skills, face)}" for slot, face in tableau)
                yield f"    {names[seat]}: {cards or 'none'}"
            parts = []
            for seat, score in enumerate(outcome.scores):
                note = ""
                if outcome.caller == seat:  # R9: the caller's -10 / +10, from the revealed sum
                    cards = sum(skills.kind(face).value for _, face in outcome.tableaus[seat])
                    adjust = score - cards
                    why = "strictly lowest" if adjust < 0 else "not strictly lowest"
                    note = f" (cards {cards:+d}, called Bandit: {adjust:+d}, {why})"
                parts.append(f"{names[seat]} {score:+d}{note}")
            yield "  Scores: " + ", ".join(parts) + ("; the draw pile ran out (R7)" if outcome.exhausted else "")
            yield "  Totals: " + ", ".join(f"{n} {t}" for n, t in zip(names, outcome.totals))
            yield "  Every seat showed how it shuffled, and each shuffle was re-run: every card was where the reveals said."

    # Told at their place in the story, with their record: the moves that did not count, as
    # the table told them, a challenge, a round becoming void, and the violation the game stopped at.
    placed = deque(sorted(_placed(result), key=lambda told: told[0]))
    stopped = undealt(result)

    def tell_placed(before: float) -> None:
        while placed and placed[0][0] < before:
            position, told = placed.popleft()
            text = told if isinstance(told, str) else narrator.refusal(told.intent, told.section, told.told).text
            lines.append(f"{when(position)}: {text}")

    def when(position: int | None = None) -> str:
        at = "" if position is None else f", record {position + 1}"
        if round_no == stopped:  # (a round the game stopped in before its deal: no turn of it began)
            return f"before the deal{at}"
        return f"turn {turn}{at}" if turn else f"before the first turn{at}"

    for applied in result.applied:
        event = applied.event
        tell_placed(applied.position)
        if isinstance(event, RoundStarted):
            if round_no:
                yield from flush()
                lines = []  # (what came before round 1, a move sent during the deal, is told in it)
            round_no += 1
            turn = 0
            ended = None
            outcome = outcomes.get(round_no)
            opened = outcome.faces if outcome else _opened(result, round_no)  # (a void round's too, once they held)
            faces = {**public[round_no - 1], **opened}
            narrator.opened = opened  # (a card nobody saw, named from the openings)
        elif isinstance(event, Revealed) and event.face is None:
            event = Revealed(event.card, event.to, faces.get(event.card))  # what the auditor knows
        game.apply(event)
        for told in narrator.narrate(game, event, applied.notes, applied.stamp):
            lines.append(f"{when()}: {'(private) ' if told.kind == 'private' else ''}{told.text}")
        if any(isinstance(note, RoundEnded) for note in applied.notes):
            ended = applied.position
        turn += sum(isinstance(note, TurnStarted) for note in applied.notes)
    if stopped is not None:  # (the violation is told under the round it stopped, never dealt)
        assert result.first_failure is not None and result.first_failure.record is not None
        tell_placed(result.first_failure.record)  # (what came before it stays where it came)
        if round_no:
            yield from flush()
            lines = []
        round_no, turn, ended = stopped, 0, None
    tell_placed(float("inf"))
    if round_no:
        yield from flush()
    yield from _how_it_ended(result)
    if result.refused:
        yield ""
        yield f"Moves that did not count ({len(result.refused)}; told above at their place), by record and rule:"
        for r in result.refused[:50]:  # (its seats and slots named as the story names them: no seat counted from 0)
            reason = spell(r.told, lambda w: f"{names[w.seat]}'s" if w.form == "possessive" else names[w.seat],
                           lambda w: f"{names[w.owner]}'s {slot_named(w.slot)}")
            yield f"  record {r.position + 1}: {names[r.seat]}: {r.section}: {reason}"  # (from 1, §10.2)


CHALLENGED = {"not-a-card": "is no card of the deck", "duplicate-card": "is a second copy of a card already seen"}
"""What a challenge (§9.10) or a round made void by a card all saw says of its card, by its check."""


def _placed(result: AuditResult) -> Iterator[tuple[int, Refused | str]]:
    """What the story tells at a record besides the moves: each refused move, each
    challenge (§9.10), a card everyone saw fail its check (the round void from there), and
    the violation the game stopped at in the round it made void or cut short, or stopped
    before its deal (`undealt`) (in plain words, `p2p.plain`)."""
    names = result.names
    yield from ((r.position, r) for r in result.refused)
    for step in result.steps:
        if step.kind == "challenge":
            claim = CHALLENGED.get(step.check or "", "failed its check")
            voided = any(v.round == step.round and v.challenger == step.seat for v in result.voided)
            then = (f"round {step.round} is void from here (§9.10): every seat now shows how it shuffled, and that "
                    "tells who cheated" if voided else "how every seat shuffled, shown at the round's end, tells who "
                    "cheated (§9.10)")
            yield step.record, f"{names[step.seat]} challenged round {step.round}, saying [card {step.card}] {claim}; {then}."
    for void in result.voided:
        if void.challenger is None:
            claim = CHALLENGED.get(void.check, "failed its check")
            yield void.record, (f"[card {void.card}], turned face up for all, {claim}: round {void.round} is void from "
                                "here (§9.10); every seat now shows how it shuffled, and that tells who cheated.")
    failure = result.first_failure
    starts = [a.position for a in result.applied if isinstance(a.event, RoundStarted)]
    if failure is None or failure.record is None or failure.altered:
        return
    if (len(starts) > len(result.rounds) and failure.record >= starts[-1]) or undealt(result) is not None:
        # (in the round under way, which does not count, dealt or not)
        yield failure.record, f"{plain(failure, names)} The game stops here (§9.9)."


def undealt(result: AuditResult) -> int | None:
    """The round a violation stopped the game in before its deal, while its deck was made
    ready (the keys, round 1's: §9.2; its shuffle's random seed and its shuffle: §9.3),
    which the story tells under that round's title all the same (`_never_dealt`); None
    where the game stopped elsewhere, or no violation stopped it."""
    failure, machine = result.first_failure, result.machine
    if failure is None or failure.record is None or failure.altered or machine is None:
        return None
    dealt = sum(isinstance(applied.event, RoundStarted) for applied in result.applied)
    stopped = max(machine.round_number, 1)  # (the keys come before round 1 begins)
    return stopped if stopped > dealt else None


def _never_dealt(round_no: int) -> str:
    """Why a round the game stopped in before its deal (`undealt`) does not count, first in its story."""
    return (f"Round {round_no} was never dealt: the game stopped while its deck was being made ready, so no card of "
            "it was seen, and it does not count.")


def _uncounted(result: AuditResult, round_no: int, ended: int | None) -> str:
    """Why round `round_no`, which has no verified outcome, does not count, first in its
    story: made void (§9.10) by a challenge or by a card everyone saw, with what its
    openings showed; played to its end but its openings failed or never all came (§9.7);
    or cut short (`cut_short`)."""
    names, failure = result.names, result.first_failure
    if round_no == undealt(result):
        return _never_dealt(round_no)
    void = next((v for v in result.voided if v.round == round_no), None)
    challenge = next((s for s in result.steps if s.round == round_no and s.kind == "challenge"), None)
    openings = [s.record for s in result.steps if s.round == round_no and s.kind == "opening"]
    if void is None and challenge is None and ended is None:
        return cut_short(round_no)
    if void is not None and void.challenger is not None:
        why = f"Round {round_no} is void (§9.10): {names[void.challenger]} challenged it at record {void.record + 1}"
    elif void is None and challenge is not None:  # (after the round ended: its openings judge it)
        why = f"Round {round_no} is void (§9.10): {names[challenge.seat]} challenged it at record {challenge.record + 1}"
    elif void is not None:
        why = f"Round {round_no} is void (§9.10): [card {void.card}], turned face up for all at record {void.record + 1}, " \
              f"{CHALLENGED.get(void.check, 'failed its check')}"
    else:
        assert ended is not None
        why = f"Round {round_no} was played to its end (record {ended + 1}), but its scores do not count"
    judged = failure is not None and failure.record is not None and failure.record in openings
    unseen = (" A card only one player saw in it is named where it was turned face up for all, and stays unknown "
              "otherwise.")
    if _opened(result, round_no):  # (its openings held: every card is known, as in a round that counts)
        shows = f", and record {failure.record + 1} shows who cheated (told there)" if judged else ""  # type: ignore[union-attr]
        opened, unseen = f"every seat showed how it shuffled, and every card checks out, so each is named{shows}", ""
    elif judged:
        assert failure is not None and failure.record is not None
        opened = f"its shuffles were shown, and record {failure.record + 1} shows who cheated (told there)"
    elif openings and len(openings) == len(names):
        opened = "every seat showed how it shuffled"
    elif failure is not None and failure.record is not None:
        opened = "not every seat had shown how it shuffled when the game stopped (§9.7)"
    else:
        opened = "the log stops before every seat had shown how it shuffled (§9.7)"
    scores = "" if void is None and challenge is None else " Its scores do not count."
    return f"{why}: {opened}.{scores}{unseen}"


def _opened(result: AuditResult, round_no: int) -> Mapping[int, int]:
    """Every card's face in round `round_no` from its openings, where they verified,
    whether or not the round counts (a void round's, §9.10), else none."""
    return result.machine.opened.get(round_no, {}) if result.machine is not None else {}


def stands(result: AuditResult) -> str | None:
    """What of an unfinished game's score stands, in a sentence (§10.2): the rounds whose
    shuffles were shown and checked count, the round under way does not, and nobody won
    ("Round 1 does not count; the game has no winner."). None for a finished game."""
    machine = result.machine
    if machine is None or result.roster is None or (result.finished and result.rounds):
        return None
    if result.altered:
        how = (f"is false, signed as it is by {result.writer_name}'s key" if result.signed_as_is  # (§10.2)
               else "was changed or damaged")
        return f"The log {how}, so none of its score can be held to; the game has no winner."
    counted = len(result.rounds)
    under_way = sum(isinstance(applied.event, RoundStarted) for applied in result.applied)  # (rounds dealt)
    under_way = max(under_way, undealt(result) or 0)  # (and one a violation stopped before its deal)
    parts = []
    if under_way > counted:
        parts.append(f"round {under_way} does not count")
    if counted:
        totals = ", ".join(f"{n} {t}" for n, t in zip(result.names, result.rounds[-1].totals))
        parts.append(f"the totals after round {counted} stand ({totals})")
    said = "; ".join(parts) or "no round was played"
    return f"{said[0].upper()}{said[1:]}; the game has no winner."


def _how_it_ended(result: AuditResult) -> Iterator[str]:
    """Why the game ended, after its last round: R1 (whose total reached the target, and
    who won), a player's leave (§9.8) or an absence (§11.3), or the violation it stopped
    at (§9.9); where the log stops short of any of those, that the verdict says why; and
    for a game that did not finish, what of its score stands (`stands`)."""
    machine, failure, names = result.machine, result.first_failure, result.names
    if machine is None or result.roster is None:
        return
    yield ""
    if machine.finished and result.rounds:  # (its last round replayed: a log.end altered after it says nothing of that)
        target, totals = result.roster.rules.target, result.rounds[-1].totals
        winners = [names[s] for s in machine.engine.winners]
        reached = listed([f"{name} ({total})" for name, total in zip(names, totals) if total >= target])
        won = "the lowest total wins" if len(winners) == 1 else "the lowest totals share the win"
        over = (f"Game over after round {len(result.rounds)} (R1): {reached} reached the target of {target}; "
                f"{won}: {listed(winners)}, with {min(totals)}.")
        # (a log that does not hold names no winner, §10.2: what it tells is only its claim)
        yield over if result.ok else over.replace("Game over", "As this log tells it, the game was over", 1)
    elif result.left is not None:
        yield f"The game ended early, in round {machine.round_number}: {result.left.told}."
    elif failure is not None and (failure.seat is not None or failure.suspects) and failure.record is not None:
        yield f"The game stopped at record {failure.record + 1}, on a violation (§9.9): {plain(failure, names)}"
    elif failure is not None and (fault := link_fault(result)) is not None:
        yield (f"The log stops before the end of the game: {result.writer_name}'s table stopped because of "
               f"{names[fault[0]]} under {fault[1]}, by its writer's word: the verdict below says more.")
    else:
        yield "The log stops before the end of the game: the verdict below says why."
    if (standing := stands(result)) is not None:
        yield standing


NOTES_SHOWN = 200
"""The writer's notes told in full up to this many (a link that kept dropping writes many)."""


def _notes(result: AuditResult, writer: str, noted: Sequence[tuple[AuditResult, Note]] = (),
           given: Sequence[AuditResult] = ()) -> Iterator[str]:
    """What the writer's peer noted as it played (§10.1 `log.note`: lost and restored
    links, a restart, a peer's garbage with its section): its own account, unsigned and
    no part of the verdict, but where an auditor looks first when a game went strangely.
    A note the other logs' writers `noted` alike (the same event) says whose logs hold it too."""
    notes = result.contents.notes if result.contents is not None else []
    if not notes:
        return
    alike = _alike(noted)
    yield ""
    yield f"What {writer}'s peer noted as it played ({len(notes)}; its own account, unsigned, no part of the verdict):"
    for note in notes[:NOTES_SHOWN]:
        also = [log for log, _ in alike.get(_event(result, note), [])]
        same = f" (also noted by {listed(_logs_named(also, (result, *given)))})" if also else ""
        yield f"  {_noted_when(note)}: {_noted(result, note)}{same}"
    if len(notes) > NOTES_SHOWN:
        yield f"  … and {len(notes) - NOTES_SHOWN} more"


def _event(result: AuditResult, note: Note) -> tuple[object, ...]:
    """What makes two logs' notes one event told alike: its place, section, words and peer."""
    return note.index, note.section, note.text, noted_about(result, note)


def _alike(noted: Sequence[tuple[AuditResult, Note]]) -> dict[tuple[object, ...], list[tuple[AuditResult, Note]]]:
    """The other logs' notes grouped by event (`_event`), in their order: each event with
    every log that notes it, and its note there."""
    alike: dict[tuple[object, ...], list[tuple[AuditResult, Note]]] = {}
    for result, note in noted:
        logs = alike.setdefault(_event(result, note), [])
        if all(result is not log for log, _ in logs):
            logs.append((result, note))
    return alike


def _logs_named(logs: Sequence[AuditResult], given: Sequence[AuditResult]) -> list[str]:
    """Each log as the notes name it: "Bo's log", or by its file too where another log
    `given` has the same writer's name."""
    named = Counter(r.writer_name for r in {id(r): r for r in (*given, *logs)}.values())
    return [f"{r.writer_name}'s log" if r.writer_name is not None and named[r.writer_name] == 1 else _log_named(r)
            for r in logs]


def _noted(result: AuditResult, note: Note) -> str:
    """A note's words as the report gives them: its section before them, as the moves that
    did not count and the verdict give theirs (a link a peer closed with an ``error`` frame
    told as its claim, `closed_saying`), and the peer it is about after them (an
    empty reason after a colon left out); a count of two things as one is split (`_counted`)."""
    told = closed_saying(note.text, note.section)  # (a peer's `error` frame: its words, as its own)
    if told is not None:
        text = told
    elif not note.section or note.section in note.text:
        text = note.text
    else:
        text = f"{note.section}: {note.text}"
    text = _counted(re.sub(r":\s+(?=\()|:\s*$", "", text), note.index)
    about = noted_about(result, note)
    if about is not None and about not in text:
        text += f" (about {about})"
    return text


def noted_about(result: AuditResult, note: Note) -> str | None:
    """The player a note of `result`'s log names (its `peer`), or that peer's short id
    where it is no member of the game."""
    if note.peer is None:
        return None
    member = result.member(note.peer)
    return member.name if member is not None else short_id(note.peer)


def _noted_when(note: Note) -> str:
    """Where a note lies, by the messages in the agreed order before it (`Note.index`: the
    same count in every log of the game, §10.1; share messages are not counted)."""
    if not note.index:
        return "before the first message in the agreed order"
    return f"after {note.index} message{'s' * (note.index > 1)} in the agreed order"


_REPLAYED = re.compile(r"\b(\d+) records replayed from this log\b")
"""How an older seat's note of its resume (§11.3) counted what it replayed: the log's
records, messages in the agreed order and share messages alike. A newer note counts them
apart itself (`p2p.rejoin.resumed_note`), and is told as it is."""


def _counted(text: str, messages: int) -> str:
    """A note's words with each count's unit said, where one counts two things as one: a
    resume's records replayed, written before anything new was logged, are the `messages`
    in the agreed order before it and the rest share messages ("42 records replayed from
    this log (30 messages in the agreed order and 12 share messages)")."""
    replayed = _REPLAYED.search(text)
    if replayed is None or int(replayed[1]) < messages:
        return text
    shares = int(replayed[1]) - messages
    parts = (f"{messages} message{'s' * (messages != 1)} in the agreed order and "
             f"{shares or 'no'} share message{'s' * (shares != 1)}")
    return f"{text[:replayed.end()]} ({parts}){text[replayed.end():]}"


def _notes_elsewhere(told: AuditResult, noted: Sequence[tuple[AuditResult, Note]],
                     given: Sequence[AuditResult]) -> Iterator[str]:
    """The other logs' notes (`noted_elsewhere`), each event once (`_event`: the same
    note in several logs is told once, naming each of them) and after its place in the
    game: "Bo's log notes, after 40 messages in the agreed order: resumed after a restart …"; an event the
    told log notes too is told there, not here. A log is also named by its file where
    another log `given` (notes or none) has the same writer's name."""
    own = {_event(told, note) for note in (told.contents.notes if told.contents is not None else ())}
    events = [(event, logs) for event, logs in _alike(noted).items() if event not in own]
    if not events:
        return
    yield ""
    yield (f"What the other logs' writers noted as they played ({len(events)}; each one's own account, unsigned, "
           "no part of the verdict):")
    for _, logs in events[:NOTES_SHOWN]:
        first, note = logs[0]
        verb = "notes" if len(logs) == 1 else "note"
        yield f"  {listed(_logs_named([log for log, _ in logs], given))} {verb}, {_noted_when(note)}: {_noted(first, note)}"
    if len(events) > NOTES_SHOWN:
        yield f"  … and {len(events) - NOTES_SHOWN} more"


def noted_elsewhere(told: AuditResult, others: Sequence[AuditResult]) -> list[tuple[AuditResult, Note]]:
    """The notes (§10.1 `log.note`) of the logs of `told`'s game other than `told`, each
    with its log: what each of the other writers' peers noted as it played (its own crash
    and restart, a stop of its program, a peer's garbage), which `told`'s story does not
    hold. In the game's order (after how many messages: the same in every log of the
    game, §10.1), then the order the logs were given. A note that `told` or a log given
    before it already holds, from the same writer, is not repeated (one log given twice,
    or a copy); the same event noted by two writers is two accounts, and both are given."""
    def key(result: AuditResult, note: Note) -> tuple[object, Note]:
        return (result.writer if result.writer is not None else id(result), note)  # (a writer not proven: its own)

    given = Counter(key(told, note) for note in (told.contents.notes if told.contents is not None else ()))
    noted: list[tuple[AuditResult, Note]] = []
    for result in others:
        if result is told or result.contents is None or result.game_id != told.game_id:
            continue
        own: Counter[tuple[object, Note]] = Counter()
        for note in result.contents.notes:
            own[key(result, note)] += 1
            if own[key(result, note)] > given[key(result, note)]:
                noted.append((result, note))
        given |= own
    return sorted(noted, key=lambda noted: noted[1].index)


def _end(result: AuditResult) -> Iterator[str]:
    """What the writer's `log.end` says (§10.1: why it closed the log, the seat it names
    absent, the reason it gave for leaving), in its words, whether or not its signature
    verifies: the verdict may turn on it, so the auditor sees what it is. A player reads
    a `log.end` as the log's closing record, which the writer's program signs."""
    contents = result.contents
    if contents is None or contents.ended is None:
        return
    writer = result.writer_name
    by = {True: f"{writer}'s program closed this log and signed it",
          False: f"This log ends with a closing record that does not carry {writer}'s signature (that signature "
                 f"covers every byte before it: a change anywhere in the file breaks it)",
          None: "This log ends with a closing record that cannot be checked (the log does not prove who wrote "
                "it)"}[result.end_signed]
    said = [f'"{contents.ended}"']
    if contents.absent is not None:
        seat = contents.absent
        name = f"({result.names[seat]})" if seat < len(result.names) else "(no seat of this game)"
        said.append(f"absent: seat {seat + 1} {name}")
    if contents.left is not None:
        said.append(f'left: "{contents.left}"' + (", with its leave" if contents.leave is not None else ""))
    yield ""
    yield f"{by}: {'; '.join(said)}"


def _verdict(result: AuditResult) -> Iterator[str]:
    yield ""
    if result.ok:
        if result.left is not None:
            yield f"Verdict: the log is intact; the game ended early because {result.left.told}."
        else:
            winners = listed(result.winners)
            yield f"Verdict: FAIR. Every check holds. Winner{'s' if len(result.winners) > 1 else ''}: {winners}."
        return
    failure = result.first_failure
    assert failure is not None
    yield f"Verdict: NOT VERIFIED. {verdict(result)} First violation: {failure.describe(result.names)}"
