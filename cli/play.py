"""`bandit-lan play`: a game against bots on this machine, every bot a real peer.

You host a table on 127.0.0.1; each bot is a separate `bandit-lan join --bot` process
with its own identity, its own TLS links to every other seat and its own fairness log.
Nothing is simulated: the shuffle, the reveals, the order and the logs are the same as
at a LAN party.
"""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path

from cli.argtypes import PLAY_BOTS_RANGE, TARGET_RANGE, NewTableOption, add_grace_option, play_bots, target
from cli.bots import BotTable, bot_names, bot_seats, seat_with_bots
from cli.folders import USAGE_ERROR, state_unwritable
from cli.game import (
    SeatBook, add_game_options, bot_logs_beside, bot_without_a_terminal, full_speed, log_unwritable, play_seat, playing_as, report,
    seat_log_path,
)
from cli.lobby_common import add_identity_options, complain, load_identity, player_name, remember_name, say
from cli.resume import offer_resume_first, say_if_last_game_goes_on
from cli.stopping import run_until_stopped
from p2p.identity import IdentityError, default_state_dir
from p2p.lobby_runner import host_table
from p2p.peer import table_schemas
from p2p.roster import TableRules
from p2p.transport import open_mesh


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("play", help="play against bots on this machine",
                              description="Play Bandit against bots on this machine. Every bot is a real peer "
                                          "(its own process, keys, TLS links and fairness log).")
    p.add_argument("--bots", type=play_bots, default=3, metavar="N", action=NewTableOption,
                   help=f"number of bot opponents, {PLAY_BOTS_RANGE} (default 3)")
    p.add_argument("--target", type=target, default=100, action=NewTableOption,
                   help=f"end the game when a total reaches this, {TARGET_RANGE} (default 100)")
    add_grace_option(p)
    p.add_argument("--log-dir", type=Path, metavar="DIR",
                   help="where to write every seat's log (default: logs/ in the --state-dir)")
    add_identity_options(p, state_help="where your identity key, the bots', the logs (in logs/) and unfinished games "
                                       "live (default: the user data directory, ~/.local/share/bandit-lan on Linux)")
    p.add_argument("--resume", action="store_true",
                   help="continue the game you were playing when this program stopped (same --state-dir): the bots "
                        "wait for you within the grace period")
    add_game_options(p, bot_flag=False, seats_bots=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.resume:  # (as `join --resume`: this seat listens on 127.0.0.1 and needs no lobby)
        from cli.resume import refuse_new_table, run_resume

        return refuse_new_table(args) or run_resume(argparse.Namespace(**vars(args), bind="127.0.0.1", log=None, quiet=False, bot=False,
                                             lobby_only=False))
    bot_without_a_terminal(args)
    rules = TableRules(target=args.target, grace_s=args.grace)  # (in range: `argtypes.target`, `grace_seconds`)
    if state_unwritable(args):
        return USAGE_ERROR
    try:
        identity = load_identity(args)
    except IdentityError as exc:
        complain(str(exc))
        return 1
    state_dir = args.state_dir or default_state_dir()
    log_dir = args.log_dir or state_dir / "logs"
    if log_unwritable(state_dir, None, log_dir):
        return USAGE_ERROR
    if (back := offer_resume_first(args, "play", resume=run)) is not None:
        return back
    remember_name(args)
    say_if_last_game_goes_on(args, identity.peer_id, "starting a new game")
    name = player_name(args)

    async def main() -> int:
        async with open_mesh(identity, table_schemas(), bind="127.0.0.1", port=0) as mesh:
            table = BotTable("127.0.0.1", mesh.port, identity.peer_id.hex(), "127.0.0.1", state_dir, log_dir, args.seed,
                             full_speed=full_speed(args))  # (a person's pace unless chosen: R6, R10)
            async with bot_seats(bot_names(args.bots, name), table, every_bot_needed=True) as bots:
                if not args.json:  # (a person's too: the screen opens as the game begins, bots being started first)
                    say(f"Seating you and {args.bots} bot{'s' if args.bots != 1 else ''} at a table on 127.0.0.1 "
                        f"(game to {args.target})...")
                with SeatBook(mesh, args) as book:
                    result = await seat_with_bots(bots, partial(host_table, mesh, name=name, table="A game on this machine",
                                                                seats=args.bots + 1, rules=rules, on_signing=book.sign))
                    if result is None:
                        return 1
                    log = seat_log_path(result, args)
                    beside = bot_logs_beside(log, result.game_id, [m.name for m in result.roster.members])
                    summary = await play_seat(mesh, result, identity, args, log, seated=book.seated, beside=beside,
                                              playing_as=playing_as(name, args))
                logs = await bots.logs_after(summary.log_path)
            return report(summary, args, logs)

    return run_until_stopped(main)
