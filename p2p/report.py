"""The audit told in words: who played, each round's cards and scores, every snap, who saw
which card when, and the verdict (what `bandit-lan audit` prints).

A card is named wherever the log lets the auditor know it: every card of a finished
round (its openings re-derive them all), and in any round every card that was turned face
up for all (its shares are in the log), also where a seat had seen it privately before.
A card seen only privately in a round that did not finish stays "an unknown card"."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from engine import (
    ALL,
    BanditCalled,
    TurnStarted,
    Draw,
    Event,
    LookSwap,
    Peek,
    Revealed,
    RoundStarted,
    Skills,
    Snap,
    SnapOutcome,
    SnapResolved,
    Spy,
    TimerFallback,
)
from engine.narrate import card_words as spoken_card
from p2p.audit import AuditResult
from p2p.identity import short_id

OUTCOME_WORDS = {
    SnapOutcome.MATCHED: "it matched",
    SnapOutcome.WRONG: "it did not match: back face down, penalty card",
    SnapOutcome.NOT_FASTEST: "not the fastest: penalty card",
}
SEEN_BECAUSE = {Draw: "drew", Peek: "peeked at", Spy: "spied on", LookSwap: "looked at", RoundStarted: "was dealt"}


def card_words(skills: Skills, face: int | None) -> str:
    """A card the audit knows, with its id ("an 8 (card 22)"), else "an unknown card"."""
    return "an unknown card" if face is None else f"{spoken_card(skills, face)} (card {face})"


def game_report(result: AuditResult, *, brief: bool = False) -> Iterator[str]:
    names = result.names
    roster = result.roster
    yield f"Fairness log: {result.path}"
    if roster is None:
        yield from _verdict(result)
        return
    writer = names[result.writer] if result.writer is not None and result.writer < len(names) else "?"
    yield f"Game {result.game_id.hex()[:16]}…, written by seat {result.writer + 1 if result.writer is not None else '?'} ({writer})"
    yield "Players: " + ", ".join(f"{m.seat + 1} {m.name} ({short_id(m.peer_id)})" for m in roster.members)
    rules = roster.rules
    deck = "the default deck" if not rules.skills_text else f"a custom deck of {rules.skills.size} cards"
    yield f"Rules: game to {rules.target}, turn timer {rules.turn_s} s, ready barrier {rules.peek_s} s, {deck}."
    yield f"Records: {result.records} signed messages checked."
    if not brief:
        yield from _rounds(result)
    yield from _verdict(result)


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
    skills = result.roster.rules.skills
    outcomes = {o.round: o for o in result.rounds}
    public = public_faces(result)
    round_no = 0
    turn = 0
    cause: Event | None = None
    pending_snaps: dict[int, list[Snap]] = {}
    lines: list[str] = []
    faces: Mapping[int, int] = {}

    def flush() -> Iterator[str]:
        outcome = outcomes.get(round_no)
        yield ""
        yield f"Round {round_no}" + ("" if outcome else " (not finished)")
        if outcome is not None:
            for seat, tableau in enumerate(outcome.tableaus):
                cards = ", ".join(f"slot {slot}: {card_words(skills, face)}" for slot, face in tableau)
                yield f"  {names[seat]}'s cards at the end: {cards or 'none'}"
        yield from (f"  {line}" for line in lines)
        if outcome is not None:
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
            yield "  Shuffles opened by every seat and re-run: every card was where the reveals said."

    for applied in result.applied:
        event = applied.event
        if isinstance(event, RoundStarted):
            if round_no:
                yield from flush()
            round_no += 1
            lines = [f"First player by lot: {names[event.first_player]}."]
            turn = -1  # the deal and the bottom-card peek come before the first turn
            outcome = outcomes.get(round_no)
            faces = {**public[round_no - 1], **(outcome.faces if outcome else {})}
            cause = event
        elif isinstance(event, Snap):
            pending_snaps.setdefault(event.seat, []).append(event)
        elif isinstance(event, Revealed):
            if event.to != ALL:
                because = SEEN_BECAUSE.get(type(cause), "saw")
                face = faces.get(event.card)
                when = "before the first turn" if turn < 0 else f"turn {turn}"
                lines.append(f"{when}: {names[event.to]} {because} {card_words(skills, face)} (private)")
        if not isinstance(event, Revealed):
            cause = event
        for note in applied.notes:
            if isinstance(note, SnapResolved):
                queue = pending_snaps.get(note.seat)
                claim = queue.pop(0) if queue else None
                whose = "own" if note.owner == note.seat else f"{names[note.owner]}'s"
                face = faces.get(note.card)
                top = faces.get(claim.top) if claim is not None else None
                when = "before the first turn" if turn < 0 else f"turn {turn}"
                lines.append(
                    f"{when}: {names[note.seat]} snapped {whose} slot {note.slot} "
                    f"({card_words(skills, face) if note.outcome is not SnapOutcome.NOT_FASTEST else 'unrevealed'}) "
                    f"on {card_words(skills, top)}: {OUTCOME_WORDS[note.outcome]}"
                )
            elif isinstance(note, TimerFallback):
                lines.append(f"turn {note.turn}: {names[note.seat]}'s turn timer ran out; the engine played option A")
            elif isinstance(note, TurnStarted):
                turn = note.turn
            elif isinstance(note, BanditCalled):
                lines.append(f"turn {turn}: {names[note.seat]} announced Bandit")
    if round_no:
        yield from flush()
    if result.refused:
        yield ""
        yield f"Refused intents ({len(result.refused)}), each with the rule it broke:"
        for r in result.refused[:50]:
            yield f"  record {r.position}: {names[r.seat]}: {r.section}: {r.reason}"


def _verdict(result: AuditResult) -> Iterator[str]:
    yield ""
    if result.ok:
        if result.left is not None:
            yield f"Verdict: the log is intact; the game ended early because {result.left.told}."
        else:
            winners = " and ".join(result.winners)
            yield f"Verdict: FAIR. Every check holds. Winner{'s' if len(result.winners) > 1 else ''}: {winners}."
        return
    failure = result.first_failure
    assert failure is not None
    yield f"Verdict: NOT VERIFIED. First violation: {failure.describe(result.names)}"
