"""§9 the replicated table: whole games over the seeded in-memory network.

Every peer runs the real stack minus sockets (order, table machine, card cryptography,
bots); frames are signed, verified, delayed, reordered and dropped. What must hold:
every peer delivers the identical sequence, every log audits clean with the same
totals, races are settled by the agreed order exactly as R6 says, and a peer that
breaks the protocol is named at the same point by every honest peer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine import NormalBot, Prng, SeatView, Snap, SnapOutcome, SnapResolved
from p2p.audit import audit
from p2p.order import message_hash
from p2p.roster import TableRules
from p2p.table import TableMachine
from tests.tablesim import TableNetwork

# A 30-card deck keeps the crypto of 200 games cheap; it has every power and both Bandits.
SMALL_DECK = "".join(
    f"[[card]]\nvalue = {v}\ncount = {c}\n" + (f'power = "{p}"\n' if p else "") + ("bandit = true\n" if b else "")
    for v, c, p, b in [
        (0, 5, None, False), (2, 4, None, False), (4, 3, "peek", False), (8, 3, "spy", False),
        (12, 3, "swap", False), (16, 3, "look_swap", False), (18, 3, None, False),
        (-2, 3, None, True), (20, 3, None, True),
    ]
)
SMALL = TableRules(target=20, skills_text=SMALL_DECK)


def identical_logs(net: TableNetwork) -> bool:
    logs = [[message_hash(d.envelope.body) for d in t.log] for t in net.tables]
    return all(log == logs[0] for log in logs)


def play(seed: int, tmp_path: Path) -> TableNetwork:
    """Game `seed`: mostly small tables (every peer verifies every share, so a table's
    cost grows with the square of its size), some of 5 and 6; loss up to 20%."""
    rng = random.Random(seed)
    players = rng.choices([2, 3, 4, 5, 6], weights=[45, 32, 16, 4, 3])[0]
    net = TableNetwork(
        players,
        seed,
        rules=SMALL if players <= 4 else TableRules(target=10),
        drop=rng.choice([0.0, 0.05, 0.2]),
        jitter=rng.choice([0.001, 0.01]),
    )
    net.run()
    return net


@pytest.mark.parametrize("chunk", range(10))
def test_table_200_seeded_games_agree_and_audit_clean(chunk: int, tmp_path: Path) -> None:
    for seed in range(chunk * 20, chunk * 20 + 20):
        net = play(seed, tmp_path)
        machines = [t.machine for t in net.tables]
        assert all(m.finished and m.halted is None for m in machines), f"seed {seed}"
        assert identical_logs(net), f"seed {seed}"
        assert len({m.engine.digest() for m in machines}) == 1
        result = audit(net.write_logs(tmp_path / str(seed))[seed % len(machines)])
        assert result.ok, f"seed {seed}: {result.first_failure}"
        assert tuple(result.rounds[-1].totals) == machines[0].engine.totals


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

RACE_DECK = "".join(
    f"[[card]]\nvalue = {v}\ncount = {c}\n" + ("bandit = true\n" if bandit else "")
    for v, c, bandit in [(0, 40, False), (-2, 2, True), (20, 2, True)]
)


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


def races_of(steps) -> dict[int, list[tuple[int, SnapOutcome]]]:  # type: ignore[no-untyped-def]
    """Snaps in the order applied, grouped by the top card they named: (seat, outcome).

    A snap resolves when it is applied (not the fastest) or when its card has been turned
    over (a later fact), so each seat's resolutions are matched to its snaps in order."""
    claims: list[tuple[int, int]] = []  # (seat, top) in order
    outcomes: dict[int, list[SnapOutcome]] = {}
    for step in steps:
        for applied in step.applied:
            if isinstance(applied.event, Snap):
                claims.append((applied.event.seat, applied.event.top))
            for note in applied.notes:
                if isinstance(note, SnapResolved):
                    outcomes.setdefault(note.seat, []).append(note.outcome)
    races: dict[int, list[tuple[int, SnapOutcome]]] = {}
    for seat, top in claims:
        races.setdefault(top, []).append((seat, outcomes[seat].pop(0)))
    return races


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
        assert identical_logs(net)
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


# -- violations: named by every honest peer at the same point -------------------------


class WrongShares(TableMachine):
    """Publishes a wrong decryption share (another card's share) for its first reveal."""

    cheated = False

    def _flush_shares(self, step):  # type: ignore[no-untyped-def]
        if self._share_items and not self.cheated and len(self._share_items) > 1:
            self.cheated = True
            first, second = self._share_items[0], self._share_items[1]
            self._share_items[0] = dict(first, share=second["share"])
        super()._flush_shares(step)


def test_table_wrong_share_halts_every_honest_peer_naming_the_culprit(tmp_path: Path) -> None:
    net = TableNetwork(4, 7)
    cheat = net.tables[2]
    old = cheat.machine
    cheat.machine = WrongShares(game_id=old.context.game_id, seats=old.seats, rules=old.rules, me=2, secrets=old.secrets)
    cheat.driver.machine = cheat.machine
    net.run(limit=60)
    honest = [t for i, t in enumerate(net.tables) if i != 2]
    verdicts = {(t.machine.halted.section, t.machine.halted.seat, t.machine.position) for t in honest if t.machine.halted}
    assert len(verdicts) == 1 and len([t for t in honest if t.machine.halted]) == 3
    section, seat, _ = verdicts.pop()
    assert section == "§8.5" and seat == 2
    result = audit(net.write_logs(tmp_path)[0])
    assert not result.ok and result.first_failure.seat == 2 and result.first_failure.section == "§8.5"


def test_table_out_of_turn_intent_refused_with_rule_state_unchanged() -> None:
    """R5: an intent from a seat whose turn it is not is refused by every peer, and the
    game goes on."""
    from engine import Draw

    net = TableNetwork(3, 11, rules=SMALL)
    sent = False

    original = net._drive

    def drive(peer, table):  # type: ignore[no-untyped-def]
        nonlocal sent
        m = table.machine
        if not sent and m.engine.turn_seat is not None and m.engine.turn_seat != m.me and not m.engine.needs:
            sent = True
            net.send(peer.seat, {"type": "draw", "v": 1, "round": m.round_number, "turn": m.engine.turn})
        original(peer, table)

    net._drive = drive  # type: ignore[method-assign]
    net.run()
    assert sent and all(t.machine.finished for t in net.tables) and identical_logs(net)
    refusals = [[(r.seat, r.section, r.position) for s in t.steps for r in s.refused if isinstance(r.intent, Draw)] for t in net.tables]
    assert refusals[0] and all(r == refusals[0] for r in refusals)
    assert refusals[0][0][1] == "R5"


def test_table_snap_without_evidence_of_the_card_is_refused_everywhere() -> None:
    """§9.5: a snap that does not name the side messages that turned its card face up
    (as a blind claim would not) is refused by every peer; the game goes on."""
    net = TableNetwork(3, 12, rules=SMALL)
    sent = False
    original = net._drive

    def drive(peer, table):  # type: ignore[no-untyped-def]
        nonlocal sent
        m = table.machine
        view = m.engine.view(m.me)
        if not sent and view.can_snap and view.top_face is not None and m.round_number == 1:
            sent = True
            payload = m.submit(Snap(m.me, view.top, m.me, 0))
            payload["seen"] = []  # as if it had not seen the shares
            net.send(peer.seat, payload)
        original(peer, table)

    net._drive = drive  # type: ignore[method-assign]
    net.run()
    assert sent and all(t.machine.finished for t in net.tables) and identical_logs(net)
    refusals = [[(r.seat, r.section, r.reason) for s in t.steps for r in s.refused if isinstance(r.intent, Snap)]
                for t in net.tables]
    assert all(r == refusals[0] for r in refusals)
    assert any(section == "§9.5" and "not seen" in reason for _, section, reason in refusals[0])
