"""`bandit-lan play`: a game against bots on this machine, every bot a real peer.

You host a table on 127.0.0.1; each bot is a separate `bandit-lan join --bot` process
with its own identity, its own TLS links to every other seat and its own fairness log.
Nothing is simulated: the shuffle, the reveals, the order and the logs are the same as
at a LAN party.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import trio

from cli.game import add_game_options, log_path_for, log_unwritable, play_seat, report
from cli.lobby_common import complain, load_identity, player_name, say
from cli.stopping import run_until_stopped
from p2p.errors import ProtocolError
from p2p.identity import IdentityError, default_state_dir
from p2p.lobby_runner import host_table
from p2p.peer import table_schemas
from p2p.roster import MAX_SEATS, TableRules
from p2p.transport import open_mesh

BOT_NAMES = ("Ada", "Bo", "Cy", "Dee", "Eve")
BOT_WAIT = 30.0  # seconds the bots get to finish after our game ended


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("play", help="play against bots on this machine",
                              description="Play Bandit against bots on this machine. Every bot is a real peer "
                                          "(its own process, keys, TLS links and fairness log).")
    p.add_argument("--bots", type=int, default=3, help=f"number of bot opponents, 1-{MAX_SEATS - 1} (default 3)")
    p.add_argument("--target", type=int, default=100, help="end the game when a total reaches this (default 100)")
    p.add_argument("--log-dir", type=Path, metavar="DIR", help="where to write every seat's log (default: your data directory)")
    p.add_argument("--name", help="your name at the table (default: your login name)")
    p.add_argument("--state-dir", type=Path, metavar="DIR", help="where your identity and the bots' live")
    add_game_options(p, bot_flag=False)
    p.set_defaults(func=run)


def bot_command(i: int, port: int, host_fp: str, args: argparse.Namespace, state_dir: Path, log_dir: Path) -> list[str]:
    return [
        sys.executable, "-m", "cli", "join", "--peer", f"127.0.0.1:{port}", "--fingerprint", host_fp,
        "--name", BOT_NAMES[i], "--bot", "--headless", "--quiet", "--seed", str(args.seed),
        "--bind", "127.0.0.1", "--state-dir", str(state_dir / "bots" / f"bot{i + 1}"), "--log-dir", str(log_dir),
        "--json",
    ]


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.bots <= MAX_SEATS - 1:
        complain(f"--bots must be between 1 and {MAX_SEATS - 1}")
        return 2
    try:
        rules = TableRules(target=args.target)
    except ProtocolError as exc:
        complain(f"--target: {exc.reason}")
        return 2
    try:
        identity = load_identity(args)
    except IdentityError as exc:
        complain(str(exc))
        return 1
    state_dir = args.state_dir or default_state_dir()
    log_dir = args.log_dir or state_dir / "logs"
    if log_unwritable(state_dir, None, log_dir):
        return 2
    name = player_name(args)
    if name in BOT_NAMES[: args.bots]:
        name = f"{name} (you)"

    async def main() -> int:
        async with open_mesh(identity, table_schemas(), bind="127.0.0.1", port=0) as mesh:
            done: list[subprocess.CompletedProcess[bytes] | None] = [None] * args.bots
            all_done = trio.Event()
            async with trio.open_nursery() as nursery:

                async def run_bot(i: int) -> None:
                    cmd = bot_command(i, mesh.port, identity.peer_id.hex(), args, state_dir, log_dir)
                    done[i] = await trio.run_process(cmd, capture_stdout=True, capture_stderr=True, check=False)
                    if all(d is not None for d in done):
                        all_done.set()

                for i in range(args.bots):
                    nursery.start_soon(run_bot, i)
                if not args.json and args.headless:
                    say(f"Seating you and {args.bots} bots at a table on 127.0.0.1 (game to {args.target})...")
                result = await host_table(mesh, name=name, table="A game on this machine", seats=args.bots + 1,
                                          rules=rules)
                summary = await play_seat(mesh, result, identity, args, log_path_for(result, state_dir, None, log_dir))
                with trio.move_on_after(BOT_WAIT):
                    await all_done.wait()
                nursery.cancel_scope.cancel()
            logs = [summary.log_path]
            for i, completed in enumerate(done):
                logs += _bot_log(i, completed)
            return report(summary, args, logs)

    return run_until_stopped(main)


def _bot_log(i: int, completed: subprocess.CompletedProcess[bytes] | None) -> list[Path]:
    """A bot's log path, from the JSON line it printed; a bot that failed is reported."""
    if completed is None:
        complain(f"bot {BOT_NAMES[i]} did not finish in time")
        return []
    for line in reversed(completed.stdout.decode(errors="replace").splitlines()):
        try:
            return [Path(json.loads(line)["log"])]
        except (ValueError, KeyError, TypeError):
            continue
    tail = completed.stderr.decode(errors="replace").strip().splitlines()[-3:]
    complain(f"bot {BOT_NAMES[i]} exited with status {completed.returncode}: {' / '.join(tail) or 'no output'}")
    return []
