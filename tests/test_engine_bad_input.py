"""Bad input: every illegal or malformed event gets a typed error naming the rule (and
the seat, for intents) and leaves the game exactly as it was."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from engine_support import ScriptedTable

from engine import (
    ALL,
    AwaitingTable,
    BadTarget,
    CallBandit,
    DecideSwap,
    Discard,
    Draw,
    EngineError,
    Exchange,
    FaceConflict,
    Game,
    LookSwap,
    MalformedEvent,
    OutOfTurn,
    Peek,
    PeekBarrierExpired,
    Ready,
    Reshuffled,
    Revealed,
    RoundStarted,
    SkipPower,
    Snap,
    SnapLimit,
    Spy,
    Swap,
    TakeDiscard,
    TurnTimedOut,
    UnexpectedFact,
    WrongPhase,
)


def at_turn_start() -> ScriptedTable:
    """3 players, seat 0 to play, the first discard (card 12) is a 10."""
    return ScriptedTable(3, {0: [0, 2, 4, 6], 1: [12, 10, 8, 2], 2: [4, 4, 0, 0]}, discard=10, draw=[2, 0, 8])


def after_a_snap() -> ScriptedTable:
    t = at_turn_start()
    t.do(Snap(1, 12, 1, 0))  # 12 on 10: wrong, penalty card
    return t


def drawing() -> ScriptedTable:
    """Seat 0 drew; the private reveal has not been delivered yet."""
    t = at_turn_start()
    t.do(Draw(0), serve=False)
    return t


def decide() -> ScriptedTable:
    t = ScriptedTable(2, draw=[16])
    t.do(Draw(0))
    t.do(Discard(0))
    t.do(LookSwap(0, 0, 1, 0))
    return t


# (setup, event, error type, rule, seat named in the error)
CASES: list[tuple[str, Callable[[], ScriptedTable], object, type[EngineError], str, int | None]] = [
    ("out of turn draw", at_turn_start, Draw(1), OutOfTurn, "R5", 1),
    ("seat out of range", at_turn_start, Draw(3), MalformedEvent, "R5", None),
    ("negative seat", at_turn_start, Draw(-1), MalformedEvent, "R5", None),
    ("seat of wrong type", at_turn_start, Draw("0"), MalformedEvent, "R5", None),  # type: ignore[arg-type]
    ("bool is not a seat", at_turn_start, Draw(True), MalformedEvent, "R5", None),  # type: ignore[arg-type]
    ("exchange before drawing", at_turn_start, Exchange(0, 0), WrongPhase, "R5", 0),
    ("take discard into a missing slot", at_turn_start, TakeDiscard(0, 12, 4), BadTarget, "R5", 0),
    ("negative slot", at_turn_start, TakeDiscard(0, 12, -1), MalformedEvent, "R5", 0),
    ("float slot", at_turn_start, TakeDiscard(0, 12, 1.0), MalformedEvent, "R5", 0),  # type: ignore[arg-type]
    ("take a card never on top", at_turn_start, TakeDiscard(0, 3, 0), BadTarget, "R5", 0),
    ("take with a bogus top", at_turn_start, TakeDiscard(0, "top", 0), MalformedEvent, "R5", 0),  # type: ignore[arg-type]
    ("none slot", at_turn_start, Exchange(0, None), MalformedEvent, "R5", 0),  # type: ignore[arg-type]
    ("power without a power card", at_turn_start, Peek(0, 0), WrongPhase, "R3", 0),
    ("spy on a seat that does not exist", at_turn_start, Spy(0, 7, 0), MalformedEvent, "R3", 0),
    ("swap with a negative slot", at_turn_start, Swap(0, -2, 1, 0), MalformedEvent, "R3", 0),
    ("skip a power out of turn", at_turn_start, SkipPower(2), OutOfTurn, "R3", 2),
    ("decide without looking", at_turn_start, DecideSwap(0, True), WrongPhase, "R3", 0),
    ("decide with a non-bool", decide, DecideSwap(0, "yes"), MalformedEvent, "R3", 0),  # type: ignore[arg-type]
    ("decide out of turn", decide, DecideSwap(1, False), OutOfTurn, "R3", 1),
    ("bandit out of turn", at_turn_start, CallBandit(1), OutOfTurn, "R5", 1),
    ("ready during a turn", at_turn_start, Ready(0), WrongPhase, "R4", 0),
    ("second snap in a turn", after_a_snap, Snap(1, 12, 1, 1), SnapLimit, "R6", 1),
    ("snap on a card never on top", at_turn_start, Snap(1, 3, 1, 1), BadTarget, "R6", 1),
    ("snap on a missing slot", at_turn_start, Snap(1, 12, 2, 4, give=0), BadTarget, "R6", 1),
    ("snap on an opponent without giving", at_turn_start, Snap(1, 12, 2, 0), BadTarget, "R6", 1),
    ("snap on an own card while giving", at_turn_start, Snap(1, 12, 1, 0, give=1), BadTarget, "R6", 1),
    ("snap with a negative slot", at_turn_start, Snap(1, 12, 1, -1), MalformedEvent, "R6", 1),
    ("snap with a bogus top", at_turn_start, Snap(1, "top", 1, 0), MalformedEvent, "R6", 1),  # type: ignore[arg-type]
    ("snap on a seat out of range", at_turn_start, Snap(1, 12, 9, 0, give=0), MalformedEvent, "R6", 1),
    ("snap with a negative give", at_turn_start, Snap(1, 12, 2, 0, give=-1), MalformedEvent, "R6", 1),
    ("intent while the table owes a reveal", drawing, Discard(0), AwaitingTable, "§9", 0),
    ("snap while the table owes a reveal", drawing, Snap(1, 12, 1, 1), AwaitingTable, "§9", 1),
    ("reveal of the wrong card", drawing, Revealed(14, 0, 3), UnexpectedFact, "§9", None),
    ("reveal to the wrong seat", drawing, Revealed(13, 1, 3), UnexpectedFact, "§9", None),
    ("reveal with a face out of range", drawing, Revealed(13, 0, 50), MalformedEvent, "R2", None),
    ("reveal with a face that is another card", drawing, Revealed(13, 0, -5), MalformedEvent, "R2", None),
    ("reshuffle instead of a reveal", drawing, Reshuffled((1,), 50), UnexpectedFact, "R7", None),
    ("reveal with nothing pending", at_turn_start, Revealed(13, ALL, 1), UnexpectedFact, "§9", None),
    ("reshuffle with nothing pending", at_turn_start, Reshuffled((12,), 50), UnexpectedFact, "R7", None),
    ("round start during a round", at_turn_start, RoundStarted(0), UnexpectedFact, "R4", None),
    ("round start with a bad first player", at_turn_start, RoundStarted(3), MalformedEvent, "R4", None),
    ("barrier expiry during a turn", at_turn_start, PeekBarrierExpired(), UnexpectedFact, "R4", None),
    ("stale timer", at_turn_start, TurnTimedOut(1), UnexpectedFact, "R5", None),
    ("timer with a bogus turn", at_turn_start, TurnTimedOut("2"), MalformedEvent, "R5", None),  # type: ignore[arg-type]
    ("timer while the table owes a reveal", drawing, TurnTimedOut(2), AwaitingTable, "§9", None),
    ("not an event at all", at_turn_start, object(), MalformedEvent, "§9", None),
    ("a bare tuple", at_turn_start, ("Draw", 0), MalformedEvent, "§9", None),
]


@pytest.mark.parametrize("name,setup,event,error,rule,seat", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_with_the_rule_and_state_unchanged(
    name: str, setup: Callable[[], ScriptedTable], event: object, error: type[EngineError], rule: str, seat: int | None
) -> None:
    t = setup()
    digest = t.game.state_hash()
    generation = t.game.generation
    snapshots = [t.view(s).snapshot() for s in range(t.game.players)]
    with pytest.raises(error) as info:
        t.game.apply(event)  # type: ignore[arg-type]
    assert info.value.rule == rule
    assert info.value.seat == seat
    if seat is not None:
        assert f"seat {seat + 1}:" in str(info.value)  # (counted from 1, as people count seats)
    assert str(info.value).startswith(f"{rule}: ")
    assert t.game.state_hash() == digest
    assert t.game.generation == generation
    assert [t.view(s).snapshot() for s in range(t.game.players)] == snapshots


def test_a_public_reveal_must_carry_the_face() -> None:
    t = at_turn_start()
    t.do(Draw(0))
    t.do(Discard(0), serve=False)
    with pytest.raises(MalformedEvent, match="must carry its face"):
        t.game.apply(Revealed(13, ALL, None))


def test_a_reveal_contradicting_a_known_face_is_a_face_conflict() -> None:
    t = at_turn_start()
    t.do(Draw(0))
    known = t.oracle.faces[13]
    t.do(Discard(0), serve=False)
    digest = t.game.state_hash()
    with pytest.raises(FaceConflict, match="R2: card 13 was revealed as face"):
        t.game.apply(Revealed(13, ALL, (known + 1) % 50))
    assert t.game.state_hash() == digest


def test_one_face_on_two_live_cards_is_a_face_conflict() -> None:
    t = at_turn_start()
    t.do(Draw(0), serve=False)
    face_of_first_discard = t.oracle.faces[12]
    with pytest.raises(FaceConflict, match=f"face {face_of_first_discard} is already card 12"):
        t.game.apply(Revealed(13, 0, face_of_first_discard))


def test_a_peer_that_is_not_told_a_private_face_still_follows_the_game() -> None:
    t = at_turn_start()
    t.do(Draw(0), serve=False)
    t.game.apply(Revealed(13, 0, None))  # another peer's engine: it knows THAT seat 0 looked
    assert t.game.known_face(13) is None and t.view(1).seen_by(13) == (0,)


def test_a_game_refuses_bad_construction() -> None:
    with pytest.raises(MalformedEvent, match="R1"):
        Game(3, target=-5)
    with pytest.raises(MalformedEvent, match="there is no seat 10 at this table of 3 seats"):
        Game(3).view(9)


@pytest.mark.parametrize(("event", "said"), [
    (Spy(1, 5, 0), "there is no seat 6 at this table of 3 seats"),
    (Swap(1, 0, 3, 0), "there is no seat 4 at this table of 3 seats"),
    (Spy(7, 1, 0), "Spy: there is no seat 8 at this table of 3 seats"),
    (Spy(1, "x", 0), "there is no seat 'x' at this table of 3 seats"),
    (RoundStarted(3), "the first player: there is no seat 4 at this table of 3 seats"),
])
def test_a_seat_the_table_lacks_is_named_counted_from_1_as_players_count_seats(event: object, said: str) -> None:
    """An event names a seat by the wire's number (from 0); the reason names it as players
    and the audit count seats, from 1 ("seat 1" is the host): the wire's seat 5 at a
    table of 3 is "seat 6", not "seat 5", which a reader takes for a seat of a table of 5."""
    with pytest.raises(MalformedEvent) as info:
        Game(3).apply(event)  # type: ignore[arg-type]
    assert info.value.message == said


def test_a_refusal_counts_its_seats_from_1_throughout() -> None:
    """The seat whose intent was refused and the seats its reason names are counted
    alike, from 1 (it read "R3: seat 1: there is no seat 6 …", counting both ways in one
    line); the `seat` field keeps the wire's number."""
    with pytest.raises(MalformedEvent) as info:
        Game(3).apply(Spy(1, 5, 0))
    assert str(info.value) == "R3: seat 2: there is no seat 6 at this table of 3 seats"
    assert info.value.seat == 1
