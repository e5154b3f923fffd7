"""`bandit-lan simulate`: play engine-only games between bots and summarise them."""

from __future__ import annotations

import argparse
import json
import sys
import time

from cli.argtypes import TARGET_RANGE, count, integer, players, skills_file, target
from cli.lobby_common import say, tell
from engine.bots import BOTS
from engine.errors import EngineError, SkillsError
from engine.simulator import Summary, simulate
from engine.skills import DEFAULT_SKILLS, MAX_PLAYERS, MIN_PLAYERS, Skills


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="play games between bots on this machine (no network)",
        description=(
            "Play whole games of Bandit between bots, with a seeded shuffle standing in for "
            "the joint encrypted deck, and print who won and how the games went. The same "
            "arguments always give the same games."
        ),
    )
    parser.add_argument("--players", type=players, default=4, metavar="N",
                        help=f"players per game, {MIN_PLAYERS}-{MAX_PLAYERS} (default 4)")
    parser.add_argument("--games", type=count, default=20, metavar="N", help="number of games, 1 or more (default 20)")
    parser.add_argument("--seed", type=integer, default=0, help="seed of the shuffles and bot choices (default 0)")
    parser.add_argument(
        "--bots",
        default="normal",
        help=f"bot per seat, comma separated, or one for all seats; known: {', '.join(sorted(BOTS))} (default normal)",
    )
    parser.add_argument("--target", type=target, default=100,
                        help=f"a game ends when a total reaches this, {TARGET_RANGE} (default 100)")
    parser.add_argument("--skills", type=skills_file, metavar="FILE", help="a TOML skills table replacing the default deck")
    parser.add_argument("--json", action="store_true",
                        help="also print the summary as one JSON object on the last line (per-seat lists: seat 1 first)")
    parser.set_defaults(func=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.parser
    names = [name.strip() for name in args.bots.split(",") if name.strip()]
    unknown = [name for name in names if name not in BOTS]
    if unknown or not names:
        parser.error(f"--bots: unknown bot(s) {', '.join(map(repr, unknown)) or '(none given)'}; known: {', '.join(sorted(BOTS))}")
    if len(names) not in (1, args.players):
        parser.error(f"--bots: name one bot for all seats or exactly {args.players} bots, not {len(names)}")
    skills = args.skills.skills if args.skills else DEFAULT_SKILLS
    try:
        skills.check_players(args.players)
    except SkillsError as exc:
        parser.error(str(exc))

    started = time.perf_counter()
    try:
        summary = simulate(args.players, args.games, args.seed, names, skills, args.target)
    except EngineError as exc:  # a bug or a stalled bot: say so plainly
        tell(f"bandit-lan simulate: {exc}", sys.stderr)
        return 1
    elapsed = time.perf_counter() - started
    games_per_s = args.games / elapsed if elapsed > 0 else float("inf")
    say(render(summary, skills, games_per_s))
    if args.json:
        tell(json.dumps(summary.to_json(games_per_s), separators=(",", ":")), sys.stdout)  # (whole: for scripts)
    return 0


def render(summary: Summary, skills: Skills, games_per_s: float) -> str:
    """The human-readable report of a run."""
    deck = "default deck" if skills == DEFAULT_SKILLS else f"custom deck of {skills.size} cards"
    plural = "s" if summary.games != 1 else ""
    lines = [
        f"Bandit: {summary.games} game{plural}, {summary.players} players, to {summary.target} points, "
        f"{deck}, seed {summary.seed}",
        "",
    ]
    header = ("seat", "bot", "wins", "win rate", "mean total", "snaps won/tried", "Bandit calls (got -10)")
    rows = []
    whole = all(w == int(w) for w in summary.wins)
    for seat in range(summary.players):
        rows.append(
            (
                str(seat + 1),  # (as players count seats; the JSON's lists are in seat order)
                summary.bots[seat],
                f"{summary.wins[seat]:.0f}" if whole else f"{summary.wins[seat]:.2f}",
                f"{100 * summary.win_rate[seat]:.1f}%",
                f"{summary.mean_total[seat]:.1f}",
                f"{summary.snaps_succeeded[seat]}/{summary.snaps_attempted[seat]}",
                f"{summary.calls[seat]} ({summary.good_calls[seat]})",
            )
        )
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]
    left = {1}  # the bot name reads best left-aligned; numbers right-aligned

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    lines.append(line(header))
    lines.append("  ".join("-" * w for w in widths))
    lines += [line(r) for r in rows]
    attempted = sum(summary.snaps_attempted)
    succeeded = sum(summary.snaps_succeeded)
    share = f" ({100 * succeeded / attempted:.0f}% won)" if attempted else ""
    lines += [
        "",
        f"rounds per game: {summary.mean_rounds:.2f}   turns per round: {summary.mean_turns_per_round:.1f}   "
        f"snaps: {attempted} tried{share}",
        *([] if whole else ["(a shared win counts 1/k to each of its k winners)"]),
        f"speed: {games_per_s:.0f} games/s",
    ]
    return "\n".join(lines)
