"""Scenario tests for the round: setup (R4), turns (R5), reshuffle (R7), Bandit (R8)."""

from __future__ import annotations

import re

import pytest
from engine_support import GREEN, RED, ScriptedTable

from engine import (
    ALL,
    BanditAlreadyCalled,
    CallBandit,
    CardKind,
    Discard,
    Draw,
    Exchange,
    LookSwap,
    OutOfTurn,
    Peek,
    PeekBarrierExpired,
    Phase,
    Power,
    Ready,
    Reshuffle,
    Reveal,
    RoundEnded,
    RoundStarted,
    SkipPower,
    Skills,
    Snap,
    SnapOutcome,
    SnapResolved,
    TakeDiscard,
    TimerFallback,
    TurnStarted,
    TurnTimedOut,
    UnexpectedFact,
    WrongPhase,
    AwaitingTable,
    BadTarget,
    Game,
    Spy,
)


def pass_turn(t: ScriptedTable, seat: int) -> None:
    """Option A without using a power."""
    t.do(Draw(seat))
    t.do(Discard(seat))
    if t.game.phase is Phase.POWER:
        t.do(SkipPower(seat))


# ---------------------------------------------------------------- R4 setup


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_R4_deal_is_a_2x2_square_of_positions(players: int) -> None:
    t = ScriptedTable(players, ready=False)
    zones = t.game.zones()
    assert zones.tableaux == tuple(tuple(range(4 * s, 4 * s + 4)) for s in range(players))
    assert zones.discard == (4 * players,)
    assert zones.draw[0] == 4 * players + 1
    assert zones.draw == tuple(range(4 * players + 1, 50))
    assert sorted(zones.cards()) == list(range(50))


def test_R4_each_player_looks_at_its_two_bottom_cards_only() -> None:
    table = ScriptedTable(3, {0: [0, 2, 4, 6], 1: [8, 10, 12, 14], 2: [16, 18, GREEN, RED]}, discard=2, ready=False)
    needs = [e for e in table.events if type(e).__name__ == "Revealed"]
    assert [(r.card, r.to) for r in needs] == [(2, 0), (3, 0), (6, 1), (7, 1), (10, 2), (11, 2), (12, ALL)]
    for seat in range(3):
        view = table.view(seat)
        for owner in range(3):
            for slot, card in enumerate(view.tableau(owner)):
                known = owner == seat and slot in (2, 3)
                assert (view.value(card) is not None) == known, (seat, owner, slot)
    assert table.view(2).value(table.card(2, 2)) == GREEN
    assert table.view(2).value(table.card(2, 3)) == RED


def test_R4_first_discard_is_turned_face_up_for_everyone() -> None:
    t = ScriptedTable(2, discard=10, ready=False)
    assert t.game.discard_top() == 8
    for seat in (0, 1):
        assert t.view(seat).top_value == 10
        assert t.view(seat).is_public(8)


def test_R4_intents_wait_until_the_deal_is_revealed() -> None:
    game = Game(2)
    game.apply(RoundStarted(0))
    digest = game.state_hash()
    with pytest.raises(AwaitingTable) as info:
        game.apply(Ready(0))
    assert info.value.rule == "§9" and info.value.seat == 0
    assert "the table owes a reveal of card 2 to seat 1" in str(info.value)
    assert game.state_hash() == digest


def test_R4_snap_is_allowed_on_the_first_discard_before_the_first_turn() -> None:
    t = ScriptedTable(2, {1: [0, 2, 6, 4]}, discard=6, ready=False)
    assert t.game.phase is Phase.PEEK
    notes = t.do(Snap(1, t.top(), 1, 2))
    assert [n.outcome for n in notes if isinstance(n, SnapResolved)] == [SnapOutcome.MATCHED]
    assert t.game.zones().tableaux[1] == (4, 5, None, 7)
    # the pre-first-turn period is a turn of its own: the snap is used up there ...
    with pytest.raises(Exception, match="R6"):
        t.do(Snap(1, t.top(), 1, 3))
    # ... and available again in the first turn
    t.do(Ready(0))
    t.do(Ready(1))
    assert t.view(1).can_snap


@pytest.mark.parametrize("first", [0, 1, 2])
def test_R4_play_goes_clockwise_from_the_first_player(first: int) -> None:
    t = ScriptedTable(3, first=first, draw=[0, 2, 0, 2])
    assert t.game.turn_seat == first
    order = []
    for _ in range(4):
        seat = t.game.turn_seat
        order.append(seat)
        pass_turn(t, seat)
    assert order == [first, (first + 1) % 3, (first + 2) % 3, first]


def test_R4_first_turn_waits_for_every_player_to_be_ready() -> None:
    t = ScriptedTable(3, ready=False)
    t.do(Ready(1))
    t.do(Ready(0))
    assert t.game.phase is Phase.PEEK and t.game.turn_seat is None
    with pytest.raises(WrongPhase) as info:
        t.do(Draw(0))
    assert info.value.rule == "R5"
    with pytest.raises(WrongPhase, match="already confirmed"):
        t.do(Ready(1))
    notes = t.do(Ready(2))
    assert TurnStarted(0, t.game.turn) in notes
    assert t.game.phase is Phase.START


def test_R4_ready_barrier_expiry_starts_the_first_turn() -> None:
    t = ScriptedTable(2, ready=False, first=1)
    t.do(Ready(0))
    t.do(PeekBarrierExpired())
    assert t.game.phase is Phase.START and t.game.turn_seat == 1
    with pytest.raises(WrongPhase, match="R4"):
        t.do(Ready(1))
    with pytest.raises(UnexpectedFact, match="R4"):
        t.do(PeekBarrierExpired())


# ---------------------------------------------------------------- R5 turns


def test_R5_option_A_draw_look_privately_then_discard_face_up() -> None:
    t = ScriptedTable(2, draw=[2])
    t.do(Draw(0), serve=False)
    assert t.game.needs == (Reveal(9, 0),)  # a private look for the drawer
    t.serve()
    assert t.game.phase is Phase.DRAWN
    assert t.view(0).value(9) == 2 and t.view(1).value(9) is None
    t.do(Discard(0), serve=False)
    assert t.game.needs == (Reveal(9, ALL),)
    t.serve()
    assert t.game.discard_top() == 9 and t.view(1).value(9) == 2
    assert t.game.turn_seat == 1  # no power: the turn is over


def test_R5_option_A_with_a_power_card_opens_the_power_phase() -> None:
    t = ScriptedTable(2, draw=[6])
    t.do(Draw(0))
    t.do(Discard(0))
    assert t.game.phase is Phase.POWER and t.game.power is Power.PEEK and t.game.turn_seat == 0


def test_R5_option_B_removed_card_is_discarded_unseen_and_no_power_is_used() -> None:
    t = ScriptedTable(2, {0: [10, 4, 4, 4]}, draw=[8])
    t.do(Draw(0))
    removed = t.card(0, 0)
    drawn = t.game.zones().hand
    t.do(Exchange(0, 0), serve=False)
    # the removed card goes straight to a public reveal: nobody, the player included, saw it first
    assert t.game.needs == (Reveal(removed, ALL),)
    assert t.view(0).seen_by(removed) == ()
    t.serve()
    assert t.game.discard_top() == removed and t.view(1).top_value == 10
    assert t.card(0, 0) == drawn
    assert t.view(0).value(drawn) == 8 and t.view(1).value(drawn) is None
    assert t.game.turn_seat == 1 and t.game.phase is Phase.START  # 8 and 10 have powers; none used


def test_R5_option_C_takes_the_discard_which_everyone_knows() -> None:
    t = ScriptedTable(2, {0: [16, 4, 4, 4]}, discard=0)
    top = t.top()
    removed = t.card(0, 0)
    t.do(TakeDiscard(0, top, 0))
    assert t.card(0, 0) == top
    assert t.view(1).value(top) == 0 and t.view(0).value(top) == 0  # known to all, face down
    assert t.game.discard_top() == removed and t.view(0).top_value == 16
    assert t.game.turn_seat == 1 and t.game.phase is Phase.START  # 16's look & swap is not used


def test_R5_option_C_a_take_of_a_top_card_an_immediate_discard_covered_first_is_refused_and_the_turn_goes_on() -> None:
    """Seat 0 decides to take the green Bandit (-2); seat 1's snap of a red Bandit (+20,
    identical by R2) is ordered first. The take names the card it was decided on, so it
    does not take the red one 22 points worse: it is refused, seat 0's slot keeps its card
    and seat 0 chooses again. (The take of a card never on top is refused as a snap's is.)"""
    t = ScriptedTable(2, {0: [18, 0, 0, 0], 1: [RED, 2, 2, 2]}, discard=GREEN)
    green, mine = t.top(), t.card(0, 0)
    assert [n.outcome for n in t.do(Snap(1, green, 1, 0)) if isinstance(n, SnapResolved)] == [SnapOutcome.MATCHED]
    digest = t.game.state_hash()
    with pytest.raises(BadTarget, match=re.escape(
            "R5: seat 1: the card seat 1 chose to take is no longer the discard pile's top: "
            "seat 2's snap covered it, ordered before the take; seat 1 may choose again")):
        t.do(TakeDiscard(0, green, 0))
    with pytest.raises(BadTarget, match="R5: seat 1: card 1 has never been the top of the discard pile this round"):
        t.do(TakeDiscard(0, 1, 0))
    assert t.game.state_hash() == digest
    assert t.card(0, 0) == mine and t.values(0)[0] == 18
    assert t.game.turn_seat == 0 and t.game.phase is Phase.START
    t.do(TakeDiscard(0, t.top(), 1))  # chosen again, on the card now on top
    assert t.values(0) == [18, 20, 0, 0]
    with pytest.raises(BadTarget, match=re.escape(  # (seat 0's card, put there by its take, covers the snap's)
            "no longer the discard pile's top: another card covered it, ordered before the take; seat 2 may choose again")):
        t.do(TakeDiscard(1, green, 1))


def test_R5_options_are_exclusive_within_a_turn() -> None:
    t = ScriptedTable(2, draw=[2])
    with pytest.raises(WrongPhase, match="R5"):
        t.do(Discard(0))
    t.do(Draw(0))
    with pytest.raises(WrongPhase, match="R5"):
        t.do(TakeDiscard(0, t.top(), 0))
    with pytest.raises(WrongPhase, match="R5"):
        t.do(Draw(0))
    with pytest.raises(OutOfTurn, match="R5: seat 2: cannot discard the drawn card: it is seat 1's turn"):
        t.do(Discard(1))


def test_R5_power_is_used_after_an_immediate_discard_on_the_discarded_card() -> None:
    # seat 0 discards an 8 (spy); seat 1 snaps its own known 8 first; then seat 0 spies
    t = ScriptedTable(2, {1: [0, 0, 8, 2]}, draw=[8])
    t.do(Draw(0))
    t.do(Discard(0))
    assert t.game.phase is Phase.POWER
    notes = t.do(Snap(1, t.top(), 1, 2))
    assert notes[0].outcome is SnapOutcome.MATCHED
    assert t.game.phase is Phase.POWER and t.game.power is Power.SPY  # still seat 0's power
    t.do(Spy(0, 1, 3))
    assert t.view(0).value(t.card(1, 3)) == 2
    assert t.game.turn_seat == 1


def _timer_table() -> ScriptedTable:
    return ScriptedTable(2, {0: [0, 2, 0, 2], 1: [16, 2, 0, 4]}, draw=[16, 10, 0, 4])


def test_R5_timer_fallback_at_the_start_plays_A_without_power_and_without_a_private_look() -> None:
    t = _timer_table()
    turn = t.game.turn
    notes = t.do(TurnTimedOut(turn), serve=False)
    assert notes == [TimerFallback(0, turn)]
    assert t.game.needs == (Reveal(9, ALL),)  # drawn and turned face up directly
    notes = t.serve()
    assert t.view(1).top_value == 16 and t.view(0).seen_by(9) == (0, 1)
    assert t.game.turn_seat == 1 and t.game.phase is Phase.START  # look & swap dropped
    assert [n for n in notes if isinstance(n, TurnStarted)] == [TurnStarted(1, turn + 1)]


def test_R5_timer_fallback_with_a_drawn_card_discards_it_without_power() -> None:
    t = _timer_table()
    t.do(Draw(0))
    t.do(TurnTimedOut(t.game.turn))
    assert t.view(1).top_value == 16 and t.game.turn_seat == 1


def test_R5_timer_fallback_in_the_power_phase_drops_the_power() -> None:
    t = _timer_table()
    t.do(Draw(0))
    t.do(Discard(0))
    assert t.game.phase is Phase.POWER
    t.do(TurnTimedOut(t.game.turn))
    assert t.game.turn_seat == 1 and t.game.phase is Phase.START


def test_R5_timer_fallback_while_deciding_a_look_and_swap_keeps_the_cards() -> None:
    t = _timer_table()
    t.do(Draw(0))
    t.do(Discard(0))
    before = t.game.zones().tableaux
    t.do(LookSwap(0, 0, 1, 0))
    assert t.game.phase is Phase.DECIDE
    t.do(TurnTimedOut(t.game.turn))
    assert t.game.zones().tableaux == before and t.game.turn_seat == 1


def test_R5_a_stale_turn_timer_is_refused() -> None:
    t = _timer_table()
    old = t.game.turn
    pass_turn(t, 0)
    digest = t.game.state_hash()
    with pytest.raises(UnexpectedFact) as info:
        t.do(TurnTimedOut(old))
    assert info.value.rule == "R5" and "stale" in info.value.message
    assert t.game.state_hash() == digest


# ---------------------------------------------------------------- R7 draw pile exhausted

SMALL = Skills(
    (
        CardKind(0, 3),
        CardKind(2, 3),
        CardKind(4, 2, Power.PEEK),
        CardKind(8, 2, Power.SPY),
        CardKind(-2, 1, bandit=True, name="green Bandit"),
        CardKind(20, 1, bandit=True, name="red Bandit"),
    )
)  # 12 cards: 2 players leave 3 to draw


def test_R7_reshuffle_keeps_the_top_card_and_uses_fresh_ids() -> None:
    t = ScriptedTable(2, skills=SMALL)
    assert t.game.zones().draw == (9, 10, 11)
    for seat in (0, 1, 0):
        pass_turn(t, seat)
    zones = t.game.zones()
    assert zones.draw == () and zones.discard == (8, 9, 10, 11)
    retired_faces = sorted(t.oracle.faces[c] for c in (8, 9, 10))
    t.do(Draw(1), serve=False)
    assert t.game.needs == (Reshuffle((8, 9, 10), 12),)
    t.serve()
    zones = t.game.zones()
    assert zones.discard == (11,)  # the top card stays
    assert zones.hand == 12  # fresh ids continue after the highest used (11)
    assert zones.draw == (13, 14)
    assert sorted(t.oracle.faces[c] for c in (12, 13, 14)) == retired_faces
    assert sorted(zones.cards()) == [0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 14]
    assert t.view(1).face(12) is not None and t.view(0).face(13) is None


def test_R7_nothing_to_draw_ends_the_round_at_once_and_scores_it() -> None:
    tiny = Skills((CardKind(0, 4), CardKind(2, 4), CardKind(4, 2, Power.PEEK)))  # 10 cards: 1 to draw
    t = ScriptedTable(2, {0: [0, 0, 0, 0], 1: [2, 2, 2, 2]}, discard=4, draw=[4], skills=tiny, ready=False)
    # a wrong snap before the first turn takes the only card left to draw as a penalty
    t.do(Snap(1, t.top(), 1, 0))
    assert t.game.zones().draw == () and t.game.zones().tableaux[1] == (0 + 4, 5, 6, 7, 9)
    t.do(Ready(0))
    t.do(Ready(1))
    notes = t.do(Draw(0))  # nothing to draw and nothing to reshuffle: the round ends
    ended = [n for n in notes if isinstance(n, RoundEnded)]
    assert ended == [RoundEnded(1, (0, 12), (0, 12), None, True)]
    assert t.game.phase is Phase.BETWEEN


def test_R7_a_penalty_card_triggers_the_reshuffle_too() -> None:
    t = ScriptedTable(2, {1: [0, 2, 2, 2]}, discard=4, draw=[0, 0, 8], skills=SMALL)
    for seat in (0, 1, 0):
        pass_turn(t, seat)
    assert t.game.zones().draw == () and t.top_value() == 8
    top = t.top()
    t.do(Snap(1, top, 1, 1), serve=False)  # a 2 is not an 8: penalty, and nothing to draw
    assert t.game.needs == (Reveal(5, ALL),)
    t.serve()
    zones = t.game.zones()
    assert zones.discard == (top,) and zones.tableaux[1] == (4, 5, 6, 7, 12) and zones.draw == (13, 14)


# ---------------------------------------------------------------- R8 Bandit and final turns


def test_R8_two_players_the_opponent_plays_one_final_turn() -> None:
    t = ScriptedTable(2, draw=[0, 2, 0, 2])
    t.do(CallBandit(0))
    assert t.game.caller == 0 and t.game.final_turns_left is None
    pass_turn(t, 0)
    assert t.game.final_turns_left == 1 and t.game.turn_seat == 1
    notes = t.do(Draw(1)) + t.do(Discard(1))
    assert any(isinstance(n, RoundEnded) for n in notes)
    assert t.game.phase is Phase.BETWEEN and t.game.round == 1


@pytest.mark.parametrize("players,caller,finals", [(3, 0, [1, 2]), (4, 1, [2, 3]), (5, 4, [0, 1]), (6, 2, [3, 4])])
def test_R8_three_or_more_players_the_next_two_play_a_final_turn(players: int, caller: int, finals: list[int]) -> None:
    t = ScriptedTable(players, first=caller, draw=[0, 2, 0])
    t.do(CallBandit(caller))
    pass_turn(t, caller)
    played = []
    while t.game.phase is Phase.START:
        seat = t.game.turn_seat
        played.append(seat)
        pass_turn(t, seat)
    assert played == finals
    assert t.game.phase is Phase.BETWEEN


def test_R8_snaps_stay_allowed_during_final_turns() -> None:
    t = ScriptedTable(3, {2: [0, 0, 2, 0]}, draw=[0, 2, 0, 2])
    t.do(CallBandit(0))
    pass_turn(t, 0)  # discards a 0
    pass_turn(t, 1)  # final turn 1 of 2: discards a 2
    assert t.game.final_turns_left == 1
    notes = t.do(Snap(2, t.top(), 2, 2))
    assert notes[0].outcome is SnapOutcome.MATCHED


def test_R5_R8_only_one_announcement_per_round_and_only_at_the_start_of_a_turn() -> None:
    """R5 says when Bandit may be announced (at the very start of a turn, if nobody has
    yet this round): every refusal of a call at the wrong time cites it (R8 tells what
    follows a call, and its checklist line is "one announcement per round")."""
    t = ScriptedTable(3, draw=[0, 2] * 4)
    t.do(Draw(0))
    with pytest.raises(WrongPhase, match="^R5: .*cannot announce Bandit"):
        t.do(CallBandit(0))
    t.do(Discard(0))
    t.do(CallBandit(1))
    with pytest.raises(BanditAlreadyCalled, match="R5: seat 2: Bandit was already announced this round \\(by seat 2\\)"):
        t.do(CallBandit(1))
    pass_turn(t, 1)
    with pytest.raises(BanditAlreadyCalled, match="by seat 2"):
        t.do(CallBandit(2))
    pass_turn(t, 2)
    pass_turn(t, 0)
    assert t.game.phase is Phase.BETWEEN
    t.deal(first=2)
    for seat in range(3):
        t.do(Ready(seat))
    t.do(CallBandit(2))  # a new round allows a new announcement
    assert t.game.caller == 2


def test_R8_at_round_end_every_card_is_turned_face_up() -> None:
    t = ScriptedTable(2, draw=[0, 2])
    t.do(CallBandit(0))
    pass_turn(t, 0)
    t.do(Draw(1))
    hidden = [c for tab in t.game.zones().tableaux for c in tab if c is not None]
    t.do(Discard(1), serve=False)
    needs = t.game.needs
    assert needs[0] == Reveal(10, ALL)  # seat 1's discard first, then the hidden cards
    t.serve()
    for seat in (0, 1):
        view = t.view(seat)
        assert all(view.is_public(c) for c in hidden)
        assert all(view.value(c) == t.value(c) for c in hidden)


def test_R3_peek_at_a_card_already_seen_needs_no_reveal() -> None:
    t = ScriptedTable(2, draw=[4])
    t.do(Draw(0))
    t.do(Discard(0))
    t.do(Peek(0, 2), serve=False)  # slot 2 was seen at the deal
    assert t.game.needs == () and t.game.turn_seat == 1


def test_R4_round_started_twice_is_refused() -> None:
    t = ScriptedTable(2)
    with pytest.raises(UnexpectedFact, match="R4: round 1 is still being played"):
        t.do(RoundStarted(0))


def test_R5_bandit_comes_before_anything_else_in_the_turn_a_snap_of_one_s_own_included() -> None:
    """R5: "At the very start of your turn, before anything else, you may announce
    Bandit". A player who snaps in its own turn (R6: at any moment) and then sees how it
    went has acted: the announcement is refused, and no longer offered. Another
    player's snap is not the turn player's act: it still may announce."""
    from engine import Snap, SnapOutcome, SnapResolved, legal_intents

    t = ScriptedTable(2, {0: [0, 2, 4, 6]}, discard=0, draw=[2, 2], first=0)
    notes = t.do(Snap(0, t.top(), 0, 0))
    assert [n.outcome for n in notes if isinstance(n, SnapResolved)] == [SnapOutcome.MATCHED]
    assert CallBandit(0) not in legal_intents(t.game.view(0))
    with pytest.raises(WrongPhase, match="R5: seat 1: cannot announce Bandit: it comes before anything else"):
        t.do(CallBandit(0))
    assert t.game.caller is None
    other = ScriptedTable(2, {1: [0, 2, 4, 6]}, discard=0, draw=[2, 2], first=0)
    other.do(Snap(1, other.top(), 1, 0))  # seat 1 snaps during seat 0's turn
    assert CallBandit(0) in legal_intents(other.game.view(0))
    other.do(CallBandit(0))
    assert other.game.caller == 0


def test_a_stale_view_names_its_seat_counting_from_1() -> None:
    """A view used after the game moved on is refused; its words, read by a person, count
    the seat from 1 as every other message does."""
    from engine import StaleView

    t = ScriptedTable(3, draw=[0, 2] * 4)
    view = t.game.view(1)
    t.do(Draw(0))
    with pytest.raises(StaleView, match=r"^this view of seat 2 is from before the game's last event"):
        view.phase  # noqa: B018
