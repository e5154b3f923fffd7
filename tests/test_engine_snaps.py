"""R6 immediate discards ("snaps"): own and opponent cards, limits and penalties."""

from __future__ import annotations

import pytest
from engine_support import GREEN, RED, ScriptedTable

from engine import (
    ALL,
    BadTarget,
    Discard,
    Draw,
    PenaltyDrawn,
    Phase,
    Ready,
    Reveal,
    SkipPower,
    Snap,
    SnapLimit,
    SnapOutcome,
    SnapResolved,
    TakeDiscard,
    WrongPhase,
)


def outcomes(notes: list) -> list[SnapOutcome]:
    return [n.outcome for n in notes if isinstance(n, SnapResolved)]


def pass_turn(t: ScriptedTable, seat: int) -> None:
    t.do(Draw(seat))
    t.do(Discard(seat))
    if t.game.phase is Phase.POWER:
        t.do(SkipPower(seat))


def test_R6_own_card_identical_goes_onto_the_discard_pile_and_the_slot_stays_empty() -> None:
    t = ScriptedTable(2, {1: [0, 2, 10, 4]}, discard=10)
    card = t.card(1, 2)
    t.do(Snap(1, t.top(), 1, 2), serve=False)
    assert t.game.needs == (Reveal(card, ALL),)  # the card is turned face up
    notes = t.serve()
    assert outcomes(notes) == [SnapOutcome.MATCHED]
    assert t.top() == card
    assert t.view(0).tableau(1) == (4, 5, None, 7)  # slot numbers keep their meaning
    assert t.game.card_count(1) == 3


def test_R6_opponent_card_identical_gives_one_of_yours_unseen_into_the_slot() -> None:
    # seat 0 takes a 6 from the discard (everyone knows it), discarding its own 6
    t = ScriptedTable(2, {0: [6, 0, 0, 0], 1: [2, 2, 4, 16]}, discard=6)
    t.do(TakeDiscard(0, t.top(), 0))
    known = t.card(0, 0)
    assert t.view(1).value(known) == 6 and t.top_value() == 6
    given_unseen, given_known = t.card(1, 0), t.card(1, 3)
    notes = t.do(Snap(1, t.top(), 0, 0, give=3))
    assert outcomes(notes) == [SnapOutcome.MATCHED]
    assert t.top() == known
    assert t.card(0, 0) == given_known and t.view(1).tableau(1)[3] is None
    assert t.game.card_count(1) == 3 and t.game.card_count(0) == 4
    # nobody looked at the moving card: seat 1 still knows it (it saw it move), seat 0 does not
    assert t.view(1).value(given_known) == 16 and t.view(0).value(given_known) is None
    assert t.view(1).seen_by(given_known) == (1,)
    assert t.view(1).value(given_unseen) is None


def test_R6_green_and_red_bandit_are_identical_for_snaps() -> None:
    t = ScriptedTable(2, {1: [0, 2, RED, 4]}, discard=GREEN)
    assert outcomes(t.do(Snap(1, t.top(), 1, 2))) == [SnapOutcome.MATCHED]


def test_R6_incorrect_goes_back_face_down_known_to_all_and_costs_a_penalty_card() -> None:
    t = ScriptedTable(2, {1: [12, 2, 4, 4]}, discard=10)
    card = t.card(1, 0)
    penalty_card = t.game.zones().draw[0]
    notes = t.do(Snap(1, t.top(), 1, 0))
    assert outcomes(notes) == [SnapOutcome.WRONG]
    assert PenaltyDrawn(1, 4, penalty_card) in notes
    assert t.card(1, 0) == card and t.top_value() == 10  # same slot, top unchanged
    for seat in (0, 1):
        assert t.view(seat).value(card) == 12 and t.view(seat).is_public(card)
    # the penalty card is face down and unseen, in a new slot 4
    assert t.card(1, 4) == penalty_card and t.view(1).seen_by(penalty_card) == ()


def test_R6_not_the_fastest_leaves_the_card_unrevealed_and_costs_a_penalty_card() -> None:
    t = ScriptedTable(3, {1: [0, 2, 8, 4], 2: [8, 2, 0, 4]}, discard=8)
    top = t.top()
    assert outcomes(t.do(Snap(1, top, 1, 2))) == [SnapOutcome.MATCHED]
    target = t.card(2, 0)
    notes = t.do(Snap(2, top, 2, 0), serve=False)  # same top card, already covered
    assert outcomes(notes) == [SnapOutcome.NOT_FASTEST]
    assert t.game.needs == ()  # no reveal: the card stays unrevealed ...
    assert t.view(0).seen_by(target) == () and not t.view(0).is_public(target)
    assert t.card(2, 0) == target and t.game.card_count(2) == 5  # ... in place; penalty card drawn
    assert [(n.seat, n.slot) for n in notes if isinstance(n, PenaltyDrawn)] == [(2, 4)]


def test_R6_stale_target_is_not_the_fastest_even_if_it_would_match() -> None:
    t = ScriptedTable(2, {1: [0, 2, 8, 4]}, discard=8, draw=[2])
    old_top = t.top()
    pass_turn(t, 0)  # a 2 now covers the 8
    notes = t.do(Snap(1, old_top, 1, 2))
    assert outcomes(notes) == [SnapOutcome.NOT_FASTEST]
    assert t.card(1, 2) == 6 and t.game.card_count(1) == 5


def test_R6_a_failed_first_attempt_leaves_the_top_for_the_next_one() -> None:
    t = ScriptedTable(3, {1: [12, 2, 4, 4], 2: [10, 2, 0, 4]}, discard=10)
    top = t.top()
    assert outcomes(t.do(Snap(1, top, 1, 0))) == [SnapOutcome.WRONG]
    assert t.top() == top
    assert outcomes(t.do(Snap(2, top, 2, 0))) == [SnapOutcome.MATCHED]


def test_R6_several_attempts_on_one_top_resolve_in_order() -> None:
    # the agreed order decides: first wrong, second right, third not the fastest
    t = ScriptedTable(4, {1: [12, 2, 4, 4], 2: [10, 2, 0, 4], 3: [10, 2, 0, 4]}, discard=10)
    top = t.top()
    results = [outcomes(t.do(Snap(seat, top, seat, 0)))[0] for seat in (1, 2, 3)]
    assert results == [SnapOutcome.WRONG, SnapOutcome.MATCHED, SnapOutcome.NOT_FASTEST]
    assert [t.game.card_count(s) for s in range(4)] == [4, 5, 3, 5]


def test_R6_one_immediate_discard_per_player_per_turn_and_a_failed_one_counts() -> None:
    t = ScriptedTable(2, {1: [12, 10, 4, 4]}, discard=10, draw=[2, 0], ready=False)
    top = t.top()
    t.do(Snap(1, top, 1, 0))  # wrong
    digest = t.game.state_hash()
    with pytest.raises(SnapLimit) as info:
        t.do(Snap(1, top, 1, 1))  # would have matched, but the snap is used up
    assert info.value.rule == "R6" and info.value.seat == 1
    assert t.game.state_hash() == digest
    t.do(Ready(0))
    t.do(Ready(1))  # the first turn is a new turn
    assert t.view(1).can_snap and not t.view(1).snapped[1]


def test_R6_a_player_whose_last_card_leaves_draws_a_penalty_card_at_once() -> None:
    # seat 1 snaps its four cards away one by one, one per turn
    t = ScriptedTable(2, {1: [0, 2, RED, RED]}, discard=0, draw=[2, GREEN, 2, GREEN], first=0, ready=False)
    assert outcomes(t.do(Snap(1, t.top(), 1, 0))) == [SnapOutcome.MATCHED]
    t.do(Ready(0))
    t.do(Ready(1))
    pass_turn(t, 0)  # discards a 2
    assert outcomes(t.do(Snap(1, t.top(), 1, 1))) == [SnapOutcome.MATCHED]
    pass_turn(t, 1)  # discards a green Bandit; now seat 0's turn
    assert outcomes(t.do(Snap(1, t.top(), 1, 2))) == [SnapOutcome.MATCHED]  # red on green
    pass_turn(t, 0)  # a 2
    t.do(Draw(1))
    t.do(Discard(1))  # green again; seat 1's turn is over
    assert t.game.card_count(1) == 1
    notes = t.do(Snap(1, t.top(), 1, 3))
    assert outcomes(notes) == [SnapOutcome.MATCHED]
    penalties = [n for n in notes if isinstance(n, PenaltyDrawn)]
    assert [(p.seat, p.slot) for p in penalties] == [(1, 4)]
    assert t.game.card_count(1) == 1 and t.view(1).tableau(1) == (None, None, None, None, penalties[0].card)


def test_R6_giving_away_your_last_card_also_draws_a_penalty_card() -> None:
    t = ScriptedTable(2, {0: [GREEN, 0, 0, 0], 1: [0, 2, RED, 4]}, discard=0, draw=[2, GREEN], ready=False)
    t.do(Snap(1, t.top(), 1, 0))  # 0 on 0
    t.do(Ready(0))
    t.do(Ready(1))
    pass_turn(t, 0)  # a 2
    t.do(Snap(1, t.top(), 1, 1))  # 2 on 2
    pass_turn(t, 1)  # a green Bandit
    t.do(Snap(1, t.top(), 1, 2))  # red on green; seat 1 keeps only slot 3
    assert t.game.card_count(1) == 1
    t.do(TakeDiscard(0, t.top(), 0))  # seat 0 takes the (public) red; its green goes on top
    notes = t.do(Snap(1, t.top(), 0, 0, give=3))  # red on green again, giving the last card
    assert outcomes(notes) == [SnapOutcome.MATCHED]
    assert [(n.seat, n.slot) for n in notes if isinstance(n, PenaltyDrawn)] == [(1, 4)]
    assert t.card(0, 0) == 7 and t.game.card_count(1) == 1


def test_R6_new_slots_for_penalties_4_5_and_so_on() -> None:
    t = ScriptedTable(2, {1: [12, 14, 4, 4]}, discard=10, draw=[2, 0, 2], ready=False)
    t.do(Snap(1, t.top(), 1, 0))
    t.do(Ready(0))
    t.do(Ready(1))
    t.do(Snap(1, t.top(), 1, 1))
    assert len(t.view(1).tableau(1)) == 6
    assert t.game.card_count(1) == 6


def test_R6_snap_targets_must_exist() -> None:
    t = ScriptedTable(2, {1: [0, 2, 10, 4]}, discard=10)
    top = t.top()
    digest = t.game.state_hash()
    cases = [
        (Snap(1, 999, 1, 0), "card 999 has never been the top"),
        (Snap(1, 0, 1, 0), "card 0 has never been the top"),
        (Snap(1, top, 1, 9), "there is no slot 9 among seat 2's cards"),
        (Snap(1, top, 0, 0), "must name one of seat 2's slots to give"),
        (Snap(1, top, 1, 0, give=1), "gives no card away"),
        (Snap(1, top, 0, 0, give=7), "there is no slot 7 among seat 2's cards to give"),
    ]
    for snap, message in cases:
        with pytest.raises(BadTarget, match=message) as info:
            t.do(snap)
        assert info.value.rule == "R6" and info.value.seat == 1
        assert t.game.state_hash() == digest


def test_R6_a_fresh_snap_on_an_emptied_slot_is_refused_but_a_stale_one_is_not_the_fastest() -> None:
    t = ScriptedTable(3, {1: [0, 2, 10, 4]}, discard=10)
    top = t.top()
    t.do(Snap(1, top, 1, 2))
    with pytest.raises(BadTarget, match="seat 2's bottom-left slot is empty"):
        t.do(Snap(2, t.top(), 1, 2, give=0))
    # seat 2 pressed at the same moment as seat 1, on the old top: a lost race
    assert outcomes(t.do(Snap(2, top, 1, 2, give=0))) == [SnapOutcome.NOT_FASTEST]


def test_R6_no_snaps_once_the_round_is_over() -> None:
    from engine import CallBandit

    t = ScriptedTable(2, {1: [0, 2, 2, 4]}, draw=[2, 0])
    t.do(CallBandit(0))
    pass_turn(t, 0)
    pass_turn(t, 1)
    assert t.game.phase is Phase.BETWEEN
    with pytest.raises(WrongPhase, match="R6: seat 2: no immediate discard between rounds"):
        t.do(Snap(1, t.top(), 1, 2))
