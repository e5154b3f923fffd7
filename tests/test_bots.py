"""Bots: legal choices only, the normal bot's judgement, and normal beating random."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from engine_support import ScriptedTable

from engine import (
    BOTS,
    CallBandit,
    DecideSwap,
    Discard,
    Draw,
    Exchange,
    LookSwap,
    NormalBot,
    Peek,
    Phase,
    Prng,
    RandomBot,
    Ready,
    SkipPower,
    Snap,
    SnapDelay,
    SnapOutcome,
    SnapResolved,
    Spy,
    Swap,
    TakeDiscard,
    legal_intents,
    legal_snaps,
    make_bot,
    play_game,
    simulate,
)
from engine.bots.normal import _Estimate
from engine.simulator import Simulation
from engine.view import SeatView
from p2p.table import SeatDriver

RNG = Prng(0)


class Watching:
    """Wraps a bot and checks every choice against the legal lists."""

    def __init__(self, bot: NormalBot | RandomBot) -> None:
        self.bot = bot
        self.name = bot.name
        self.snap_delay = bot.snap_delay
        self.acts = 0
        self.snaps = 0

    def act(self, view, rng):  # type: ignore[no-untyped-def]
        intent = self.bot.act(view, rng)
        assert intent in legal_intents(view), (intent, view.phase)
        self.acts += 1
        return intent

    def snap(self, view, rng):  # type: ignore[no-untyped-def]
        claim = self.bot.snap(view, rng)
        if claim is not None:
            assert claim in legal_snaps(view)
            self.snaps += 1
        return claim


@pytest.mark.parametrize("players", [2, 4, 6])
def test_bots_only_choose_legal_intents(players: int) -> None:
    snaps = 0
    for seed in range(3):
        bots = [Watching(RandomBot() if s % 2 else NormalBot()) for s in range(players)]
        Simulation(bots, Prng(seed), target=60).play()
        assert all(b.acts > 0 for b in bots)
        snaps += sum(b.snaps for b in bots)
    assert snaps > 0  # (a short game may see none: one round to 60)


def test_normal_bot_snaps_only_cards_it_knows_to_match() -> None:
    outcomes: list[SnapOutcome] = []

    def observe(event, notes):  # type: ignore[no-untyped-def]
        outcomes.extend(n.outcome for n in notes if isinstance(n, SnapResolved))

    for seed in range(5):
        play_game([NormalBot()] * 4, seed, observer=observe)
    assert SnapOutcome.MATCHED in outcomes
    assert SnapOutcome.WRONG not in outcomes  # it may lose a race, never guess wrong


def test_normal_bot_snaps_its_known_matching_card_and_nothing_it_does_not_know() -> None:
    t = ScriptedTable(2, {1: [10, 2, 10, 4]}, discard=10, ready=False)
    bot = NormalBot()
    assert bot.snap(t.view(1), RNG) == Snap(1, t.top(), 1, 2)  # slot 0 also matches, but unknown
    assert bot.snap(t.view(0), RNG) is None


def test_normal_bot_snaps_an_opponents_known_card_giving_its_worst() -> None:
    t = ScriptedTable(2, {0: [6, 0, 0, 0], 1: [2, 2, 18, 0]}, discard=6)
    t.do(TakeDiscard(0, t.top(), 0))  # everyone knows seat 0's slot 0 is a 6; a 6 is on top
    assert NormalBot().snap(t.view(1), RNG) == Snap(1, t.top(), 0, 0, give=2)


def test_normal_bot_avoids_a_race_it_would_probably_lose_for_little() -> None:
    # both seats know seat 0's public 2; winning gives away a 0, losing costs a penalty card
    t = ScriptedTable(2, {0: [2, 4, 4, 6], 1: [4, 4, 0, 0]}, discard=2)
    t.do(TakeDiscard(0, t.top(), 0))
    assert NormalBot().snap(t.view(1), RNG) is None


def test_normal_bot_is_ready_before_the_first_turn() -> None:
    t = ScriptedTable(3, ready=False)
    assert NormalBot().act(t.view(2), RNG) == Ready(2)


def test_normal_bot_takes_a_clearly_better_discard() -> None:
    t = ScriptedTable(2, {0: [4, 4, 18, 6]}, discard=0)
    assert NormalBot().act(t.view(0), RNG) == TakeDiscard(0, t.top(), 2)


def test_normal_bot_draws_when_the_discard_is_no_better() -> None:
    t = ScriptedTable(2, {0: [4, 4, 2, 6]}, discard=10)
    assert NormalBot().act(t.view(0), RNG) == Draw(0)


def test_normal_bot_keeps_a_low_drawn_card_in_its_worst_slot() -> None:
    t = ScriptedTable(2, {0: [4, 4, 16, 2]}, discard=10, draw=[0])
    t.do(Draw(0))
    assert NormalBot().act(t.view(0), RNG) == Exchange(0, 2)


def test_normal_bot_discards_a_high_drawn_card() -> None:
    t = ScriptedTable(2, {0: [4, 4, 0, 2]}, discard=10, draw=[18])
    t.do(Draw(0))
    assert NormalBot().act(t.view(0), RNG) == Discard(0)


def test_normal_bot_peeks_at_an_unknown_own_card() -> None:
    t = ScriptedTable(2, {0: [4, 4, 0, 2]}, discard=10, draw=[6])
    t.do(Draw(0))
    t.do(Discard(0))
    assert NormalBot().act(t.view(0), RNG) == Peek(0, 0)


def test_normal_bot_spies_on_the_opponent_closest_to_calling() -> None:
    t = ScriptedTable(3, {0: [4, 4, 0, 2], 1: [18, 8, 8, 8], 2: [0, 6, 2, 2]}, discard=10, draw=[2, 2, 8], ready=False)
    t.do(Snap(1, t.top(), 1, 0))  # wrong: everyone now knows seat 1 has an 18
    t.do(Snap(2, t.top(), 2, 0))  # wrong: everyone now knows seat 2 has a 0
    for seat in range(3):
        t.do(Ready(seat))
    t.do(Draw(0))
    t.do(Discard(0))
    assert t.game.phase is Phase.POWER and t.game.turn_seat == 0
    assert NormalBot().act(t.view(0), RNG) == Spy(0, 2, 1)  # seat 2 looks lowest


def test_normal_bot_swaps_a_known_high_card_for_a_known_low_one() -> None:
    t = ScriptedTable(2, {0: [4, 4, 18, 2], 1: [0, 6, 6, 6]}, discard=0, draw=[12])
    t.do(Draw(0))
    t.do(Discard(0))  # seat 0 discards the 12: swap
    # seat 0 does not know seat 1's cards: swap the known 18 for an unknown card
    assert NormalBot().act(t.view(0), RNG) == Swap(0, 2, 1, 0)


def test_normal_bot_look_and_swap_decides_by_value() -> None:
    t = ScriptedTable(2, {0: [4, 4, 18, 2], 1: [0, 6, 6, 6]}, discard=10, draw=[16])
    t.do(Draw(0))
    t.do(Discard(0))
    bot = NormalBot()
    intent = bot.act(t.view(0), RNG)
    assert intent == LookSwap(0, 2, 1, 0)
    t.do(intent)
    assert bot.act(t.view(0), RNG) == DecideSwap(0, True)  # a 0 for the 18


def test_normal_bot_calls_bandit_when_clearly_lowest() -> None:
    # seat 0 snaps its two unknown cards away (lucky), keeping a known 0 and 2
    t = ScriptedTable(2, {0: [10, 4, 0, 2], 1: [8, 8, 16, 16]}, discard=10, draw=[4], first=1, ready=False)
    t.do(Snap(0, t.top(), 0, 0))
    t.do(Ready(0))
    t.do(Ready(1))
    t.do(Draw(1))
    t.do(Discard(1))  # a 4 (peek)
    t.do(Snap(0, t.top(), 0, 1))
    t.do(SkipPower(1))
    assert t.game.turn_seat == 0 and t.game.card_count(0) == 2
    assert NormalBot().act(t.view(0), RNG) == CallBandit(0)


def calling_with_a_match() -> ScriptedTable:
    """Seat 0 starts its turn on a 2 it knows to hold (slot 3), its other card a known 0:
    clearly lowest, it should announce Bandit, and snap its 2 as well."""
    t = ScriptedTable(2, {0: [10, 4, 0, 2], 1: [8, 8, 16, 16]}, discard=10, draw=[4, 0, 2], first=1, ready=False)
    t.do(Snap(0, t.top(), 0, 0))  # (lucky snaps of its two unknown cards)
    t.do_all([Ready(0), Ready(1), Draw(1), Discard(1)])  # a 4 (peek)
    t.do(Snap(0, t.top(), 0, 1))
    t.do_all([SkipPower(1), Draw(0), Discard(0), Draw(1), Discard(1)])  # a 0, then a 2 on top
    assert t.game.turn_seat == 0 and t.game.phase is Phase.START and t.top_value() == 2
    return t


def test_R5_the_normal_bot_announces_bandit_before_its_snap() -> None:
    """R5: Bandit comes "at the very start of your turn, before anything else", and the
    engine refuses it after a snap of the seat's own in that turn. The simulator and the
    live driver ask for a snap before the turn decision, so the bot holds its snap until
    it has called, and is asked again after the call."""
    t = calling_with_a_match()
    bot = NormalBot()
    assert bot.snap(t.view(0), RNG) is None  # held: a snap now would forbid the call
    assert bot.act(t.view(0), RNG) == CallBandit(0)
    t.do(CallBandit(0))
    assert bot.snap(t.view(0), RNG) == Snap(0, t.top(), 0, 3)

    # the live driver asks on the same schedule: once more after the seat's own call
    t = calling_with_a_match()
    driver = SeatDriver(SimpleNamespace(engine=t.game, me=0, playing=True), bot, RNG)  # type: ignore[arg-type]
    assert driver.snap() is None and driver.act() == CallBandit(0)
    t.do(CallBandit(0))
    driver.acts_in_flight = 0  # (landed)
    assert driver.snap() == Snap(0, t.top(), 0, 3) and driver.act() is None  # the turn waits for the snap


class CallWatch:
    """A normal bot that counts the snaps it sends while it means to announce Bandit at
    the start of its own turn (each forbids the call, R5), and those it sends at the start
    of its turn after its own call."""

    def __init__(self) -> None:
        self.bot = NormalBot()
        self.name = self.bot.name
        self.snap_delay = self.bot.snap_delay
        self.calls = self.lost = self.after_call = 0

    @staticmethod
    def starting(view: SeatView) -> bool:
        return view.phase is Phase.START and view.turn_seat == view.seat

    def act(self, view, rng):  # type: ignore[no-untyped-def]
        intent = self.bot.act(view, rng)
        self.calls += type(intent) is CallBandit
        return intent

    def snap(self, view, rng):  # type: ignore[no-untyped-def]
        claim = self.bot.snap(view, rng)
        if claim is not None and self.starting(view):
            if view.caller is None and self.bot._should_call(view, _Estimate(view)):
                self.lost += 1
            self.after_call += view.caller == view.seat
        return claim


def test_R5_no_wanted_bandit_call_is_lost_to_a_snap_in_simulated_games() -> None:
    """Over seeded games of 2 to 4 normal bots, no bot snaps at the start of its turn
    while it means to call (20 such snaps here before the bot held them), and the
    held snaps are made after the call."""
    calls = lost = after_call = 0
    for seed in range(20):
        for players in (2, 3, 4):
            bots = [CallWatch() for _ in range(players)]
            play_game(bots, seed)  # type: ignore[arg-type]
            calls += sum(b.calls for b in bots)
            lost += sum(b.lost for b in bots)
            after_call += sum(b.after_call for b in bots)
    assert calls > 300
    assert lost == 0
    assert after_call > 0


def test_normal_bot_does_not_call_with_unknown_cards_and_an_even_table() -> None:
    t = ScriptedTable(2, {0: [0, 0, 0, 2], 1: [0, 0, 2, 2]}, discard=10)
    assert NormalBot().act(t.view(0), RNG) != CallBandit(0)


def test_random_bot_snaps_at_its_rate_and_only_legally() -> None:
    t = ScriptedTable(4, ready=False)
    view = t.view(2)
    never, always = RandomBot(snap_rate=0.0), RandomBot(snap_rate=1.0)
    rng = Prng(5)
    assert all(never.snap(view, rng) is None for _ in range(50))
    claims = [always.snap(view, rng) for _ in range(50)]
    assert all(c in legal_snaps(view) for c in claims) and len(set(claims)) > 10
    assert RandomBot().act(view, rng) == Ready(2)


def test_snap_delay_is_a_seeded_reaction_time() -> None:
    delay = SnapDelay(median=1.0, spread=0.5, minimum=0.6)
    samples = [delay.sample(Prng(i)) for i in range(300)]
    assert all(0.6 <= x <= 1.5 for x in samples)
    assert 0.9 < sum(samples) / len(samples) < 1.1
    assert samples == [delay.sample(Prng(i)) for i in range(300)]
    with pytest.raises(ValueError):
        SnapDelay(median=-1.0)
    assert NormalBot().snap_delay == SnapDelay()


def test_bots_by_name() -> None:
    assert set(BOTS) == {"normal", "random"}
    assert make_bot("normal") == NormalBot() and make_bot("random") == RandomBot()
    with pytest.raises(ValueError, match="unknown bot 'genius'; known bots: normal, random"):
        make_bot("genius")


def test_normal_beats_random() -> None:
    # the benchmark measures 1000 games (goal: at least 75%); 150 keep this test quick
    summary = simulate(4, 150, seed=11, bots=("normal", "random", "random", "random"))
    assert summary.win_rate[0] >= 0.75, summary.win_rate


def test_normal_bots_reach_the_end_with_sensible_rounds() -> None:
    summary = simulate(4, 20, seed=3)
    assert 2 < summary.mean_rounds < 20
    assert 5 < summary.mean_turns_per_round < 80
    assert abs(sum(summary.win_rate) - 1.0) < 1e-9
