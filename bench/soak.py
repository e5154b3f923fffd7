"""Soak: many seeded in-memory games, far beyond the suite's seeds, with every check.

Two kinds of game, each seed drawing its own table:

- ``table``: 2-6 players over the seeded network of `tests.tablesim` (loss up to 30 %,
  jitter up to 50 ms, sometimes a LAN's latency with human reaction and thinking times),
  the small, race or default deck, sometimes seats that snap everything they know;
- ``faults``: 2-6 players over `tests.faultsim` with 1-4 faults each (a peer killed and
  resumed from its log and journal, a link cut and restored, at any moment), sometimes a
  seat whose player never acts (5 s turns, so the timers and stall claims run).

A game passes when every peer finished without halting, the peers agree (the same
delivered sequence and engine for ``table``, the same totals for ``faults``) and every
log audits clean. Each failure is printed with its kind and seed; rerun it alone with
``--kind K --seed S --games 1``.

    python bench/soak.py [--kind table|faults|both] [--seconds 600] [--seed 0] [--games N] [--json]

With --json the last line is one JSON object: games (by kind), failures (kind, seed,
what), seconds. Exit status 1 if any game failed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from p2p.audit import audit  # noqa: E402
from p2p.roster import TableRules  # noqa: E402
from tests.faultsim import FaultNetwork  # noqa: E402
from tests.tablesim import TableNetwork  # noqa: E402
from tests.test_table_games import RACE_DECK, SMALL, SMALL_DECK, EagerBot, identical_logs  # noqa: E402


def _audits(net: TableNetwork, finished: bool) -> str | None:
    with tempfile.TemporaryDirectory(prefix="bandit-soak-") as folder:
        for path in net.write_logs(Path(folder)):
            result = audit(path)
            if not result.ok or (finished and not result.finished):
                return f"{path.name} does not audit: {result.first_failure}"
    return None


def table_game(seed: int) -> tuple[str, str | None]:
    """One seeded table; (what it was, why it failed or None)."""
    rng = random.Random(f"soak-table-{seed}")
    players = rng.choice([2, 3, 4, 5, 6])
    deck = rng.choice(["small", "race", "default"]) if players <= 4 else rng.choice(["race", "short"])
    rules = {"small": SMALL, "race": TableRules(target=5, skills_text=RACE_DECK), "default": TableRules(target=30),
             "short": TableRules(target=10)}[deck]
    options: dict[str, Any] = {"drop": rng.choice([0.0, 0.02, 0.1, 0.3]), "jitter": rng.choice([0.0005, 0.002, 0.01, 0.05])}
    if rng.random() < 0.5:
        options.update(latency=rng.choice([0.0005, 0.002, 0.01]), snap_delay=rng.choice([0.0, 0.05]),
                       act_delay=rng.choice([0.0, 0.3]))
    eager = deck == "race" or rng.random() < 0.3
    what = f"{players} players, {deck} deck, {options}{', eager snappers' if eager else ''}"
    net = TableNetwork(players, seed, rules=rules, **options)
    if eager:
        for t in net.tables:
            t.driver.bot = EagerBot(name="eager")
    net.run()
    machines = [t.machine for t in net.tables]
    if not all(m.finished and m.halted is None for m in machines):
        return what, f"not finished at {net.now:.0f} s: {[str(m.halted) if m.halted else m.finished for m in machines]}"
    if not identical_logs(net) or len({m.engine.digest() for m in machines}) != 1:
        return what, "the peers disagree"
    return what, _audits(net, finished=True)


def faults_game(seed: int) -> tuple[str, str | None]:
    """One seeded table with faults; (what it was, why it failed or None)."""
    rng = random.Random(f"soak-faults-{seed}")
    players = rng.choice((2, 3, 4, 5, 6))
    options = {"drop": rng.choice((0.0, 0.05)), "jitter": rng.choice((0.001, 0.01))}
    away = rng.random() < 0.4
    rules = TableRules(target=10, turn_s=5, peek_s=2, skills_text=SMALL_DECK) if away else TableRules(target=rng.choice((10, 25)))
    net = FaultNetwork(players, seed, rules=rules, **options)
    if away:  # its player never acts: peeks and turns time out
        idle = net.tables[rng.randrange(players)].driver
        idle.act = lambda: None  # type: ignore[method-assign]
        idle.snap = lambda: None  # type: ignore[method-assign]
    faults = []
    for _ in range(rng.randint(1, 4)):
        victim = rng.randrange(players)
        other = rng.choice([s for s in range(players) if s != victim])
        faults.append({"kind": rng.choice(("kill", "cut")), "victim": victim, "other": other,
                       "at": rng.uniform(0.05, 20.0), "down": rng.uniform(0.2, 8.0), "state": "pending"})
    net.start()
    while net.now < 900 and (not net.finished() or net.dead or net.cut):
        net.run_until(net.now + 0.05)
        for peer, table in zip(net.peers, net.tables):
            net._drive(peer, table)
        for f in faults:
            if f["state"] == "pending" and net.now >= f["at"] and not net.finished():
                if f["kind"] == "cut":
                    net.cut_link(f["victim"], f["other"])
                elif f["victim"] not in net.dead:
                    net.kill(f["victim"])
                else:
                    f["state"] = "skipped"
                    continue
                f["state"] = "on"
            elif f["state"] == "on" and net.now >= f["at"] + f["down"]:
                net.resume(f["victim"]) if f["kind"] == "kill" else net.restore_link(f["victim"], f["other"])
                f["state"] = "done"
    done = [(f["kind"], f["victim"], f["other"], round(f["at"], 2), round(f["down"], 2)) for f in faults if f["state"] == "done"]
    what = f"{players} players, {options}, faults {done}{', a player who never acts' if away else ''}"
    if not all(t.machine.finished for t in net.tables):
        return what, f"not finished at {net.now:.0f} s: {[str(t.machine.halted) for t in net.tables]}"
    if len({t.machine.outcomes[-1].totals for t in net.tables}) != 1:
        return what, "the peers disagree on the totals"
    return what, _audits(net, finished=True)


KINDS = {"table": table_game, "faults": faults_game}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=[*KINDS, "both"], default="both")
    parser.add_argument("--seconds", type=float, default=600.0, help="stop starting games after this long")
    parser.add_argument("--games", type=int, default=None, help="stop after this many games of each kind")
    parser.add_argument("--seed", type=int, default=0, help="the first seed (each kind counts up from it)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    kinds = list(KINDS) if args.kind == "both" else [args.kind]
    started = time.monotonic()
    games = {kind: 0 for kind in kinds}
    failures: list[dict[str, Any]] = []
    seed = args.seed
    while time.monotonic() - started < args.seconds and (args.games is None or min(games.values()) < args.games):
        for kind in kinds:
            try:
                what, why = KINDS[kind](seed)
            except Exception:  # a crash is a finding too
                what, why = "?", "raised:\n" + traceback.format_exc()
            games[kind] += 1
            if why is not None:
                failures.append({"kind": kind, "seed": seed, "what": what, "why": why})
                print(f"FAILED {kind} seed {seed} ({what}): {why}", flush=True)
        seed += 1
    seconds = time.monotonic() - started
    print(f"{sum(games.values())} games ({', '.join(f'{n} {k}' for k, n in games.items())}) in {seconds:.0f} s: "
          f"{len(failures)} failed")
    if args.json:
        print(json.dumps({"games": games, "failures": failures, "seconds": round(seconds, 1)}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
