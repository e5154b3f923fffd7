"""§9 the replicated table: whole games over the seeded in-memory network.

Every peer runs the real stack minus sockets (order, table machine, card cryptography,
bots); frames are signed, verified, delayed, reordered and dropped. What must hold:
every peer delivers the identical sequence, every log audits clean with the same
totals, and races are settled by the agreed order exactly as R6 says. Cheating peers
(a wrong share, an intent out of turn, a blind snap, ...) are in `test_cheats.py`.
"""

from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine import (
    Discard, Draw, NormalBot, PeekBarrierExpired, Phase, Prng, Ready, Reshuffled, Revealed, RoundStarted, SeatView, Snap,
    SnapOutcome, SnapResolved, Spy, TakeDiscard, TurnTimedOut,
)
from p2p.audit import audit
from p2p.order import message_hash
from p2p.policy import on_violation
from p2p.roster import TableRules
from p2p.table import SeatLeft, Step
from p2p.table.machine import Applied
from tests.spread import spread
from tests.tablesim import TableNetwork, arising


def deck_text(counts: list[tuple[int, int, str | None, bool]]) -> str:
    """A skills file's deck (R2): (value, count, power, bandit) for each kind of card."""
    return "".join(
        f"[[card]]\nvalue = {v}\ncount = {c}\n" + (f'power = "{p}"\n' if p else "") + ("bandit = true\n" if b else "")
        for v, c, p, b in counts
    )


# A 30-card deck keeps the crypto of 200 games cheap; it has every power and both Bandits.
SMALL_DECK = deck_text([
    (0, 5, None, False), (2, 4, None, False), (4, 3, "peek", False), (8, 3, "spy", False),
    (12, 3, "swap", False), (16, 3, "look_swap", False), (18, 3, None, False),
    (-2, 3, None, True), (20, 3, None, True),
])
SMALL = TableRules(target=20, skills_text=SMALL_DECK)
# Tables of two and three deal at most 12 of 20 cards: every shuffle proof costs two thirds
# of the 30-card deck's, and the draw pile runs out (R7's reshuffle) in 19 of the 49 such
# games among seeds 0-59, where the 30-card deck ran out in none of them.
TWENTY = TableRules(target=20, skills_text=deck_text([
    (0, 4, None, False), (2, 3, None, False), (4, 2, "peek", False), (8, 2, "spy", False),
    (12, 2, "swap", False), (16, 2, "look_swap", False), (18, 2, None, False),
    (-2, 2, None, True), (20, 2, None, True),
]))


def identical_logs(net: TableNetwork) -> bool:
    logs = [[message_hash(d.envelope.body) for d in t.log] for t in net.tables]
    return all(log == logs[0] for log in logs)


def play(seed: int, tmp_path: Path) -> TableNetwork:
    """Game `seed`: mostly small tables (every peer verifies every share, so a table's
    cost grows with the square of its size) with small decks, some of 5 and 6 with the
    full deck; loss up to 20%."""
    rng = random.Random(seed)
    players = rng.choices([2, 3, 4, 5, 6], weights=[45, 32, 16, 4, 3])[0]
    net = TableNetwork(
        players,
        seed,
        rules=TWENTY if players <= 3 else SMALL if players == 4 else TableRules(target=10),
        drop=rng.choice([0.0, 0.05, 0.2]),
        jitter=rng.choice([0.001, 0.01]),
    )
    net.run()
    return net


def seeded_game_fails(seed: int) -> str | None:
    """Play game `seed`; what failed, or None: every peer finished without halting, all
    delivered the identical sequence and computed the same engine, and a log audits
    clean with the engine's totals."""
    with tempfile.TemporaryDirectory() as folder:
        net = play(seed, Path(folder))
        machines = [t.machine for t in net.tables]
        if not all(m.finished and m.halted is None for m in machines):
            return f"seed {seed}: not every peer finished ({[m.halted for m in machines]})"
        if not identical_logs(net):
            return f"seed {seed}: the peers delivered different sequences"
        if len({m.engine.state_hash() for m in machines}) != 1:
            return f"seed {seed}: the peers computed different games"
        result = audit(net.write_logs(Path(folder))[seed % len(machines)])
        if not result.ok:
            return f"seed {seed}: {result.first_failure}"
        if tuple(result.rounds[-1].totals) != machines[0].engine.totals:
            return f"seed {seed}: the audit's totals differ from the engine's"
    return None


@pytest.mark.parametrize("chunk", range(10))
def test_table_200_seeded_games_agree_and_audit_clean(chunk: int) -> None:
    assert spread(seeded_game_fails, range(chunk * 20, chunk * 20 + 20)) == []


def test_table_full_game_default_deck_to_100(tmp_path: Path) -> None:
    net = TableNetwork(4, 2024, drop=0.05)
    net.run()
    machines = [t.machine for t in net.tables]
    assert all(m.finished for m in machines) and identical_logs(net)
    assert max(machines[0].engine.totals) >= 100 and machines[0].engine.winners
    for path in net.write_logs(tmp_path):
        result = audit(path)
        assert result.ok, result.first_failure
        assert result.winners == [f"P{s}" for s in machines[0].engine.winners]
        # R9: each round's scores are the revealed tableau sums ± the caller's 10
        for outcome in result.rounds:
            values = [sum(result.roster.rules.skills.kind(face).value for _, face in tab) for tab in outcome.tableaus]
            for seat, (score, total) in enumerate(zip(outcome.scores, values)):
                assert score - total in ((0,) if seat != outcome.caller else (-10, 10))


# -- R6 snap races in the agreed order ----------------------------------------------

RACE_DECK = deck_text([(0, 40, None, False), (-2, 2, None, True), (20, 2, None, True)])


@dataclass(frozen=True)
class EagerBot(NormalBot):
    """Snaps its own known matching card at once, whatever the risk (for races)."""

    def snap(self, view: SeatView, rng: Prng) -> Snap | None:
        if not view.can_snap or view.top is None:
            return None
        for owner, slot, _card in view.known_matches():
            if owner == view.seat:
                return Snap(view.seat, view.top, view.seat, slot)
        return None


def races_of(steps) -> dict[tuple[int, int], list[tuple[int, SnapOutcome]]]:  # type: ignore[no-untyped-def]
    """Snaps in the order applied, grouped by the round and the top card they named
    (card ids start afresh every round): (seat, outcome).

    A snap resolves when it is applied (not the fastest) or when its card has been turned
    over (a later fact), so each seat's resolutions are matched to its snaps in order."""
    claims: list[tuple[int, tuple[int, int]]] = []  # (seat, (round, top)) in order
    outcomes: dict[int, list[SnapOutcome]] = {}
    rounds = 0
    for step in steps:
        for applied in step.applied:
            if isinstance(applied.event, RoundStarted):
                rounds += 1
            if isinstance(applied.event, Snap):
                claims.append((applied.event.seat, (rounds, applied.event.top)))
            for note in applied.notes:
                if isinstance(note, SnapResolved):
                    outcomes.setdefault(note.seat, []).append(note.outcome)
    races: dict[tuple[int, int], list[tuple[int, SnapOutcome]]] = {}
    for seat, race in claims:
        races.setdefault(race, []).append((seat, outcomes[seat].pop(0)))
    return races


def test_s9_5_a_move_sent_before_the_deal_is_refused_everywhere_saying_so() -> None:
    """A move sent while the cards are still being dealt counts nowhere; every seat
    refuses it at the same place, saying why (not "for round 1 arrived in round 1"),
    and the game goes on."""
    net = TableNetwork(3, 11, rules=TableRules(target=40))
    net.start()
    while net.tables[1].machine.round_number == 0:  # until round 1's shuffle has begun
        net.run_until(net.now + 0.001)
    early = Spy(1, 0, 0)
    net.send(1, net.tables[1].machine.submit(early))
    net.run(started=True)
    refused = [(r.position, r.section, r.reason) for t in net.tables for s in t.steps for r in s.refused if r.intent == early]
    assert len(refused) == 3 and len(set(refused)) == 1, refused
    assert refused[0][1:] == ("§9.5", "spy arrived before round 1 was dealt")
    assert all(t.machine.finished for t in net.tables)
    # The audit's story tells it where the table did, in the table's words (§10.2).
    from p2p.report import game_report

    with tempfile.TemporaryDirectory() as folder:
        report = list(game_report(audit(net.write_logs(Path(folder))[0])))
    told = (f"  before the first turn, record {refused[0][0] + 1}: P1's spy did not count (§9.5: spy arrived before "
            "round 1 was dealt).")
    after = report.index("Round 2") if "Round 2" in report else len(report)  # (a game of one round has none)
    assert told in report and report.index("Round 1") < report.index(told) < after, report[:12]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_R6_snap_race_first_in_order_wins_rest_not_fastest(players: int) -> None:
    """With almost every card a 0, every seat knows a matching bottom card when the first
    0 is turned up, and all snap at once: one race with `players` claimants."""
    rules = TableRules(target=5, skills_text=RACE_DECK)
    for seed in range(6):
        # Bots think 300 ms over a turn and react to a card in 50 ms, give or take 1 ms:
        # within a LAN's latency of each other, so their claims cross on the wire.
        net = TableNetwork(players, seed, rules=rules, latency=0.002, jitter=0.002, snap_delay=0.05, act_delay=0.3)
        for t in net.tables:
            t.driver.bot = EagerBot(name="eager")
        net.run()
        assert all(t.machine.finished and t.machine.halted is None for t in net.tables) and identical_logs(net)
        seen = [races_of(t.steps) for t in net.tables]
        assert all(r == seen[0] for r in seen)  # every peer resolved every race alike
        biggest = max(seen[0].values(), key=len)
        if len(biggest) < players:
            continue  # the first discard was a Bandit this time; try the next seed
        assert biggest[0][1] is SnapOutcome.MATCHED
        assert all(outcome is SnapOutcome.NOT_FASTEST for _, outcome in biggest[1:])
        assert sorted(seat for seat, _ in biggest) == list(range(players))
        return
    pytest.fail(f"no seed gave a {players}-way race")


def test_s7_4_a_snap_race_lost_at_the_same_stamp_is_told_as_the_table_s_lot_everywhere(tmp_path: Path) -> None:
    """R6, §7.4: claims of one Lamport stamp are ordered by the salted tie-break, not by
    speed. The machine hands every applied move its message's stamp, so the seat's own
    narration (as the shell feeds it) and the audit's story both say a lost race at the
    same stamp was the table's lot, and keep "first" for a claim of an earlier stamp."""
    from engine.narrate import Narrator
    from p2p.report import game_report

    names = ("Ana", "Bo", "Cy")
    net = TableNetwork(3, 0, rules=TableRules(target=5, skills_text=RACE_DECK), latency=0.002, jitter=0.002,
                       snap_delay=0.05, act_delay=0.3, names=names)
    for t in net.tables:
        t.driver.bot = EagerBot(name="eager")
    bo, told = net.tables[1].machine, []
    narrator = Narrator(names, 1)
    bo.on_applied = lambda event, notes, stamp: told.extend(narrator.narrate(bo.engine, event, notes, stamp))
    net.run()
    stamps = {d.position: d.stamp for d in net.tables[1].log}
    snaps = [a for step in net.tables[1].steps for a in step.applied if isinstance(a.event, Snap)]
    assert snaps and all(a.stamp == stamps[a.position] for a in snaps)
    lost = [line.text for line in told if "not the fastest" in line.text]
    lot = [text for text in lost if ", which covered it: the lot put " in text]
    assert lot and lot[0].startswith("You tried your bottom-left slot on a 0 — not the fastest (R6, §7.4; at the same moment "
                                     "as Cy's snap of a 0, which covered it: the lot put Cy first)"), lost
    assert any("covered it first" in text for text in lost), lost  # (an earlier stamp: it was first)
    report = list(game_report(audit(net.write_logs(tmp_path)[0])))
    assert sum(", which covered it: the lot put " in line for line in report) >= len(lot), report


def settle_on(net: TableNetwork, done: Any, limit: float = 30.0) -> None:
    """Run the network until every peer's machine is `done` and owes its engine nothing."""
    while not all(done(t.machine) and not t.machine.engine.needs for t in net.tables):
        assert net.now < limit, "the table did not get there"
        net.run_until(net.now + 0.01)


def test_R5_a_take_whose_top_a_snap_covered_first_is_refused_at_every_seat_and_the_turn_goes_on(tmp_path: Path) -> None:
    """The player whose turn it is decides to take the discard's top card; another seat's
    snap of an identical card is ordered first. The take names the card it was decided
    on (§9.5), so it does not take the snapped card instead: every peer refuses it at the
    same place (R5), the taker's slot keeps its card and the turn goes on, and the game
    with it; the audit's story tells the refusal as the table did."""
    rules = TableRules(target=5, skills_text=RACE_DECK)  # almost every card a 0: a snap that matches is at hand
    for seed in range(10):
        net = TableNetwork(2, seed, rules=rules, names=("Ann", "Bo"))
        for t in net.tables:  # the bots stay quiet: the test plays until the take is judged
            t.driver.acts_in_flight = t.driver.snaps_in_flight = 10**6
        net.start()
        settle_on(net, lambda m: m.engine.phase is Phase.PEEK)
        for seat, t in enumerate(net.tables):
            net.send(seat, t.machine.submit(Ready(seat)))
        settle_on(net, lambda m: m.engine.phase is Phase.START)
        engine = net.tables[0].machine.engine
        taker = engine.turn_seat
        assert taker is not None
        snapper = 1 - taker
        matches = [slot for owner, slot, _ in net.tables[snapper].machine.engine.view(snapper).known_matches()
                   if owner == snapper]
        if matches:
            break
    else:
        pytest.fail("no seed dealt the snapper a known match")
    top = engine.discard_top()
    assert top is not None
    kept = engine.zones().tableaux[taker][0]
    take = TakeDiscard(taker, top, 0)
    driver = net.tables[taker].driver
    assert driver.still_wanted(take)  # a bot that decided it now would send it
    net.send(snapper, net.tables[snapper].machine.submit(Snap(snapper, top, snapper, matches[0])))
    settle_on(net, lambda m: m.engine.discard_top() != top)  # the snapped card covers the top everywhere
    assert not driver.still_wanted(take)  # a bot that decided it meanwhile withdraws it; sent already, it is judged:
    net.send(taker, net.tables[taker].machine.submit(take))

    def judged(t: Any) -> list[Any]:  # the take, applied or refused at this peer
        return [item for s in t.steps for item in (*s.applied, *s.refused)
                if (item.event if isinstance(item, Applied) else item.intent) == take]

    while not all(judged(t) for t in net.tables):
        assert net.now < 60, "the take was not judged"
        net.run_until(net.now + 0.01)
    refused = [(r.position, r.section, r.reason) for t in net.tables for r in judged(t) if not isinstance(r, Applied)]
    assert len(refused) == 2 and len(set(refused)) == 1, refused
    assert refused[0][1:] == ("R5", f"the card seat {taker + 1} chose to take is no longer the discard pile's top: "
                                    f"seat {snapper + 1}'s snap covered it, ordered before the take; seat {taker + 1} "
                                    "may choose again")
    for t in net.tables:
        e = t.machine.engine
        assert e.zones().tableaux[taker][0] == kept and e.turn_seat == taker and e.phase is Phase.START
    for t in net.tables:  # the bots play on from here, the taker choosing again
        t.driver.acts_in_flight = t.driver.snaps_in_flight = 0
    net.run(started=True)
    assert all(t.machine.finished and t.machine.halted is None for t in net.tables) and identical_logs(net)
    from p2p.report import game_report

    result = audit(net.write_logs(tmp_path)[snapper])
    assert result.ok, result.first_failure
    told = (f"{('Ann', 'Bo')[taker]}'s take from the discard pile did not count (R5: the card they chose to take is "
            f"no longer the discard pile's top: {('Ann', 'Bo')[snapper]}'s snap covered it, ordered before the take; "
            "they may choose again).")
    assert any(line.endswith(": " + told) for line in game_report(result)), told


def test_R7_R8_a_round_that_ends_while_a_reshuffle_runs_is_scored_once_the_chain_completes() -> None:
    """The round's last turn ends while a reshuffle's chain runs (R7, §9.4) and a penalty
    card of the new pile lies in a tableau: the round-end reveals of the other cards open
    at once, the new card's waits for its chain, and the chain's steps (ordered messages)
    must go on, or the table waits forever. Six eager seats and a deck of zeros get there:
    several reshuffles in the first round, the last one still running at its end."""
    from engine import Reveal

    def play(seed: int) -> tuple[TableNetwork, bool]:
        rules = TableRules(target=5, skills_text=RACE_DECK)
        net = TableNetwork(6, seed, rules=rules, latency=0.002, jitter=0.002, snap_delay=0.05, act_delay=0.3)
        for t in net.tables:
            t.driver.bot = EagerBot(name="eager")
        net.start()
        machine = net.tables[0].machine
        blocked_by_chain = False
        while net.now < 60 and not all(t.machine.finished or t.machine.halted for t in net.tables):
            net.run_until(net.now + 0.01)
            need = machine.engine.next_need
            later_open = any(isinstance(n, Reveal) and n in machine._work for n in machine.engine.needs[1:])  # noqa: SLF001
            blocked_by_chain |= isinstance(need, Reveal) and need not in machine._work and later_open  # noqa: SLF001
        return net, blocked_by_chain

    net, _ = arising(play, lambda played: played[1], range(3, 15))  # (game 3 is the first that gets there)
    assert all(t.machine.finished and t.machine.halted is None for t in net.tables) and identical_logs(net)


def test_s8_5_a_share_made_ahead_for_a_snap_is_the_share_the_reveal_asks_for() -> None:
    """`TableMachine.prepare`: a seat makes its share of the card it snaps right after the
    claim left, so the reveal does not wait for it; shares come from the seat's secrets by
    (chain, position), so it is the very share the reveal would have made."""
    from p2p.deck import make_share

    net = TableNetwork(3, 11, rules=SMALL, act_delay=0.3)
    net.start()
    machine = net.tables[1].machine
    while machine.engine.discard_top() is None:  # until the deal is done and the first card is up
        net.run_until(net.now + 0.001)
    assert machine.round_number == 1 and machine.engine.discard_top() is not None
    snap = Snap(1, machine.engine.discard_top(), 1, 2)  # its own bottom-left card (it peeked it)
    machine.prepare(snap)
    ((chain, position), share), = machine._prepared.items()  # noqa: SLF001
    deck, where = machine._round.location[machine.engine.zones().tableaux[1][2]]  # noqa: SLF001
    assert (deck.chain, where) == (chain, position)
    again = make_share(machine._keys, deck, position, machine.secrets.stream("share", chain, position))  # noqa: SLF001
    assert share == again
    machine.prepare(Snap(1, machine.engine.discard_top(), 0, 9))  # no such slot: nothing made, nothing raised
    assert len(machine._prepared) == 1  # noqa: SLF001


def test_s8_5_shares_made_ahead_are_the_seats_own_hidden_shares_and_the_reveal_uses_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """`TableMachine.share_ahead` (a live peer calls it in lulls): one share per call, of
    each card of the seat's own tableau whose share it has not published or promised,
    each the very share a reveal asks for; a snap of one then makes no share at all."""
    from p2p.deck import make_share

    net = TableNetwork(3, 11, rules=SMALL, act_delay=0.3)
    for other in (net.tables[0], net.tables[2]):  # nobody else snaps: seat 1's claim is the first
        other.driver.snap = lambda: None  # type: ignore[method-assign]
    net.start()
    machine = net.tables[1].machine
    while machine.engine.discard_top() is None:  # until the deal is done and the first card is up
        net.run_until(net.now + 0.001)
    made = 0
    while machine.share_ahead():
        made += 1
    assert made == 4 and not machine.share_ahead()  # its 2x2 square, then nothing left to make
    for card in machine.engine.zones().tableaux[1]:
        deck, position = machine._round.location[card]  # noqa: SLF001
        again = make_share(machine._keys, deck, position, machine.secrets.stream("share", deck.chain, position))  # noqa: SLF001
        assert machine._prepared[(deck.chain, position)] == again  # noqa: SLF001
    calls: list[int] = []
    original = machine._my_share  # noqa: SLF001
    monkeypatch.setattr(machine, "_my_share", lambda *a: calls.append(1) or original(*a))
    top = machine.engine.discard_top()
    machine.prepare(Snap(1, top, 0, 2, give=0))  # seat 0 peeked that card: seat 1's share is published already
    assert calls == []
    net.send(1, machine.submit(Snap(1, top, 1, 2)))  # its own bottom-left card (it peeked it)
    net.run_until(net.now + 0.5)
    assert any(isinstance(a.event, Snap) and a.event.seat == 1 for step in net.tables[0].steps for a in step.applied)
    assert calls == [] and len(machine._prepared) == 3  # noqa: SLF001  (the reveal took the one made ahead)
    assert all(t.machine.halted is None for t in net.tables)  # and every seat accepted it


# -- R7 a reshuffle holds up only what needs its new pile -----------------------------


def test_R7_a_reshuffle_holds_up_only_reveals_of_its_new_pile(tmp_path: Path) -> None:
    """A penalty card drawn from an empty pile starts the reshuffle's chain (§9.4); the
    engine has its new ids at once, so the race goes on while the chain runs, and no card
    of the new pile is turned over before the chain is complete."""
    deck = "".join(
        f"[[card]]\nvalue = {v}\ncount = {c}\n" + ("bandit = true\n" if bandit else "")
        for v, c, bandit in [(0, 24, False), (-2, 2, True), (20, 2, True)]
    )
    net = TableNetwork(4, 0, rules=TableRules(target=5, skills_text=deck), latency=0.002, jitter=0.002,
                       snap_delay=0.05, act_delay=0.3)
    for t in net.tables:
        t.driver.bot = EagerBot(name="eager")
    net.run()
    assert all(t.machine.finished and t.machine.halted is None for t in net.tables) and identical_logs(net)
    table = net.tables[0]
    applied = [a for step in table.steps for a in step.applied]
    chains: dict[tuple[int, bytes], list[int]] = {}
    for d in table.log:
        inner = d.envelope.inner
        if inner["type"] == "shuffle":
            chains.setdefault((inner["round"], inner["chain"]), []).append(d.position)
    complete = sorted(max(positions) for positions in chains.values() if len(positions) == 4)
    went_on = 0
    reshuffles = [a for a in applied if isinstance(a.event, Reshuffled)]
    assert reshuffles
    for reshuffle in reshuffles:
        done = min(p for p in complete if p > reshuffle.position)
        between = [a for a in applied if reshuffle.position < a.position < done]
        went_on += any(isinstance(a.event, Snap) for a in between)
        first = reshuffle.event.first_id
        assert not any(isinstance(a.event, Revealed) and a.event.card >= first for a in between)
    assert went_on  # some snap was applied while a chain ran
    # A seat's shuffle step is made apart from the step that made it due (`catch_up`), so
    # the snap outcome that drew the last card is applied and shown before the shuffle.
    for t in net.tables:
        for step in t.steps:
            if any(p["type"] == "shuffle" for p in step.send):
                assert not step.applied and all(p["type"] == "shuffle" for p in step.send) and not step.side
    assert any(isinstance(a.event, Reshuffled) for t in net.tables[1:] for step in t.steps for a in step.applied)
    result = audit(net.write_logs(tmp_path)[1])
    assert result.ok, result.first_failure


def test_R6_a_bot_withdraws_an_intent_the_table_overtook_while_it_thought() -> None:
    """A live bot sends after its thinking or reaction time; if the table moved on
    meanwhile (here: the card it meant to snap was covered) the intent is withdrawn and
    the bot is asked again, instead of earning a 'not the fastest' penalty. So is a snap
    whose card a move of the bot's own, sent meanwhile, covers first."""
    net = TableNetwork(3, 11, rules=SMALL)
    net.start()
    table = net.tables[1]
    machine, driver = table.machine, table.driver
    while machine.engine.discard_top() is None or machine.engine.needs:  # the first card is up, nothing owed
        net.run_until(net.now + 0.01)
    top = machine.engine.discard_top()
    assert top is not None
    fresh = Snap(1, top, 1, 2)
    driver.snaps_in_flight = 1
    assert driver.still_wanted(fresh) and driver.snaps_in_flight == 1  # still the top: it goes
    stale = Snap(1, top + 1000, 1, 2)  # a card that is no longer (or never was) the top
    assert not driver.still_wanted(stale) and driver.snaps_in_flight == 0
    driver.acts_in_flight = 1
    assert not driver.still_wanted(Draw(1)) and driver.acts_in_flight == 0  # not its turn
    # a discard of its own went out during the reaction time: it will cover the top first
    driver.acts_in_flight, driver.snaps_in_flight = 1, 1
    driver.sending(Discard(1))
    assert not driver.still_wanted(fresh) and driver.snaps_in_flight == 0 and driver.snap() is None
    driver.observe(Step(applied=[Applied(0, 1, Discard(1), ())]))  # the discard landed
    assert driver.acts_in_flight == 0 and driver.still_wanted(fresh)


def own_moves_that_spoiled_a_snap(net: TableNetwork) -> list[tuple[int, Any]]:
    """Every snap delivered after a move of its own seat had already covered or taken the
    top card it names (R5, R6): (seat, the move). Read from seat 0's applied events."""
    from engine import Game

    first = net.tables[0].machine
    game = Game(len(net.tables), first.rules.skills, first.rules.target)
    covered_by: dict[int, tuple[int | None, Any]] = {}  # a card that stopped being the top -> who, how
    spoiled = []
    for step in net.tables[0].steps:
        for applied in step.applied:
            event = applied.event
            if isinstance(event, RoundStarted):
                covered_by = {}
            if isinstance(event, Snap) and game.discard_top() != event.top:
                who, move = covered_by.get(event.top, (None, None))
                if who == event.seat and not isinstance(move, Snap):
                    spoiled.append((event.seat, move))
            top = game.discard_top()
            game.apply(event)
            if top is not None and game.discard_top() != top:
                covered_by[top] = (applied.seat, event)
    return spoiled


@pytest.mark.parametrize("seed", range(12))
def test_R6_a_bot_never_claims_a_top_card_its_own_move_already_covered(seed: int) -> None:
    """A seat's messages are delivered in the order it sends them, so a bot that takes or
    covers the top card (a discard, an exchange, a take: R5) and then snaps at that card
    earns a sure 'not the fastest' penalty. The driver asks for the snap first and decides
    the turn once it has landed, and never claims a top that its own move already sent
    covers. Tables at full speed (no thinking or reaction time), where both go out in
    one breath. (Before the driver did so, 3 of these 12 games had such a claim.)"""
    net = TableNetwork(4, 300 + seed, rules=TableRules(target=60, skills_text=SMALL_DECK))
    net.run()
    assert all(t.machine.finished for t in net.tables)
    claims = sum(isinstance(a.event, Snap) for step in net.tables[0].steps for a in step.applied)
    assert claims >= 5
    assert own_moves_that_spoiled_a_snap(net) == []


class LooksSnapsAndStops(TableNetwork):
    """Seat 1 spies (a private reveal: the others owe it sealed shares), snaps at once a
    card of its own that only it has seen (whose public reveal needs only its own share),
    and stops the game (`leave`, a false `challenge` that voids the round, or a `done` in
    mid-game, which breaks §9.8), all three on one breath. Peers ack at once and send their
    shares a little later (`share_lag`), as busy live peers do, so at seat 1 the snap and
    the stop are delivered while the spy still waits for its shares: when these come, one
    step applies the spy and the snap, revealing the snapped card with seat 1's share, and
    the next takes the stop (which waited in the intake, §10.1)."""

    SEAT = 1

    def __init__(self, stop: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stop = stop
        self.stopped_at: float | None = None

    def _drive(self, peer: Any, table: Any) -> None:
        if peer.seat != self.SEAT:
            return super()._drive(peer, table)
        while self.stopped_at is None and (intent := table.driver.act()) is not None:
            self.send(peer.seat, table.machine.submit(intent))
            view = table.machine.engine.view(peer.seat)
            mine = [(slot, card) for slot, card, value in view.cards(peer.seat)
                    if value is not None and view.seen_by(card) == (peer.seat,)]
            if isinstance(intent, Spy) and mine and view.top is not None:
                (slot, card), = mine[:1]
                self.send(peer.seat, table.machine.submit(Snap(peer.seat, view.top, peer.seat, slot)))
                self.send(peer.seat, {
                    "leave": {"type": "leave", "v": 1, "reason": "off home"},
                    "challenge": {"type": "challenge", "v": 1, "round": table.machine.round_number, "card": card,
                                  "check": "not-a-card"},
                    "violation": {"type": "done", "v": 1, "digest": "0" * 64, "totals": [0] * len(self.tables)},
                }[self.stop])
                self.stopped_at = self.now


@pytest.mark.parametrize("stop", ["leave", "challenge", "violation"])
def test_s9_9_a_seat_that_snaps_and_stops_the_game_at_once_still_sends_the_share_its_snap_needs(
        stop: str, tmp_path: Path) -> None:
    """Stopping at its own `leave` (§9.8), at its challenge that voids the round (§9.10),
    or at its own violation (§9.9), the seat still sends the share it made for the snap
    ordered just before: the others need it to get to the same point. (It was dropped with the stop: the others
    then waited for it until their stall claims blamed the seat for withholding it,
    §9.11; live, a seat that had left was waited for until the grace period ran out.)"""
    def play(seed: int) -> LooksSnapsAndStops:
        net = LooksSnapsAndStops(stop, 3, seed, rules=SMALL, latency=0.002, jitter=0.0005, share_lag=0.005)
        net.run(limit=200)
        return net

    def arose(net: LooksSnapsAndStops) -> bool:  # the snap was taken when the spy's shares came, the stop right after
        steps = net.tables[net.SEAT].steps
        stopping = next((i for i, step in enumerate(steps)  # the step that met the stop at seat 1
                         if step.violation is not None or any(p["type"] == "opening" for p in step.send)), None)
        return (net.stopped_at is not None and stopping is not None
                and any(isinstance(a.event, Snap) for a in steps[stopping - 1].applied) and bool(steps[stopping - 1].side))

    net = arising(play, arose, range(6, 46))  # (game 6 is the first that gets there, at each stop)
    for table in net.tables:
        halted = table.machine.halted
        assert halted is not None and halted.seat == net.SEAT, halted
        if stop == "leave":
            assert isinstance(halted, SeatLeft)
        elif stop == "challenge":  # every shuffle step opens: the challenge was false, and its author is named
            assert halted.section == "§9.10" and "challenge" in halted.reason, halted
        else:
            assert halted.section == "§9.8" and "done before it was" in halted.reason, halted
    assert identical_logs(net)
    for path in net.write_logs(tmp_path):
        result = audit(path)
        assert result.ok == (stop == "leave"), result.first_failure
        if stop == "leave":
            assert result.left is not None and result.left.seat == net.SEAT
        else:
            section = "§9.10" if stop == "challenge" else "§9.8"
            assert result.first_failure.section == section and result.first_failure.seat == net.SEAT


class LeavesWhileSharesWait(LooksSnapsAndStops):
    """Seat 1 spies and leaves in one breath, and seat 0 sends a message of its own soon
    after it has the leave (so ordered after it), while the spy's shares are still on
    their way to some peers: those peers hold the leave behind the spy (§9.4)."""

    def __init__(self, after: float, *args: Any, **kwargs: Any) -> None:
        super().__init__("leave", *args, **kwargs)
        self.after = after

    def _drive(self, peer: Any, table: Any) -> None:
        stopped = self.stopped_at
        super()._drive(peer, table)
        if stopped is None and self.stopped_at is not None:
            self.schedule(self.now + self.after, lambda: self.send(0, {"type": "leave", "v": 1, "reason": "me too"}))


@pytest.mark.parametrize("after", [0.003, 0.004, 0.005, 0.006])
def test_s10_1_every_log_ends_at_the_leave_even_where_the_leave_waited_for_shares(after: float, tmp_path: Path) -> None:
    """A message ordered after a `leave` that one peer held behind a reveal's shares and
    another took at once: the first must not log it (its machine never takes it), so
    every log ends at the leave and all are identical (§9.8, §10.1)."""
    def play(seed: int) -> LeavesWhileSharesWait:
        net = LeavesWhileSharesWait(after, 3, seed, rules=SMALL, latency=0.002, jitter=0.0005, share_lag=0.005)
        net.run(limit=200)
        return net

    # the scenario: some peer's order delivered seat 0's message after the leave
    net = arising(play, lambda net: any(p.delivered[-1].seat == 0 and p.delivered[-1].envelope.inner["type"] == "leave"
                                        for p in net.peers), range(12))
    assert all(isinstance(t.machine.halted, SeatLeft) and t.machine.halted.seat == net.SEAT for t in net.tables)
    assert identical_logs(net)
    assert all(t.log[-1].seat == net.SEAT and t.log[-1].envelope.inner["type"] == "leave" for t in net.tables)
    for path in net.write_logs(tmp_path):
        result = audit(path)
        assert result.ok and result.left is not None and result.left.seat == net.SEAT, result.first_failure


def test_R4_R5_an_away_player_is_played_by_the_timers_and_the_game_ends(tmp_path: Path) -> None:
    """Seat 1 never confirms its peek nor plays a turn (its player is away): the R4.3
    barrier expires, every one of its turns times out (R5: option A, no power), the
    claims travel the agreed order like any message (§9.6), and the game still ends with
    every peer agreeing and every log auditing clean."""
    rules = TableRules(target=10, turn_s=5, peek_s=2, skills_text=SMALL_DECK)
    net = TableNetwork(3, 5, rules=rules)
    away = net.tables[1].driver
    away.act = lambda: None  # type: ignore[method-assign]
    away.snap = lambda: None  # type: ignore[method-assign]
    net.run()
    machines = [t.machine for t in net.tables]
    assert all(m.finished and m.halted is None for m in machines) and identical_logs(net)
    claims = [d.envelope.inner for d in net.tables[0].log if d.envelope.inner["type"] == "timeout"]
    events = [a.event for step in net.tables[2].steps for a in step.applied]
    rounds = sum(isinstance(e, RoundStarted) for e in events)
    assert rounds >= 1 and sum(isinstance(e, PeekBarrierExpired) for e in events) == rounds
    assert {c["round"] for c in claims if c["what"] == "peek"} == set(range(1, rounds + 1))
    turns = {(c["round"], c["turn"]) for c in claims if c["what"] == "turn"}
    timed_out = [e for e in events if isinstance(e, TurnTimedOut)]
    assert turns and len(timed_out) == len(turns)  # several seats claim a turn; it times out once
    assert audit(net.write_logs(tmp_path)[0]).ok


def test_R4_each_round_s_first_player_is_the_seat_its_beacon_draws() -> None:
    """R4.5: the first player of every round is drawn by lot: recomputed here from the
    beacon messages the log holds (§8.6), each round's draw is the seat that begins it,
    and the lot does not always fall on one seat."""
    from p2p.deck import Beacon, BeaconCommit, BeaconReveal

    net = TableNetwork(3, 7, rules=TableRules(target=40, skills_text=SMALL_DECK))
    net.run()
    machine = net.tables[0].machine
    seats = machine.seats
    beacons: dict[int, Beacon] = {}
    used: frozenset[bytes] = frozenset()
    drawn = []
    for d in net.tables[0].log:
        inner = d.envelope.inner
        if inner["type"] not in ("beacon.commit", "beacon.reveal"):
            continue
        number, peer = inner["round"], seats[d.seat]
        beacon = beacons.setdefault(number, Beacon(machine.context, number, used))
        if inner["type"] == "beacon.commit":
            beacon.receive_commit(peer, BeaconCommit.from_wire({"round": number, "commit": inner["commit"]}, peer))
            continue
        beacon.receive_reveal(peer, BeaconReveal.from_wire({"round": number, "nonce": inner["nonce"]}, peer))
        if beacon.phase == "done":
            used = beacon.nonces
            drawn.append(seats.index(beacon.seed().first_player))
    started = [a.event.first_player for step in net.tables[0].steps for a in step.applied
               if isinstance(a.event, RoundStarted)]
    assert len(started) >= 3 and started == drawn[: len(started)] and len(set(started)) > 1


def _timed_table(idle: tuple[int, ...], *, mute: tuple[int, ...] = (), players: int = 3, **net: Any) -> TableNetwork:
    """A table (2 s barrier, 5 s turns) whose `idle` seats' players never act and whose
    `mute` seats' programs never claim a timer (a seat whose clock is late, or that would
    hold its own time open)."""
    rules = TableRules(target=10, turn_s=5, peek_s=2, skills_text=SMALL_DECK)
    table = TableNetwork(players, 5, rules=rules, **net)
    for seat in idle:
        table.tables[seat].driver.act = lambda: None  # type: ignore[method-assign]
        table.tables[seat].driver.snap = lambda: None  # type: ignore[method-assign]
    send = table.send

    def muted(seat: int, payload: dict[str, Any]) -> Any:
        return None if seat in mute and payload["type"] == "timeout" else send(seat, payload)

    table.send = muted  # type: ignore[method-assign]
    return table


def _applied(net: TableNetwork, seat: int, kind: type) -> list[Applied]:
    return [a for step in net.tables[seat].steps for a in step.applied if isinstance(a.event, kind)]


def test_R4_s9_6_a_seat_alone_cannot_end_another_seat_s_look_at_its_cards() -> None:
    """Seats 0 and 2 do not confirm being ready. Seat 2 claims the barrier's timeout the
    moment the round is dealt: that ends its own look only (§9.6), and the barrier holds
    for seat 0 until its time is over by its own clock (or every other seat's), 2 s
    (`peek_s`) after the deal (R4.3)."""
    net = _timed_table(idle=(0, 2))
    watcher = net.tables[1].machine
    net.start()
    while watcher.peek_started_at() is None:
        net.run_until(net.now + 0.01)
    dealt = watcher.peek_started_at()
    assert dealt is not None
    net.send(2, {"type": "timeout", "v": 1, "round": 1, "what": "peek", "turn": watcher.engine.turn})
    while not _applied(net, 1, PeekBarrierExpired):
        net.run_until(net.now + 0.05)
    assert net.now >= dealt + 2.0 and _applied(net, 1, PeekBarrierExpired)[0].seat in (0, 1)


def test_R4_s9_6_the_barrier_ends_at_the_last_ready_after_the_others_ran_out_of_time() -> None:
    """Seat 0's own timeout of the barrier is ordered before seats 1 and 2 confirm: the
    barrier ends as the last of them confirms (R4.3), and the first turn begins; it does
    not wait for a claim that will never come."""
    net = _timed_table(idle=(0, 1, 2))
    watcher = net.tables[1].machine
    net.start()
    while watcher.peek_started_at() is None:
        net.run_until(net.now + 0.01)
    net.send(0, {"type": "timeout", "v": 1, "round": 1, "what": "peek", "turn": watcher.engine.turn})
    net.run_until(net.now + 0.5)
    for seat in (1, 2):
        net.send(seat, {"type": "ready", "v": 1, "round": 1, "turn": watcher.engine.turn})
    net.run_until(net.now + 0.5)
    assert all(t.machine.engine.phase is not Phase.PEEK for t in net.tables)
    assert [a.seat for a in _applied(net, 1, PeekBarrierExpired)] in ([1], [2])  # (the later of the two)


@pytest.mark.parametrize("players", [2, 3])
def test_R5_s9_6_a_seat_alone_cannot_cut_another_player_s_turn_short(players: int) -> None:
    """The last seat claims the timeout of seat 0's turn the moment it begins: one seat's
    word on another player's time counts for nothing alone (§9.6), at a table of two as
    at a table of three; seat 0 plays its turn."""
    net = _timed_table(idle=(), players=players, act_delay=1.0)
    watcher = net.tables[1].machine
    net.start()
    while not (watcher.engine.turn_seat == 0 and watcher.engine.phase is Phase.START):
        net.run_until(net.now + 0.01)
    turn = watcher.engine.turn
    net.send(players - 1, {"type": "timeout", "v": 1, "round": watcher.round_number, "what": "turn", "turn": turn})
    while watcher.engine.turn == turn:
        net.run_until(net.now + 0.05)
    assert not any(a.event.turn == turn for a in _applied(net, 1, TurnTimedOut))  # type: ignore[attr-defined]


def test_s9_6_at_a_table_of_two_a_turn_held_open_ends_the_game_with_both_seats_suspect() -> None:
    """Seat 0's player never acts and its program never claims its own time. At a table
    of two only its own claim ends its turn, so the other seat, `stall_s` after its own
    claim, says so (§9.11): nothing tells which clock is right, so the game ends with both
    seats as suspects and neither convicted, the same at both."""
    net = _timed_table(idle=(0,), mute=(0,), players=2)
    net.run(limit=600)
    halts = {(t.machine.halted.section, t.machine.halted.seat, t.machine.halted.suspects)
             for t in net.tables if t.machine.halted is not None}
    assert halts == {("§9.6", None, (0, 1))} and identical_logs(net)
    halted = net.tables[1].machine.halted
    assert halted is not None
    # (the players' names where they are known: the log's note and the screens; else seats counted from 1)
    assert halted.reason.startswith("seat 1's time ran out by seat 2's clock and not by its own"), halted.reason
    assert on_violation(halted).note(["Ann", "Bo"]) == (
        "Ann or Bo (seats 1 or 2) ran out a player's time by their own clock, and nothing tells which [§9.6]. In "
        "detail: §9.6: Ann's time ran out by Bo's clock and not by its own, and nothing tells which clock is right "
        "(the game stops)")


def test_s10_2_the_audit_tells_a_violation_s_reason_with_the_players_names(tmp_path: Path) -> None:
    """The audit's first violation names the players a table's reason speaks of, as the
    log's note does, not their seats beside the suspects named by name."""
    net = _timed_table(idle=(0,), mute=(0,), players=2)
    net.run(limit=600)
    result = audit(net.write_logs(tmp_path)[1])
    assert result.first_failure is not None
    names = result.names
    told = result.first_failure.describe(names)
    assert f"§9.6: {names[0]}'s time ran out by {names[1]}'s clock and not by its own" in told, told
    from cli.audit import verdict  # (and its JSON, alike)

    assert verdict(result)["first_violation"]["what"].startswith(f"{names[0]}'s time ran out by {names[1]}'s clock")


def test_R5_s9_6_a_turn_whose_player_never_claims_its_time_ends_when_every_other_seat_does() -> None:
    """Seat 0's player never acts and its program never claims its own timeout (its
    clock is late, or it would hold the turn open): its turns end when every other seat's
    clock says so (R5, §9.6), and the game goes on to its end, every log agreeing."""
    net = _timed_table(idle=(0,), mute=(0,))
    net.run()
    assert all(t.machine.finished and t.machine.halted is None for t in net.tables) and identical_logs(net)
    timed_out = _applied(net, 1, TurnTimedOut)
    assert timed_out and all(a.seat != 0 for a in timed_out)


def _lying_claims(players: int, shares: list[dict[str, Any]]) -> TableNetwork:
    """A table at which seat 1 is slow with round 1's first shuffle step (1 s), and seat 0,
    halfway through, claims that seat 1 withheld it, and each of `shares` (a `stalled`
    claim's own fields about shares): the step is due, and truly still awaited where the
    claim is ordered."""
    table = TableNetwork(players, 5, rules=TableRules(target=10, turn_s=5, peek_s=2, skills_text=SMALL_DECK))
    send = table.send
    slow: list[bool] = []

    def lie() -> None:
        awaited = table.tables[0].machine.awaited()
        assert awaited is not None and awaited.what == "shuffle" and awaited.seats == (1,)
        for claim in [{"what": "shuffle", "need": awaited.need, "seats": [1]}, *shares]:
            send(0, {"type": "stalled", "v": 1, "round": 1, **claim})

    def slow_step(seat: int, payload: dict[str, Any]) -> Any:
        if seat == 1 and payload["type"] == "shuffle" and not slow:
            slow.append(True)
            table.schedule(table.now + 0.5, lie)
            table.schedule(table.now + 1.0, lambda: send(seat, payload))
            return None
        return send(seat, payload)

    table.send = slow_step  # type: ignore[method-assign]
    return table


_SHARES_LIES = [
    {"what": "shares", "need": 999_999, "seats": [1]},  # a reveal never raised
    {"what": "shares", "need": 0, "seats": [1]},  # the round's first reveal, not raised yet
]


def test_s9_11_a_lone_stall_claim_convicts_nobody_and_the_game_goes_on() -> None:
    """Seat 1 is slow with a shuffle step; seat 0 claims at once that it withheld it, and
    its shares of reveals nobody waits for. One seat's word never convicts another
    (§9.11): at a table of three a seat has withheld work only once every other seat
    claimed so. The lies are signed, in every log; the game plays to its end."""
    net = _lying_claims(3, _SHARES_LIES)
    net.run()
    claims = [d for d in net.tables[1].log if d.envelope.inner["type"] == "stalled"]
    assert len(claims) == 1 + len(_SHARES_LIES) and all(d.seat == 0 for d in claims)
    assert all(t.machine.finished and t.machine.halted is None for t in net.tables) and identical_logs(net)


def test_s9_11_at_a_table_of_two_a_stall_claim_ends_the_game_with_both_seats_suspect() -> None:
    """At a table of two the claimant is the only witness: its claim ends the game (as
    its leaving would), naming both seats as suspects and convicting neither (§9.11)."""
    net = _lying_claims(2, [])
    net.run(limit=600)
    halts = {(t.machine.halted.section, t.machine.halted.seat, t.machine.halted.suspects)
             for t in net.tables if t.machine.halted is not None}
    assert halts == {("§9.3", None, (1, 0))} and identical_logs(net)


def _late_chain(players: int, first: float, think: float = 0.0, withholder: int | None = None) -> TableNetwork:
    """A table at which seat 0 sends round 1's first shuffle step `first` s after it made
    it (as the others' stall wait began, give or take a delivery), seat 1 takes
    `think` s to make the next step, and `withholder`, if any, never sends its step."""
    table = TableNetwork(players, 5, rules=TableRules(target=10, turn_s=8, peek_s=2, skills_text=SMALL_DECK))
    send = table.send
    held: set[int] = set()

    def paced(seat: int, payload: dict[str, Any]) -> Any:
        if payload["type"] != "shuffle" or payload["round"] != 1 or seat in held:
            return send(seat, payload)
        held.add(seat)
        if seat == withholder:
            return None
        if seat == 0:  # (made as the round's beacon completes here, when the others' wait begins)
            table.schedule(table.now + first, lambda: send(seat, payload))
            return None
        if seat == 1 and think:
            table.schedule(table.now + think, lambda: send(seat, payload))
            return None
        return send(seat, payload)

    table.send = paced  # type: ignore[method-assign]
    return table


@pytest.mark.parametrize("players", [3, 6])
def test_s9_11_a_chain_step_is_timed_from_when_it_fell_due_not_from_the_chain_start(players: int) -> None:
    """The steps of a shuffle chain share a wait's key. Seat 0 sends its step just before
    the others' stall time is up; seat 1 then takes half a second for its own. Every
    other seat (seat 0 included, by its own clock) claimed seat 1 at once when its clock
    timed the wait from the chain's start, so one slow or dishonest seat got the honest
    seat after it convicted. Seat 1 is timed from its own step's due time: the game goes on."""
    net = _late_chain(players, first=7.7, think=0.5)
    net.run(limit=600)
    assert all(t.machine.finished and t.machine.halted is None for t in net.tables) and identical_logs(net)


def test_s9_11_a_claim_dropped_for_one_step_of_a_chain_leaves_the_next_one_claimable() -> None:
    """Seat 0's step comes a hair after the others' stall time and is ordered before
    their claims, which are dropped; seat 2 then withholds its step of the same chain.
    With one claim per wait, seat 1 had used its claim up on seat 0, seat 2 was claimed
    by seat 0 alone and the table stood for good. A claim is once per wait and seat."""
    net = _late_chain(3, first=8.005, withholder=2)
    net.run(limit=600)
    halts = {(t.machine.halted.section, t.machine.halted.seat) for t in net.tables if t.machine.halted is not None}
    assert halts == {("§9.3", 2)} and identical_logs(net)


def test_s9_7_an_opening_of_a_round_with_many_reshuffles_is_well_formed() -> None:
    """A round has a shuffle chain per deal and per reshuffle (R7), without bound: a seat
    opened 74 in a soak game (5 seats, short deck), which the schema once refused as
    more than 64, so that an honest seat's opening failed the audit."""
    from p2p.errors import ProtocolError
    from p2p.order import Orderer
    from p2p.peer import table_schemas
    from tests.ordersim import make_signer, seeded_identity

    ids = [seeded_identity(bytes([i]) * 32) for i in range(2)]
    orderer = Orderer(seats=[i.peer_id for i in ids], me=0, game=bytes(32), sign=make_signer(ids[0]))
    step = {"chain": bytes(32), "step": 0, "perm": list(range(30)), "scalars": bytes(32 * 30), "salt": bytes(32)}

    def opening(chains: int) -> dict:
        return dict(orderer.send({"type": "opening", "v": 1, "round": 1, "steps": [step] * chains,
                                  "digest": "0" * 64}, 0.0).inner)

    table_schemas().check(opening(74))
    with pytest.raises(ProtocolError, match="steps"):
        table_schemas().check(opening(513))


def test_s9_4_a_share_that_overtakes_its_snap_is_proven_as_it_arrives_and_not_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapper's share often reaches a peer before the snap's last acknowledgement does,
    so before the reveal it answers is open there. Its Chaum–Pedersen proof depends on the
    deck alone, so it is checked on arrival, while that peer waits, and not again when the
    reveal opens; the outcome is the same everywhere."""
    from p2p.deck import reveal as deck_reveal
    from p2p.table import machine as table_machine
    from tests.ordersim import Network

    class SlowToSeatZero(TableNetwork):
        def _post(self, src: int, dst: int, envelope: Any) -> None:  # seat 2's messages reach seat 0 late
            if src == 2 and dst == 0:
                self.schedule(self.now + 0.05, lambda: Network._post(self, src, dst, envelope))
            else:
                super()._post(src, dst, envelope)

    checks: dict[str, list[tuple[bytes, int, bytes]]] = {"on arrival": [], "as the reveal opens": []}
    for module, when in ((table_machine, "on arrival"), (deck_reveal, "as the reveal opens")):
        original = module.verify_share
        monkeypatch.setattr(module, "verify_share", lambda deck, sender, share, original=original, when=when: (
            checks[when].append((share.chain, share.position, sender)), original(deck, sender, share))[1])
    net = SlowToSeatZero(3, 11, rules=SMALL, act_delay=0.3)
    for other in (net.tables[0], net.tables[2]):  # nobody else snaps
        other.driver.snap = lambda: None  # type: ignore[method-assign]
    net.start()
    machine = net.tables[1].machine
    while machine.engine.discard_top() is None:  # until the deal is done and the first card is up
        net.run_until(net.now + 0.001)
    deck, position = machine._round.location[machine.engine.zones().tableaux[1][2]]  # noqa: SLF001
    for done in checks.values():
        done.clear()  # (the deal's peeks published the other seats' shares of that card)
    net.send(1, machine.submit(Snap(1, machine.engine.discard_top(), 1, 2)))  # its own bottom-left card (it peeked it)
    net.run_until(net.now + 0.5)
    for table in net.tables:
        assert any(isinstance(a.event, Snap) and a.event.seat == 1 for step in table.steps for a in step.applied)
        assert table.machine.halted is None
    card = (deck.chain, position, net.tables[1].machine.seats[1])  # seat 1's share of that card
    early, late = checks["on arrival"].count(card), checks["as the reveal opens"].count(card)
    assert early >= 1  # at seat 0 at least, where the snap waited for seat 2's acknowledgement
    assert early + late == 2  # once at each of the two other seats, never twice


def _seat_1_s_share_once_the_first_card_is_up() -> tuple[TableNetwork, Any, Any, Any]:
    """Three seats dealt, the first card turned up: the table, seats 0 and 1's machines,
    and seat 1's share of its own bottom-left card (what it would send, §9.4)."""
    net = TableNetwork(3, 11, rules=SMALL, act_delay=0.3)
    net.start()
    seat0, seat1 = net.tables[0].machine, net.tables[1].machine
    while seat1.engine.discard_top() is None:  # until the deal is done and the first card is up
        net.run_until(net.now + 0.001)
    deck, position = seat1._round.location[seat1.engine.zones().tableaux[1][2]]  # noqa: SLF001
    return net, seat0, seat1, seat1._my_share(deck, position)  # noqa: SLF001


def test_s9_4_shares_sent_far_ahead_or_twice_are_not_proven_on_arrival(monkeypatch: pytest.MonkeyPatch) -> None:
    """Proving an early share costs a peer about half a millisecond, so it is done only for
    the next few needs (`EARLY_PROOFS_AHEAD`) and once per seat and need: a peer that sends
    shares far ahead, or many for one need, costs no more CPU than before (such shares
    are judged when their needs open, as ever)."""
    from p2p.table import machine as table_machine

    net, seat0, seat1, share = _seat_1_s_share_once_the_first_card_is_up()
    proofs: list[int] = []
    original = table_machine.verify_share
    monkeypatch.setattr(table_machine, "verify_share", lambda *a: (proofs.append(1), original(*a))[1])
    nxt = seat0._needs_opened  # noqa: SLF001
    assert seat0._proven_early(1, share, nxt, []) and len(proofs) == 1  # noqa: SLF001
    assert not seat0._proven_early(1, share, nxt + table_machine.EARLY_PROOFS_AHEAD, [])  # noqa: SLF001
    assert not seat0._proven_early(1, share, nxt, [(1, share, 0, b"", True)])  # noqa: SLF001
    assert not seat0._proven_early(2, share, nxt, [])  # noqa: SLF001  (seat 2 did not make it: judged later)
    assert len(proofs) == 2  # the far one and the second one were not checked; the false one was, and failed


def test_s9_4_a_seat_that_floods_shares_for_needs_not_open_is_stopped_before_they_fill_memory() -> None:
    """Shares that come before their need wait for it; a peer could send them for needs
    far ahead without end, and each waited in memory. Past `EARLY_SHARES_HELD` of one
    seat's, the table halts on §9.4 naming that seat; up to it, they wait as before."""
    from types import SimpleNamespace

    from p2p.table import machine as table_machine

    net, seat0, seat1, share = _seat_1_s_share_once_the_first_card_is_up()
    item = share.to_wire()
    opened = seat0._needs_opened  # noqa: SLF001
    far = opened + 1000

    def flood(sseq: int, numbers: range) -> None:
        inner = {"type": "shares", "sseq": sseq, "items": [{**item, "need": n} for n in numbers]}
        seat0.receive_side(1, SimpleNamespace(inner=inner, body=bytes([sseq % 256]) * 8), net.now)

    held = table_machine.EARLY_SHARES_HELD
    for sseq, start in enumerate(range(0, held, 256)):
        flood(sseq, range(far + start, far + min(start + 256, held)))
    assert seat0.halted is None
    flood(held, range(far + held, far + held + 1))
    assert seat0.halted is not None and seat0.halted.section == "§9.4" and seat0.halted.seat == 1
    assert seat0.halted.reason.endswith(f"more than {held} of its shares are for needs not open yet "
                                        f"(the latest for need {far + held}, while needs 0–{opened - 1} are open here)")


def test_s10_2_a_move_naming_a_seat_the_table_lacks_counts_it_from_1_in_the_story_the_list_and_the_note() -> None:
    """A spy on the wire's seat 5 at a table of 3 (the schema lets an `owner` up to 15): the
    engine refuses it at every seat, and every place a person reads why counts seats from 1
    as the report's players line does: the story, the list of moves that did not count,
    and the note a peer writes in its log (§10.1)."""
    from engine import Phase, Spy
    from p2p.policy import on_refusal
    from p2p.report import game_report

    net = TableNetwork(3, 14, rules=TableRules(target=40))
    net.start()
    machine = net.tables[0].machine
    while machine.round_number == 0 or machine.engine.phase is not Phase.START:
        net.run_until(net.now + 0.001)
    assert machine.engine.turn_seat is not None
    spy = (machine.engine.turn_seat + 1) % 3
    net.send(spy, net.tables[spy].machine.submit(Spy(spy, 5, 0)))
    net.run(started=True)
    with tempfile.TemporaryDirectory() as folder:
        result = audit(net.write_logs(Path(folder))[0])
        report = list(game_report(result))
    said = "there is no seat 6 at this table of 3 seats"
    refused = next(r for r in result.refused if r.seat == spy and r.section == "R3")
    assert f"  record {refused.position + 1}: P{spy}: R3: {said}" in report, report
    assert any(line.endswith(f"P{spy}'s spy did not count (R3: {said}).") for line in report), report
    assert on_refusal(refused).note(result.names) == (
        f"P{spy} (seat {spy + 1}): R3: {said} (refused: it changes nothing)")


def test_s10_2_the_audit_s_list_of_refused_moves_names_the_players_not_seat_numbers() -> None:
    """A move out of turn (R5) is refused naming whose turn it was; the audit's list of
    moves that did not count said "it is seat 0's turn" (seats from 0, where the report
    counts them from 1): it names the player, as the story does."""
    from engine import Draw, Phase

    net = TableNetwork(3, 14, rules=TableRules(target=40))
    net.start()
    machine = net.tables[0].machine
    while machine.round_number == 0 or machine.engine.phase is not Phase.START:
        net.run_until(net.now + 0.001)
    turn = machine.engine.turn_seat
    assert turn is not None
    other = (turn + 1) % 3
    net.send(other, net.tables[other].machine.submit(Draw(other)))
    net.run(started=True)
    from p2p.report import game_report

    with tempfile.TemporaryDirectory() as folder:
        result = audit(net.write_logs(Path(folder))[0])
        report = list(game_report(result))
    listed = report[report.index(next(line for line in report if line.startswith("Moves that did not count"))) + 1:]
    out_of_turn = [line for line in listed if f": P{other}: R5: " in line]
    assert out_of_turn and f"it is P{turn}'s turn" in out_of_turn[0], listed
    refused = next(r for r in result.refused if r.seat == other and r.section == "R5")
    assert out_of_turn[0].startswith(f"  record {refused.position + 1}: P{other}: R5: "), out_of_turn  # (from 1)
    assert not any("seat 0" in line or "seat 1" in line for line in listed), listed
