"""R3 powers: each power, optional, private; targets checked."""

from __future__ import annotations

import pytest
from engine_support import ScriptedTable

from engine import (
    BadTarget,
    DecideSwap,
    Discard,
    Draw,
    LookSwap,
    OutOfTurn,
    Peek,
    Phase,
    Power,
    Reveal,
    SkipPower,
    Snap,
    Spy,
    Swap,
    WrongPhase,
)

TABLEAUX = {0: [12, 14, 0, 2], 1: [0, 18, 6, 8], 2: [2, 4, 10, 16]}


def with_power(value: int, players: int = 3) -> ScriptedTable:
    """Seat 0 has drawn and discarded a card of `value`: its power may be used now."""
    t = ScriptedTable(players, {s: v for s, v in TABLEAUX.items() if s < players}, draw=[value, 0, 0])
    t.do(Draw(0))
    t.do(Discard(0))
    return t


@pytest.mark.parametrize(
    "value,power", [(4, Power.PEEK), (6, Power.PEEK), (8, Power.SPY), (10, Power.SPY), (12, Power.SWAP),
                    (14, Power.SWAP), (16, Power.LOOK_SWAP), (18, Power.LOOK_SWAP)]
)  # fmt: skip
def test_R3_each_power_value_opens_its_power(value: int, power: Power) -> None:
    t = with_power(value)
    assert t.game.phase is Phase.POWER and t.game.power is power
    assert t.view(1).power is power


@pytest.mark.parametrize("value", [0, 2])
def test_R3_cards_without_power_end_the_turn(value: int) -> None:
    t = with_power(value)
    assert t.game.phase is Phase.START and t.game.turn_seat == 1


@pytest.mark.parametrize("value", [4, 8, 12, 16])
def test_R3_using_a_power_is_optional(value: int) -> None:
    t = with_power(value)
    before = t.game.zones().tableaux
    t.do(SkipPower(0))
    assert t.game.turn_seat == 1 and t.game.zones().tableaux == before


def test_R3_peek_looks_at_one_of_your_own_cards_privately() -> None:
    t = with_power(4)
    card = t.card(0, 0)
    t.do(Peek(0, 0), serve=False)
    assert t.game.needs == (Reveal(card, 0),)
    t.serve()
    assert t.view(0).value(card) == 12
    assert t.view(1).value(card) is None and t.view(2).value(card) is None
    assert t.view(1).seen_by(card) == (0,)  # others know THAT seat 0 looked, not what it saw
    assert t.game.turn_seat == 1


def test_R3_spy_looks_at_another_players_card_privately() -> None:
    t = with_power(10)
    card = t.card(2, 0)
    t.do(Spy(0, 2, 0))
    assert t.view(0).value(card) == 2
    assert t.view(2).value(card) is None and t.view(1).value(card) is None
    assert t.view(2).seen_by(card) == (0,)


def test_R3_spy_on_a_card_the_owner_has_seen_shows_it_to_nobody_else() -> None:
    t = with_power(8)
    card = t.card(1, 2)
    t.do(Spy(0, 1, 2))
    assert t.view(0).value(card) == 6 and t.view(1).value(card) == 6
    assert t.view(2).value(card) is None
    assert t.view(2).seen_by(card) == (0, 1)


def test_R3_swap_exchanges_cards_unseen_and_knowledge_follows_the_cards() -> None:
    t = with_power(12)
    mine, theirs = t.card(0, 2), t.card(1, 3)  # seat 0 knows its slot 2; seat 1 knows its slot 3
    t.do(Swap(0, 2, 1, 3), serve=False)
    assert t.game.needs == ()  # nobody looks
    assert t.card(0, 2) == theirs and t.card(1, 3) == mine
    assert t.view(0).value(mine) == 0 and t.view(1).value(mine) is None
    assert t.view(1).value(theirs) == 8 and t.view(0).value(theirs) is None
    assert t.game.turn_seat == 1


def test_R3_look_and_swap_then_exchange() -> None:
    t = with_power(16)
    mine, theirs = t.card(0, 0), t.card(2, 0)
    t.do(LookSwap(0, 0, 2, 0), serve=False)
    assert t.game.needs == (Reveal(mine, 0), Reveal(theirs, 0))
    t.serve()
    assert t.game.phase is Phase.DECIDE
    assert t.view(0).value(mine) == 12 and t.view(0).value(theirs) == 2
    assert t.view(2).value(theirs) is None and t.view(1).value(mine) is None
    t.do(DecideSwap(0, True))
    assert t.card(0, 0) == theirs and t.card(2, 0) == mine and t.game.turn_seat == 1


def test_R3_look_and_swap_may_decline_the_exchange() -> None:
    t = with_power(18)
    before = t.game.zones().tableaux
    t.do(LookSwap(0, 2, 1, 1))  # slot 2 is known already: only the other card is revealed
    t.do(DecideSwap(0, False))
    assert t.game.zones().tableaux == before and t.game.turn_seat == 1
    assert t.view(0).value(t.card(1, 1)) == 18


def test_R3_look_and_swap_cannot_exchange_a_card_that_left_its_slot() -> None:
    t = with_power(16)
    t.do(LookSwap(0, 3, 2, 3))  # seat 2's slot 3 holds the other 16
    assert t.view(0).looked_in_place
    t.do(Snap(2, t.top(), 2, 3))  # seat 2 snaps it onto the discarded 16 before seat 0 decides
    assert not t.view(0).looked_in_place
    digest = t.game.state_hash()
    with pytest.raises(BadTarget, match="R3: seat 1: cannot exchange"):
        t.do(DecideSwap(0, True))
    assert t.game.state_hash() == digest
    t.do(DecideSwap(0, False))
    assert t.game.turn_seat == 1


def test_R3_a_power_intent_must_match_the_discarded_cards_power() -> None:
    t = with_power(4)
    for intent in (Spy(0, 1, 0), Swap(0, 0, 1, 0), LookSwap(0, 0, 1, 0)):
        with pytest.raises(WrongPhase, match="R3: seat 1: .* the discarded card's power is peek"):
            t.do(intent)
    with pytest.raises(OutOfTurn, match="R3"):
        t.do(Peek(1, 0))


def test_R3_power_targets_must_be_valid() -> None:
    spy = with_power(8)
    with pytest.raises(BadTarget, match="another player's card"):
        spy.do(Spy(0, 0, 1))
    with pytest.raises(BadTarget, match="there is no card in seat 2's slot 4"):
        spy.do(Spy(0, 1, 4))
    peek = with_power(6)
    with pytest.raises(BadTarget, match="there is no card in seat 1's slot 5"):
        peek.do(Peek(0, 5))
    swap = with_power(14)
    with pytest.raises(BadTarget, match="another player's card"):
        swap.do(Swap(0, 0, 0, 1))


def test_R3_no_power_without_option_A() -> None:
    t = ScriptedTable(2)
    with pytest.raises(WrongPhase, match="R3: seat 1: cannot peek at the start of a turn"):
        t.do(Peek(0, 0))


def test_R3_a_peeked_card_stays_private() -> None:
    t = with_power(4)
    t.do(Peek(0, 1))
    card = t.card(0, 1)
    assert not t.view(0).is_public(card)
    assert [s for s in range(3) if t.view(s).value(card) is not None] == [0]
