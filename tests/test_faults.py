"""§11.3 faults on the in-memory table: links cut and restored, peers killed and resumed
from their log and journal. 50 seeded games, one fault each; every game completes, the
honest peers agree and every log audits clean. (The same faults over real TLS sockets and
processes: tests/test_faults_live.py and bench/faults.py.)"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from p2p.audit import audit
from p2p.roster import TableRules
from tests.faultsim import FaultNetwork

RULES = TableRules(target=25)
GAMES = 50


def play_with_fault(seed: int) -> tuple[FaultNetwork, str]:
    rng = random.Random(f"fault-{seed}")
    players = rng.choice((2, 3, 4))
    net = FaultNetwork(players, seed, rules=RULES)
    kind = "kill" if seed % 2 else "cut"
    victim = rng.randrange(players)
    other = rng.choice([s for s in range(players) if s != victim])
    at_records = rng.randrange(5, 50)  # a short game has ~50 records: every game gets its fault
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


@pytest.mark.parametrize("seed", range(GAMES))
def test_11_3_a_game_with_one_fault_completes_and_every_log_audits(seed: int, tmp_path: Path) -> None:
    net, fault = play_with_fault(seed)
    assert fault != "none"  # the fault was injected before the game ended
    assert all(t.machine.finished for t in net.tables), [t.machine.halted for t in net.tables]
    assert len({t.machine.outcomes[-1].totals for t in net.tables}) == 1  # the honest peers agree
    assert fault == "cut" or net.resumes == (1 if fault == "kill" else 0)
    for path in net.write_logs(tmp_path):
        result = audit(path)
        assert result.ok and result.finished, result.first_failure


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
    seat 0) for 8 s just as its share of a reveal leaves: the others wait for that share
    all that time. While a link is down nobody makes timer or stall claims, and when
    everyone is back the stall clock starts again (§11.3): the share comes (resent from
    the log after the restart), nobody is named, and the game completes, every log
    auditing clean."""
    net = FaultNetwork(3, 21, rules=TableRules(target=25, turn_s=5))
    broadcast, struck = net.broadcast, []

    def strike(src: int, envelope) -> None:  # type: ignore[no-untyped-def]
        if src == 2 and envelope.inner["type"] == "shares" and not struck and len(net.tables[2].records) > 40:
            struck.append(net.now)
            net.kill(2) if kind == "kill" else net.cut_link(0, 2)
        broadcast(src, envelope)

    net.broadcast = strike  # type: ignore[method-assign]
    net.start()
    while not struck:
        net.run_until(net.now + 0.05)
        for peer, table in zip(net.peers, net.tables):
            net._drive(peer, table)
    net.run_until(struck[0] + 8.0)
    awaited = net.tables[0].machine.awaited()
    assert awaited is not None and awaited.seats == (2,)  # seat 0 has waited 8 s for seat 2's share
    assert net.links_down() and not any(t.machine.halted for t in net.tables)
    net.resume(2) if kind == "kill" else net.restore_link(0, 2)
    net.play_on()
    assert all(t.machine.finished and t.machine.halted is None for t in net.tables)
    for path in net.write_logs(tmp_path):
        assert audit(path).ok
