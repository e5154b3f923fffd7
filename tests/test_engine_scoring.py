"""R9 round scores and R1 game end: sums, the caller's -10/+10, totals, winners."""

from __future__ import annotations

import pytest
from engine_support import GREEN, RED, ScriptedTable

from engine import (
    CallBandit,
    Discard,
    Draw,
    GameEnded,
    Phase,
    Ready,
    RoundEnded,
    RoundStarted,
    SkipPower,
    WrongPhase,
)


def play_round(t: ScriptedTable, caller: int) -> list:
    """`caller` calls Bandit on its first turn; everyone draws and discards (tableaux
    unchanged) until the round is scored."""
    assert t.game.turn_seat == caller
    notes = t.do(CallBandit(caller))
    while t.game.phase is Phase.START:
        seat = t.game.turn_seat
        notes += t.do(Draw(seat))
        notes += t.do(Discard(seat))
        if t.game.phase is Phase.POWER:
            notes += t.do(SkipPower(seat))
    return notes


# (tableaux by seat, caller, expected round scores)
SCORING = [
    ({0: [0, 2, 4, 6], 1: [8, 10, 0, 2]}, 0, (2, 20)),  # caller strictly lowest: 12 - 10
    ({0: [8, 10, 0, 2], 1: [0, 2, 4, 6]}, 0, (30, 12)),  # caller higher: 20 + 10
    ({0: [0, 2, 4, 6], 1: [6, 4, 2, 0]}, 0, (22, 12)),  # tie is not strictly lowest: +10
    ({0: [GREEN, GREEN, 0, 0], 1: [0, 0, 2, 2]}, 0, (-14, 4)),  # negative sums: -4 - 10
    ({0: [RED, RED, 18, 18], 1: [0, 0, 2, 2]}, 1, (76, -6)),  # red Bandits count 20
    ({0: [2, 2, 2, 2], 1: [4, 4, 4, 4], 2: [0, 0, 0, 0]}, 1, (8, 26, 0)),  # 3 players, caller +10
    ({0: [2, 2, 2, 2], 1: [4, 4, 4, 4], 2: [0, 0, 0, 2]}, 2, (8, 16, -8)),  # 3 players, caller -10
]


@pytest.mark.parametrize("tableaux,caller,expected", SCORING)
def test_R9_round_score_is_the_sum_with_the_callers_adjustment(
    tableaux: dict[int, list[int]], caller: int, expected: tuple[int, ...]
) -> None:
    players = len(tableaux)
    t = ScriptedTable(players, tableaux, first=caller)
    notes = play_round(t, caller)
    ended = [n for n in notes if isinstance(n, RoundEnded)]
    assert len(ended) == 1
    assert ended[0].scores == expected and ended[0].caller == caller and not ended[0].exhausted
    assert t.game.totals == expected and t.game.history == (expected,)


def test_R9_totals_add_up_across_rounds() -> None:
    t = ScriptedTable(2, {0: [0, 0, 2, 2], 1: [4, 4, 4, 4]}, discard=2, draw=[0, 2])
    play_round(t, 0)  # 4 - 10 = -6 ; 16
    t.deal({0: [8, 8, 8, 8], 1: [0, 0, 0, 2]}, discard=2, draw=[0, 2], first=1)
    for seat in (0, 1):
        t.do(Ready(seat))
    play_round(t, 1)  # 32 ; 2 - 10 = -8
    assert t.game.history == ((-6, 16), (32, -8))
    assert t.game.totals == (26, 8) and t.game.round == 2


def test_R1_game_ends_after_the_round_in_which_a_total_reaches_the_target() -> None:
    t = ScriptedTable(2, {0: [0, 0, 2, 2], 1: [18, 18, 16, 16]}, discard=2, draw=[0, 2], target=60)
    notes = play_round(t, 0)
    assert t.game.totals == (-6, 68)
    assert t.game.phase is Phase.OVER and t.game.over
    assert GameEnded((0,), (-6, 68)) in notes and t.game.winners == (0,)
    with pytest.raises(WrongPhase, match="R1: the game is over"):
        t.do(RoundStarted(0))
    with pytest.raises(WrongPhase, match="after the game has ended"):
        t.do(Draw(0))


def test_R1_by_default_the_game_ends_when_a_total_reaches_100() -> None:
    t = ScriptedTable(2, {0: [0, 0, 2, 2], 1: [RED, RED, 18, 18]})
    assert t.game.target == 100
    play_round(t, 0)
    assert t.game.totals == (-6, 76) and t.game.phase is Phase.BETWEEN
    t.deal({0: [0, 0, 2, 2], 1: [6, 6, 6, 4]}, first=0)
    for seat in (0, 1):
        t.do(Ready(seat))
    play_round(t, 0)
    assert t.game.totals == (-12, 98) and t.game.phase is Phase.BETWEEN  # 98 < 100: play on
    t.deal({0: [0, 0, 0, GREEN], 1: [2, 0, 2, GREEN]}, first=0)
    for seat in (0, 1):
        t.do(Ready(seat))
    notes = play_round(t, 0)
    assert t.game.totals == (-24, 100) and t.game.over  # exactly 100 ends the game
    assert [n for n in notes if isinstance(n, GameEnded)] == [GameEnded((0,), (-24, 100))]


def test_R1_a_total_just_below_the_target_plays_on() -> None:
    t = ScriptedTable(2, {0: [0, 0, 2, 2], 1: [18, 18, 16, 16]}, discard=2, draw=[0, 2], target=69)
    play_round(t, 0)
    assert t.game.totals == (-6, 68) and t.game.phase is Phase.BETWEEN and t.game.winners == ()


def test_R1_equal_lowest_totals_share_the_win() -> None:
    t = ScriptedTable(3, {0: [0, 0, 2, 2], 1: [4, 0, 0, 0], 2: [18, 18, 16, 18]}, first=2, target=50)
    notes = play_round(t, 2)
    # seat 2 called with 70: +10 -> 80; seats 0 and 1 both have 4
    assert t.game.totals == (4, 4, 80)
    assert t.game.winners == (0, 1)
    assert [n for n in notes if isinstance(n, GameEnded)] == [GameEnded((0, 1), (4, 4, 80))]


def test_R1_the_target_is_configurable_and_must_be_positive() -> None:
    from engine import Game, MalformedEvent

    assert Game(2, target=250).target == 250
    with pytest.raises(MalformedEvent, match="R1"):
        Game(2, target=0)
