"""Benchmark of the rules engine and simulator.

Measures, on one core:
  1. simulated games per second, 4 players, default (`normal`) bots; median of runs,
     compared with the goal (100 games/s) and with `random` bots in the same run;
  2. engine-only throughput: recorded games replayed into fresh engines (events/s);
  3. the win rate of seat 0 `normal` against three `random` bots (goal: >= 75%),
     compared with the fair share of 25%.

Usage: python bench/simulate.py [--runs 5] [--games 200] [--winrate-games 1000] [--json]
With --json the last line is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cli.argtypes import count  # noqa: E402
from engine import Game, make_bot, play_game, simulate  # noqa: E402
from engine.events import Event  # noqa: E402

GOAL_GAMES_PER_S = 100.0
GOAL_WIN_RATE = 0.75


def pin_to_one_core() -> str:
    """Run on a single CPU so the figure is a one-core figure."""
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"cpu {cpu}"
    return "not pinned"


def games_per_s(bots: tuple[str, ...], games: int, seed: int) -> float:
    start = time.perf_counter()
    simulate(4, games, seed, bots)
    return games / (time.perf_counter() - start)


def engine_events_per_s(games: int, seed: int) -> tuple[float, int]:
    """Replay recorded 4-player games (no bots, no oracle): events applied per second."""
    bots = [make_bot("normal")] * 4
    logs: list[list[Event]] = []
    for index in range(games):
        log: list[Event] = []
        play_game(bots, seed, index, record=log)
        logs.append(log)
    count = sum(len(log) for log in logs)
    start = time.perf_counter()
    for log in logs:
        game = Game(4)
        apply = game.apply
        for event in log:
            apply(event)
    return count / (time.perf_counter() - start), count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=count, default=5, help="timed runs per figure (median reported)")
    parser.add_argument("--games", type=count, default=200, help="games per timed run")
    parser.add_argument("--winrate-games", type=count, default=1000, help="games for the normal-vs-random win rate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    args = parser.parse_args()

    pinned = pin_to_one_core()
    normal = [games_per_s(("normal",), args.games, args.seed) for _ in range(args.runs)]
    random_ = [games_per_s(("random",), args.games, args.seed) for _ in range(args.runs)]
    replay = [engine_events_per_s(max(1, args.games // 10), args.seed) for _ in range(args.runs)]
    events_per_s = [r[0] for r in replay]
    summary = simulate(4, args.winrate_games, args.seed, ("normal", "random", "random", "random"))
    win_rate = summary.win_rate[0]

    med_normal = statistics.median(normal)
    med_random = statistics.median(random_)
    med_events = statistics.median(events_per_s)
    rows = [
        ("simulated games/s, 4 x normal", f"{med_normal:.0f}", f"{min(normal):.0f}-{max(normal):.0f}",
         f"{med_normal / GOAL_GAMES_PER_S:.2f}x the goal of {GOAL_GAMES_PER_S:.0f}"),
        ("simulated games/s, 4 x random", f"{med_random:.0f}", f"{min(random_):.0f}-{max(random_):.0f}",
         f"{med_random / med_normal:.2f}x normal bots"),
        ("engine replay, events/s", f"{med_events:,.0f}", f"{min(events_per_s):,.0f}-{max(events_per_s):,.0f}",
         f"{1e6 / med_events:.2f} us per event"),
        (f"seat 0 normal vs 3 random, win rate ({args.winrate_games} games)", f"{100 * win_rate:.1f}%", "-",
         f"{win_rate / 0.25:.2f}x a fair 25%; goal {100 * GOAL_WIN_RATE:.0f}%"),
    ]  # fmt: skip
    header = ("figure", "median", "range", "comparison")
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(4)]
    print(f"bandit-lan engine benchmark: Python {platform.python_version()}, {platform.system()}, {pinned}, "
          f"{args.runs} runs of {args.games} games, seed {args.seed}")  # fmt: skip
    print()
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    ok = med_normal >= GOAL_GAMES_PER_S and win_rate >= GOAL_WIN_RATE
    print()
    print("goals met" if ok else "GOALS NOT MET")
    if args.json:
        print(
            json.dumps(
                {
                    "python": platform.python_version(),
                    "pinned": pinned,
                    "runs": args.runs,
                    "games_per_run": args.games,
                    "games_per_s_normal": {"median": round(med_normal, 1), "runs": [round(x, 1) for x in normal]},
                    "games_per_s_random": {"median": round(med_random, 1), "runs": [round(x, 1) for x in random_]},
                    "ratio_to_goal": round(med_normal / GOAL_GAMES_PER_S, 3),
                    "engine_events_per_s": {"median": round(med_events), "events": replay[0][1]},
                    "win_rate_normal_vs_random": {"games": args.winrate_games, "seat0": round(win_rate, 4)},
                    "goals_met": ok,
                },
                separators=(",", ":"),
            )
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
