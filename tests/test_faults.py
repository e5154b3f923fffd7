"""§11.3 faults on the in-memory table: links cut and restored, peers killed and resumed
from their log and journal. Seeded games with one fault each (ten by default, fifty with
`-m slow`; `bench/soak.py --kind faults` plays far more); every game completes, the
honest peers agree and every log audits clean. (The same faults over real TLS sockets and
processes: tests/test_faults_live.py and bench/faults.py.)"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest

from p2p.audit import audit
from p2p.roster import TableRules
from tests.cheat_runs import MEMORY, run_table
from tests.faultsim import FaultNetwork
from tests.ordersim import Network
from tests.spread import spread
from tests.test_table_games import SMALL_DECK, seeded_game_fails

RULES = TableRules(target=25)
FAULT_GAME_RULES = TableRules(target=25, skills_text=SMALL_DECK)  # every power and both Bandits, for a third less crypto
GAMES = 50


def play_with_fault(seed: int) -> tuple[FaultNetwork, str]:
    rng = random.Random(f"fault-{seed}")
    players = rng.choice((2, 3, 4))
    net = FaultNetwork(players, seed, rules=FAULT_GAME_RULES)
    kind = "kill" if seed % 2 else "cut"
    victim = rng.randrange(players)
    other = rng.choice([s for s in range(players) if s != victim])
    at_records = rng.randrange(5, 40)  # a short game has 40 to 60 records: every game gets its fault
    down_for = rng.uniform(0.3, 8.0)
    injected_at: float | None = None
    net.start()
    while net.now < 600 and (not net.finished() or net.dead or net.cut):
        net.run_until(net.now + 0.05)
        for peer, table in zip(net.peers, net.tables):
            net._drive(peer, table)
        if injected_at is None and len(net.tables[victim].records) >= at_records:
            injected_at = net.now
            net.kill(victim) if kind == "kill" else net.cut_link(victim, other)
        elif injected_at is not None and net.now >= injected_at + down_for:
            if kind == "kill" and victim in net.dead:
                net.resume(victim)
            elif kind == "cut" and net.cut:
                net.restore_link(victim, other)
    return net, (kind if injected_at is not None else "none")


def fault_game_fails(seed: int) -> str | None:
    """Play fault game `seed`; what failed, or None."""
    net, fault = play_with_fault(seed)
    if fault == "none":
        return f"seed {seed}: the game ended before the fault"
    if not all(t.machine.finished for t in net.tables):
        return f"seed {seed} ({fault}): not every peer finished ({[t.machine.halted for t in net.tables]})"
    if len({t.machine.outcomes[-1].totals for t in net.tables}) != 1:
        return f"seed {seed} ({fault}): the honest peers disagree"
    if fault == "kill" and net.resumes != 1:
        return f"seed {seed}: the killed peer was resumed {net.resumes} times"
    with tempfile.TemporaryDirectory() as folder:
        for path in net.write_logs(Path(folder)):
            result = audit(path)
            if not (result.ok and result.finished):
                return f"seed {seed} ({fault}): {path.name}: {result.first_failure}"
    return None


@pytest.mark.parametrize(  # (the first ten games run by default; bench/soak.py --kind faults plays far more)
    "chunk", [chunk if chunk == 0 else pytest.param(chunk, marks=pytest.mark.slow) for chunk in range(GAMES // 10)])
def test_11_3_a_game_with_one_fault_completes_and_every_log_audits(chunk: int) -> None:
    assert spread(fault_game_fails, range(chunk * 10, chunk * 10 + 10)) == []


def test_the_simulator_s_remembered_deadlines_are_always_the_peers_own(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The in-memory network remembers each peer's next deadlines until something reaches
    it, leaves it or fires its timers (`Network.own_deadlines`; asking every peer after
    every event was a twentieth of a game's time). Asked afresh at every use and compared, they
    agree all through games of five and six with drops, a kill, a cut and a withheld share
    (stall claims); a remembered deadline that went stale fails here."""
    monkeypatch.setattr(Network, "check_deadlines", True)
    assert [failure for seed in (56, 103) if (failure := seeded_game_fails(seed))] == []
    assert fault_game_fails(1) is None and fault_game_fails(2) is None  # (a kill, a cut)
    make, sections, policy = MEMORY["withheld-share"]
    _, judged = run_table(make(), sections, policy, tmp_path / "logs")
    assert judged.ok, judged.explain()


def test_11_3_a_resumed_peer_sends_what_the_crash_kept_from_being_sent() -> None:
    """Killed between deciding to send and sending: the replay finds the message missing
    from the journal and sends it on resume (here: the key of a peer killed at once)."""
    net = FaultNetwork(3, 5, rules=RULES)
    net.kill(2)  # dies as it makes its key (§9.2): produced, never journaled, never sent
    net.start()
    net.run_until(1.0)
    assert not net.journals[2]
    assert not any(t.machine.round_number for t in net.tables)  # everyone waits for seat 2's key
    net.resume(2)
    net.play_on()
    assert all(t.machine.finished for t in net.tables)


@pytest.mark.parametrize("kind", ["kill", "cut"])
def test_11_3_a_peer_away_longer_than_the_stall_time_is_not_taken_for_withholding(kind: str, tmp_path: Path) -> None:
    """With 5 s turns (so 5 s stall claims, §9.11), seat 2 is killed (or cut off from
    the others: cut from seat 0 alone, its share would reach seat 0 relayed by seat 1,
    §7.6) for 8 s just as its share of a reveal leaves: the others wait for that share
    all that time. While a link is down nobody makes timer or stall claims, and when
    everyone is back the stall clock goes on from where it stood (§11.3): the share comes (resent from
    the log after the restart), nobody is named, and the game completes, every log
    auditing clean."""
    net = FaultNetwork(3, 21, rules=TableRules(target=25, turn_s=5))
    broadcast, struck = net.broadcast, []

    def strike(src: int, envelope) -> None:  # type: ignore[no-untyped-def]
        if src == 2 and envelope.inner["type"] == "shares" and not struck and len(net.tables[2].records) > 40:
            struck.append(net.now)
            if kind == "kill":
                net.kill(2)
            else:
                net.cut_link(0, 2)
                net.cut_link(1, 2)
        broadcast(src, envelope)

    net.broadcast = strike  # type: ignore[method-assign]
    net.start()
    net.play_until(lambda: bool(struck))
    net.run_until(struck[0] + 8.0)
    awaited = net.tables[0].machine.awaited()
    assert awaited is not None and awaited.seats == (2,)  # seat 0 has waited 8 s for seat 2's share
    assert net.links_down() and not any(t.machine.halted for t in net.tables)
    if kind == "kill":
        net.resume(2)
    else:
        net.restore_link(0, 2)
        net.restore_link(1, 2)
    net.play_on()
    assert all(t.machine.finished and t.machine.halted is None for t in net.tables)
    for path in net.write_logs(tmp_path):
        assert audit(path).ok


def test_s9_6_the_turn_timer_stands_while_a_link_is_down_and_the_player_keeps_the_time_they_had(tmp_path: Path) -> None:
    """With 5 s turns, seat 1's player never acts. 3 s into its turn the link between
    seats 0 and 2 is cut for 20 s: nothing can be played meanwhile, so the turn timer
    stands (§9.6, §11.3). When the link is back the turn has the 2 s it had left: it is
    still seat 1's 1.5 s later, and timed out (R5) 2 s after that."""
    from engine import Phase
    from engine.phases import TURN_PHASES

    net = FaultNetwork(3, 4, rules=TableRules(target=25, turn_s=5))
    idle = net.tables[1].driver
    idle.act = lambda: None  # type: ignore[method-assign]
    idle.snap = lambda: None  # type: ignore[method-assign]
    engine = lambda: net.tables[0].machine.engine  # noqa: E731

    def seat_1_plays() -> bool:
        e = engine()
        return e.phase in TURN_PHASES and e.turn_seat == 1 and e.phase is not Phase.PEEK

    net.start()
    net.play_until(seat_1_plays)
    turn = engine().turn
    net.play_until(lambda: net.now >= net.tables[0].machine.turn_started_at() + 3.0)
    net.cut_link(0, 2)
    net.run_until(net.now + 20.0)
    assert engine().turn == turn
    net.restore_link(0, 2)
    back = net.now
    net.play_until(lambda: net.now >= back + 1.5)
    assert engine().turn == turn and engine().turn_seat == 1  # (before: timed out at once)
    net.play_until(lambda: engine().turn != turn, limit=back + 4.0)
    assert engine().turn != turn
    net.play_on()
    assert all(t.machine.finished and t.machine.halted is None for t in net.tables)
    for path in net.write_logs(tmp_path):
        assert audit(path).ok


def _a_turn_under_way():  # type: ignore[no-untyped-def]
    """Seat 0's table machine as the first turn begins: (machine, when it began, now)."""
    net = FaultNetwork(3, 4, rules=TableRules(target=25))
    net.start()
    machine = net.tables[0].machine
    net.play_until(lambda: machine.turn_started_at() is not None)
    began = machine.turn_started_at()
    assert began is not None
    return machine, began, net.now


def test_s9_6_a_turn_timer_stands_for_lost_links_at_most_the_grace_period_in_all() -> None:
    """A peer that reports a link down for 100 s, up for 1 s and down again for 100 s
    (§7.1 `away`) cannot stretch a turn by 200 s: the timer stands 120 s in all (the
    grace period), so the second report stands it only the 20 s left of that."""
    machine, began, now = _a_turn_under_way()
    machine.clocks.pause(now)
    machine.clocks.resume(now + 100)
    assert machine.turn_started_at() == pytest.approx(began + 100)
    machine.clocks.pause(now + 101)
    machine.clocks.resume(now + 201)
    assert machine.turn_started_at() == pytest.approx(began + 120)


def test_s9_6_a_peer_that_was_stopped_stands_its_clocks_from_when_the_others_missed_it() -> None:
    """A peer whose process was stopped from 5 s into a turn until 20 s stands the turn
    timer from `since` (when the others took it for gone) to its waking: 15 s; a stop
    the others could not have noticed stands nothing; and when a link was found down at
    the waking, the clocks stand from the earlier moment until the link is back."""
    machine, began, now = _a_turn_under_way()
    machine.clocks.stand_while_stopped(now + 5, now + 20)
    assert machine.turn_started_at() == pytest.approx(began + 15)
    machine.clocks.stand_while_stopped(now + 30, now + 25)  # (shorter than the others' patience)
    assert machine.turn_started_at() == pytest.approx(began + 15)
    machine.clocks.pause(now + 40)  # (a link found down as it woke)
    machine.clocks.stand_while_stopped(now + 32, now + 40)
    machine.clocks.resume(now + 50)
    assert machine.turn_started_at() == pytest.approx(began + 33)


def test_s9_11_a_withholder_that_drops_its_link_before_each_stall_deadline_is_still_named(tmp_path: Path) -> None:
    """With 5 s turns (so 5 s stall claims), seat 2 withholds its share of the round's
    first reveal and, 4 s into every stretch with all links up, drops its link to seat 0
    for 0.5 s. Time away does not count as withholding (§11.3), but time present does:
    the clock goes on from where it stood, so flapping never starts it over. The stall is
    claimed in the second stretch, and every peer ends the game naming seat 2 (§9.4)."""
    from tests.malicious import WithheldShare, WithholdingMachine

    net = FaultNetwork(3, 21, rules=TableRules(target=25, turn_s=5))
    old = net.tables[2].machine
    cheat = WithholdingMachine(game_id=old.context.game_id, seats=old.seats, rules=old.rules, me=2, secrets=old.secrets)
    cheat.cheat = WithheldShare(need=0)
    net.tables[2].machine = net.tables[2].driver.machine = cheat
    net.start()
    net.play_until(lambda: (w := net.tables[0].machine.awaited()) is not None and w.what == "shares")
    began = net.now
    while not net.finished() and net.now < began + 60:
        net.run_until(net.now + 4.0)
        if net.finished():
            break
        net.cut_link(0, 2)
        net.run_until(net.now + 0.5)
        net.restore_link(0, 2)
    assert cheat.cheat.tried
    for table in net.tables[:2]:
        halted = table.machine.halted
        assert halted is not None and halted.section == "§9.4" and halted.seat == 2, halted
    assert net.now < began + 10  # 5 s present: the second stretch, not a minute of flapping
    for path in net.write_logs(tmp_path)[:2]:
        failure = audit(path).first_failure  # the claim is in every log: the audit names the withholder
        assert failure is not None and (failure.section, failure.seat) == ("§9.4", 2), failure


def _kill_at_the_first_finish(see_off: bool, seed: int = 3) -> tuple[FaultNetwork, int]:
    """Three players; the moment the first peer ends its game, a peer that has not yet
    delivered the last message is killed (its promise for it already sent), and it is
    resumed 3 s later. Returns the network, played on, and the victim's seat."""
    net = FaultNetwork(3, seed, rules=RULES, see_off=see_off)
    deliver, struck = net.on_deliveries, []

    def first_finish(peer) -> None:  # type: ignore[no-untyped-def]
        deliver(peer)
        if not struck and net.tables[peer.seat].machine.finished:
            victim = next(s for s, t in enumerate(net.tables) if not t.machine.finished)
            struck.append((net.now, victim))
            net.kill(victim)

    net.on_deliveries = first_finish  # type: ignore[method-assign]
    net.start()
    net.play_until(lambda: bool(struck))
    at, victim = struck[0]
    net.run_until(at + 3.0)
    net.resume(victim)
    net.play_on(limit=at + 60.0)
    net.run_until(net.now + 1.0)  # (the last farewells)
    return net, victim


def test_s11_4_a_peer_killed_just_before_the_last_message_finishes_the_game_after_resuming(tmp_path: Path) -> None:
    """Its log lacks the last message and acks are not logged, so after the restart it
    needs fresh promises and echoes from the others: they stayed for it (§11.4), since its
    link went down without a goodbye, and leave once its acks say it holds everything."""
    net, victim = _kill_at_the_first_finish(see_off=True)
    assert net.resumes == 1 and all(t.machine.finished for t in net.tables)
    assert net.gone == {0, 1, 2} and not net.farewells  # every peer saw the others off, and left
    assert len({t.machine.outcomes[-1].totals for t in net.tables}) == 1
    for path in net.write_logs(tmp_path):
        result = audit(path)
        assert result.ok and result.finished, result.first_failure


def test_s11_4_without_the_farewell_a_peer_killed_at_the_end_could_not_finish() -> None:
    """The same game, each peer leaving the moment its game ends (as before §11.4): the
    resumed peer never gets what it needs, and waits (live: the grace period, then the
    game ends there without a result)."""
    net, victim = _kill_at_the_first_finish(see_off=False)
    assert net.resumes == 1 and not net.tables[victim].machine.finished
    assert all(t.machine.finished for s, t in enumerate(net.tables) if s != victim)


@pytest.mark.parametrize("games", [range(0, 10), range(10, 20), range(20, 30)])
def test_11_3_a_peer_killed_while_messages_wait_in_its_intake_resumes_and_the_game_completes(games: range,
                                                                                             tmp_path: Path) -> None:
    """Killed while the order had delivered messages that its table was not ready for
    (they waited behind one held for a reveal's shares, and were not logged, §10.1): they
    are lost with the process like messages not yet delivered, the others resend them on
    its return, and the game completes with every log auditing clean. (The first of
    `games` where a peer has messages waiting in its intake.)"""
    from tests.tablesim import arising

    def play(seed: int) -> tuple[FaultNetwork, list[tuple[float, int]]]:
        net = FaultNetwork(3, seed, rules=RULES, share_lag=0.02)  # (shares late, as on a busy machine)
        deliver, struck = net.on_deliveries, []

        def kill_while_waiting(peer) -> None:  # type: ignore[no-untyped-def]
            deliver(peer)
            table = net.tables[peer.seat]
            if not struck and len(table.intake) and table.machine.round_number >= 1:
                struck.append((net.now, peer.seat))
                net.kill(peer.seat)

        net.on_deliveries = kill_while_waiting  # type: ignore[method-assign]
        net.start()
        net.play_until(lambda: bool(struck) or all(t.machine.finished for t in net.tables))
        return net, struck

    net, struck = arising(play, lambda played: bool(played[1]), games)
    at, victim = struck[0]
    net.run_until(at + 2.0)
    net.resume(victim)
    net.play_on(limit=at + 300.0)
    assert net.resumes == 1 and all(t.machine.finished for t in net.tables), [t.machine.halted for t in net.tables]
    assert len({t.machine.outcomes[-1].totals for t in net.tables}) == 1
    for path in net.write_logs(tmp_path):
        result = audit(path)
        assert result.ok and result.finished, result.first_failure


def test_11_3_a_return_before_a_seats_keys_ends_its_absence_only_once_its_keys_are_in() -> None:
    """Before the table's first message it waits for every seat's keys (§9.2). A seat that
    comes back then, lets the others' keys be delivered but withholds its own, and drops
    again has not ended its absence: its time away adds up (§11.3)."""
    from p2p.order import absence_since
    from tests.tablesim import TableNetwork

    net = TableNetwork(3, 5, rules=RULES)
    machine, orderer = net.tables[0].machine, net.peers[0].orderer
    orderer.owed = machine.owed
    assert all(machine.owed((seat,)) == ("keys", 0, 0) for seat in range(3))
    back = orderer.mark((2,))  # seat 2 came back before anything was delivered
    for peer, table in list(zip(net.peers, net.tables))[:2]:  # seat 2 acks, but keeps its keys
        net._emit(peer, table, table.machine.start())
    net.run_until(net.now + 1.0)
    assert machine.position >= 1 and machine.owed((2,)) == ("keys", 0, 0)
    assert absence_since(100.0, (30.0, back), orderer.mark((2,))) == 70.0  # 30 s away already
    net._emit(net.peers[2], net.tables[2], net.tables[2].machine.start())
    deadline = net.now + 1.0
    while machine.owed((2,)) == ("keys", 0, 0) and net.now < deadline:  # until its keys are delivered
        net.run_until(net.now + 0.001)
    assert machine.owed((2,)) != ("keys", 0, 0) and absence_since(100.0, (30.0, back), orderer.mark((2,))) == 100.0



def leave_while_away(seed: int) -> str:
    """Seat `leaver` leaves (§9.8) while seat `killed` is down, and goes before its `leave`
    can be delivered: nothing is stable without the killed seat's promises (§7.4). The
    killed seat then resumes (§11.3). How the staying seats' games end: "leave" (all at
    that `leave`, at one point of the order), or
    "shares" (they hold a message behind a reveal that waits for the leaver's shares,
    which the leaver never sent them: only the grace period ends that, §11.3); anything
    else is a failure, told."""
    from p2p.table import SeatLeft

    rng = random.Random(f"leave-{seed}")
    players = rng.choice((3, 4))
    net = FaultNetwork(players, seed, rules=RULES)
    killed, leaver = rng.sample(range(players), 2)
    net.start()
    at_records = rng.randrange(5, 40)
    net.play_until(lambda: len(net.tables[killed].records) >= at_records)
    net.kill(killed)
    net.run_until(net.now + rng.uniform(0.0, 0.5))
    net.send(leaver, {"type": "leave", "v": 1, "reason": "it was stopped"})
    net.run_until(net.now + 3.0)  # (it waits for its leave to come back delivered, in vain)
    if any(t.machine.halted or t.machine.finished for t in net.tables):
        return f"seed {seed}: a game ended while a seat was away"
    net.depart(leaver)
    net.resume(killed)
    staying = [s for s in range(players) if s != leaver]
    net.play_until(lambda: all(net.tables[s].machine.halted for s in staying), limit=net.now + 60)
    net.run_until(net.now + 2.0)
    ends, waits = set(), []
    for s in staying:
        machine = net.tables[s].machine
        if isinstance(machine.halted, SeatLeft) and machine.halted.seat == leaver:
            ends.add(len([r for side, r in net.tables[s].records if not side]))
        elif machine.halted is None and machine.holding \
                and all(owed == (leaver,) or set(owed) <= {leaver, killed} for owed in machine.waiting_for_shares.values()):
            waits.append(s)
        else:
            return f"seed {seed}: seat {s} ended otherwise ({machine.halted}, holding: {machine.waiting_for_shares})"
    if len(ends) > 1:
        return f"seed {seed}: the games ended at different points of the order ({sorted(ends)})"
    return "shares" if waits else "leave"


def test_s9_8_a_leave_sent_while_a_seat_is_away_ends_the_games_at_it_once_the_seat_is_back() -> None:
    """12 seeded tables (see `leave_while_away`): every staying seat ends at the `leave`
    or waits only for the leaver's shares; most end at the leave. (Before, none did: the
    resumed seat never got back what it lost of the leaver's chain, §7.6, and the others
    waited for the leaver's echo, §7.10.)"""
    outcomes = [leave_while_away(seed) for seed in range(12)]
    assert set(outcomes) <= {"leave", "shares"}, outcomes
    assert outcomes.count("leave") >= 6, outcomes


def test_s11_4_a_leaver_killed_before_its_leave_came_back_resumes_and_ends_at_it() -> None:
    """A seat sends `leave` and is killed before it comes back delivered; the others
    deliver it. They still wait for that seat as for any link dropped without a goodbye
    (§11.4): it resumes (§11.3), needs their promises to deliver its own leave, and gets
    them. (Seeing the leaving seat off at once left it with nobody to hear from.)"""
    from p2p.table import SeatLeft

    net = FaultNetwork(3, 0, rules=RULES)
    leaver = 1
    net.start()
    net.play_until(lambda: len(net.tables[leaver].records) >= 15)
    net.send(leaver, {"type": "leave", "v": 1, "reason": "it was stopped"})
    net.run_until(net.now + 0.003)  # (on the wire)
    net.kill(leaver)
    net.run_until(net.now + 0.5)
    assert all(isinstance(net.tables[s].machine.halted, SeatLeft) for s in (0, 2))
    net.resume(leaver)
    net.run_until(net.now + 30.0)
    halted = net.tables[leaver].machine.halted
    assert isinstance(halted, SeatLeft) and halted.seat == leaver, halted
