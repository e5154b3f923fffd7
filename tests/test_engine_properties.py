"""Properties over simulated games (hypothesis): conservation of cards, legal vs illegal
intents, scores, termination, determinism, and R10 (nobody learns a hidden card)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine import (
    ALL,
    CallBandit,
    DecideSwap,
    Discard,
    Draw,
    EngineError,
    Event,
    Exchange,
    Game,
    LookSwap,
    Note,
    Oracle,
    Peek,
    Phase,
    Prng,
    Ready,
    Reshuffle,
    Revealed,
    RoundEnded,
    SkipPower,
    Snap,
    SnapOutcome,
    SnapResolved,
    Spy,
    Swap,
    TakeDiscard,
    legal_intents,
    legal_snaps,
    make_bot,
    play_game,
)
from engine.simulator import Simulation

BOT_MIXES = [("normal",), ("random",), ("normal", "random")]
RULE = re.compile(r"^(R(10|[1-9])|§\d+)$")
PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def seat_bots(players: int, mix: Sequence[str]) -> list:
    return [make_bot(mix[s % len(mix)]) for s in range(players)]


def recorded_game(players: int, seed: int, mix: Sequence[str], target: int = 60) -> list[Event]:
    events: list[Event] = []
    play_game(seat_bots(players, mix), seed, target=target, record=events)
    return events


def replay(players: int, events: Sequence[Event], target: int = 60) -> Game:
    game = Game(players, target=target)
    for event in events:
        game.apply(event)
    return game


games = st.tuples(st.integers(2, 6), st.integers(0, 2**32), st.sampled_from(BOT_MIXES))


# ------------------------------------------------------------------ invariants at every event


def awaits_reshuffle(game: Game) -> bool:
    return any(isinstance(need, Reshuffle) for need in game.needs)


def check_invariants(sim: Simulation, event: Event, notes: list[Note]) -> None:
    game, oracle = sim.game, sim.oracle
    zones = game.zones()
    cards = zones.cards()
    # R2: every physical card is in exactly one place, once
    assert len(cards) == len(set(cards)) == game.skills.size
    assert sorted(oracle.faces[c] for c in cards) == list(range(game.skills.size))
    if game.phase in (Phase.PEEK, Phase.START, Phase.DRAWN, Phase.POWER, Phase.DECIDE):
        # R6: never zero cards; the penalty card of a seat whose last card left waits only
        # while the reshuffle that refills an empty draw pile runs (R7)
        assert all(game.card_count(s) >= 1 for s in range(game.players)) or awaits_reshuffle(game)
    for seat in range(game.players):
        view = game.view(seat)
        for card in cards:
            face = view.face(card)
            if face is not None:  # R10: shown only what this seat saw, and truly
                assert seat in view.seen_by(card) and face == oracle.faces[card]
            elif view.is_public(card):
                raise AssertionError(f"public card {card} hidden from seat {seat}")
    for note in notes:
        if isinstance(note, RoundEnded):  # R9: sums of the revealed cards, caller adjusted
            raw = [sum(game.skills.values[oracle.faces[c]] for c in tab if c is not None) for tab in zones.tableaux]
            if note.caller is not None:
                c = note.caller
                lowest = all(raw[c] < raw[s] for s in range(game.players) if s != c)
                raw[c] += -10 if lowest else 10
            assert list(note.scores) == raw


@PROPERTY
@given(games)
@example((6, 48663, ("normal",)))  # (a last card snapped with the draw pile empty: see the next test)
def test_R2_cards_conserved_R9_scores_R10_views_at_every_event(spec: tuple[int, int, tuple[str, ...]]) -> None:
    players, seed, mix = spec
    sim = Simulation(seat_bots(players, mix), Prng(seed), target=50)
    sim.observer = lambda event, notes: check_invariants(sim, event, notes)
    sim.play()
    assert sim.game.over


def test_R6_R7_a_last_card_snapped_with_the_draw_pile_empty_is_followed_by_its_penalty_after_the_reshuffle() -> None:
    """Six normal bots, game 48663 (found by the property above): seat 4 snaps its last
    card while the draw pile is empty. The penalty card it must draw comes from the pile
    the reshuffle makes first (R7): zero cards only until then, and nothing else happens
    meanwhile (the engine waits on the reshuffle)."""
    sim = Simulation(seat_bots(6, ("normal",)), Prng(48663), target=50)
    seen: list[tuple[Event, list[int], bool]] = []
    sim.observer = lambda event, notes: seen.append(
        (event, [sim.game.card_count(s) for s in range(6)], awaits_reshuffle(sim.game)))
    sim.play()
    empty = [i for i, (_, counts, _) in enumerate(seen) if 0 in counts]
    assert empty, "the game no longer reaches the case: pick another"
    for i in empty:
        event, counts, waiting = seen[i]
        assert waiting and isinstance(seen[i - 1][0], Snap), (event, counts)
        after, counts_after, _ = seen[i + 1]  # (the next fact is the reshuffle, and the penalty is drawn with it)
        assert min(counts_after) >= 1 and counts_after[counts.index(0)] == 1, (after, counts_after)


# ------------------------------------------------------------------ legal and illegal intents


def intents(players: int, tops: list[int]) -> st.SearchStrategy:
    junk = st.sampled_from(["1", None, 1.5, True, -7])
    seat = st.one_of(st.integers(-1, players), junk)
    slot = st.one_of(st.integers(-1, 6), junk)
    top = st.one_of(st.sampled_from(tops or [0]), st.integers(-1, 80), junk)
    return st.one_of(
        st.builds(Ready, seat),
        st.builds(CallBandit, seat),
        st.builds(Draw, seat),
        st.builds(Discard, seat),
        st.builds(Exchange, seat, slot),
        st.builds(TakeDiscard, seat, top, slot),
        st.builds(Peek, seat, slot),
        st.builds(Spy, seat, seat, slot),
        st.builds(Swap, seat, slot, seat, slot),
        st.builds(LookSwap, seat, slot, seat, slot),
        st.builds(DecideSwap, seat, st.one_of(st.booleans(), junk)),
        st.builds(SkipPower, seat),
        st.builds(Snap, seat, top, seat, slot, st.one_of(st.none(), slot)),
    )


def _exact(intent: object) -> tuple[object, ...]:
    """An intent with the type of each of its fields: how the engine tells them apart."""
    return (type(intent), *((type(v), v) for v in (getattr(intent, f.name) for f in dataclasses.fields(intent))))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games, st.floats(0, 1), st.data())
def test_legal_intents_are_accepted_and_illegal_ones_refused_with_state_unchanged(
    spec: tuple[int, int, tuple[str, ...]], cut: float, data: st.DataObject
) -> None:
    players, seed, mix = spec
    events = recorded_game(players, seed, mix)
    # stop anywhere, including while the table owes reveals
    game = replay(players, events[: int(cut * len(events))])
    candidate = data.draw(intents(players, list(game.zones().discard)), label="candidate")
    legal: list = []
    if isinstance(candidate.seat, int) and not isinstance(candidate.seat, bool) and 0 <= candidate.seat < players:
        view = game.view(candidate.seat)
        legal = legal_intents(view) + legal_snaps(view)
    digest = game.state_hash()
    top_before = game.discard_top()
    exactly = {_exact(intent) for intent in legal}  # (True == 1 in Python: `Spy(2, True, 0)` is no legal intent)
    try:
        notes = game.apply(candidate)
    except EngineError as error:
        assert _exact(candidate) not in exactly, f"legal {candidate} refused: {error}"
        assert RULE.match(error.rule), error.rule
        assert error.message
        assert game.state_hash() == digest
    else:
        if _exact(candidate) not in exactly:  # only a snap on an older top card is accepted unlisted
            assert isinstance(candidate, Snap) and candidate.top != top_before
            assert [n.outcome for n in notes if isinstance(n, SnapResolved)] == [SnapOutcome.NOT_FASTEST]
        return
    # every listed intent of some seat is accepted
    seat = data.draw(st.integers(0, players - 1), label="seat")
    view = game.view(seat)
    options = legal_intents(view) + legal_snaps(view)
    if options:
        game.apply(data.draw(st.sampled_from(options), label="legal"))


# ------------------------------------------------------------------ termination and determinism


@PROPERTY
@given(games, st.sampled_from([30, 100, 150]))
def test_every_game_terminates(spec: tuple[int, int, tuple[str, ...]], target: int) -> None:
    players, seed, mix = spec
    result = play_game(seat_bots(players, mix), seed, target=target)
    assert max(result.totals) >= target and result.winners
    assert min(result.totals) == result.totals[result.winners[0]]
    assert 1 <= result.rounds < 100


@PROPERTY
@given(games)
def test_same_events_same_digest(spec: tuple[int, int, tuple[str, ...]]) -> None:
    players, seed, mix = spec
    first = recorded_game(players, seed, mix)
    assert first == recorded_game(players, seed, mix)  # the simulator is deterministic
    a, b = Game(players, target=60), Game(players, target=60)
    digests = []
    for event in first:
        a.apply(event)
        b.apply(event)
        digests.append(a.state_hash())
        assert digests[-1] == b.state_hash()
    assert len(set(digests)) > len(first) // 2  # the digest does follow the state


def blind(events: Sequence[Event], seat: int) -> list[Event]:
    """The events as seat `seat`'s peer gets them: private faces of others' reveals unknown."""
    out: list[Event] = []
    for event in events:
        if isinstance(event, Revealed) and event.to not in (ALL, seat):
            event = Revealed(event.card, event.to, None)
        out.append(event)
    return out


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_R10_each_peer_knowing_only_its_own_reveals_computes_the_same_game(spec: tuple[int, int, tuple[str, ...]]) -> None:
    players, seed, mix = spec
    events = recorded_game(players, seed, mix, target=40)
    omniscient = Game(players, target=40)
    peers = [Game(players, target=40) for _ in range(players)]
    peer_events = [blind(events, s) for s in range(players)]
    for i, event in enumerate(events):
        omniscient.apply(event)
        for s, peer in enumerate(peers):
            peer.apply(peer_events[s][i])
        if i % 7 == 0 or i == len(events) - 1:
            digest = omniscient.state_hash()
            for s, peer in enumerate(peers):
                assert peer.state_hash() == digest
                assert peer.view(s).snapshot() == omniscient.view(s).snapshot()
                # what the bots read of a view: the same from a peer that knows only its own reveals
                own, full = peer.view(s), omniscient.view(s)
                assert [own.cards(o) for o in range(players)] == [full.cards(o) for o in range(players)]
                assert own.unseen_stats() == full.unseen_stats()
                assert sorted(own.unseen_faces()) == sorted(full.unseen_faces())
                assert own.known_matches() == full.known_matches()
    assert all(peer.totals == omniscient.totals for peer in peers)


def test_R10_private_reveals_go_only_to_the_deal_or_the_player_whose_turn_it_is() -> None:
    """Every private reveal is a bottom card of the deal to its owner or a card for the
    player whose turn it is, and a drawn card is revealed to its drawer alone; the counts
    make sure such reveals happened at all (a game played face up must fail)."""
    for players, seed, mix in [(2, 1, ("random",)), (4, 2, ("normal",)), (6, 3, ("normal", "random"))]:
        game = Game(players, target=60)
        sim_events = recorded_game(players, seed, mix)
        peeks = turns = draws = 0
        drawer: int | None = None
        for event in sim_events:
            if isinstance(event, Revealed) and drawer is not None:
                assert event.to == drawer, (event, "a drawn card goes to its drawer alone (R10)")
                draws += 1
            if isinstance(event, Revealed) and event.to != ALL:
                zones = game.zones()
                dealt = game.phase is Phase.PEEK and event.card in zones.tableaux[event.to][2:4]
                assert dealt or event.to == game.turn_seat, (event, game.phase)
                peeks, turns = peeks + dealt, turns + (not dealt)
            drawer = event.seat if isinstance(event, Draw) else None
            game.apply(event)
        assert peeks >= 2 * players and turns >= draws > 0, (peeks, turns, draws)


def test_R10_an_oracle_deal_is_a_permutation_and_replays() -> None:
    oracle = Oracle(50, Prng(1))
    oracle.deal()
    assert sorted(oracle.faces) == list(range(50))
    again = Oracle(50, Prng(1))
    again.deal()
    assert again.faces == oracle.faces
