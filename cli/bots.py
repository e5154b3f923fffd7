"""Bot seats as real peers, for `play` and `host --bots`.

Each bot is a `bandit-lan join --bot` process of its own, with its own
identity (kept under the state folder, one per bot), its own TLS links to every other
seat and its own fairness log: nothing about a bot's seat is simulated. It dials the
host at the address the other players reach the host at, so the roster gives every
player an address of the bot that works for them (a player in a lower seat dials it,
and so does a resumed peer, §6.5, §11.3). A table code goes to the bot on its standard
input, never on its command line. A bot plays at a person's pace (`--bot`: it thinks
before each decision and snaps after a reaction time), so that the people at its table
get their chance in the race for a snap (R6, R10); only a table whose host chose full
speed (a `--headless` typed: everyone there is a bot, as in the benchmarks,
`cli.game.full_speed`) has its bots play at full speed too.

A bot runs in a session of its own, away from the terminal of the person beside it: a
Ctrl-C, a Ctrl-Z or a closed window there is the person's alone (their seat leaves, or
is away), never the bots'. The bots end with their game: when the command that seated
them ends they are told to stop (they leave, §9.8), and when it vanishes (killed) they
wait for its seat as for any seat away, within the grace period, and then end (§11.3).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import trio

from cli.lobby_common import complain
from p2p.groups import lone_exception_unwrapped
from p2p.names import BOT_MARK, alike, bot_namesake

BOT_NAMES = ("Ada", "Bo", "Cy", "Dee", "Eve", "Fay")
"""One more than a table's bots can be, so one may give way to the first word of the
name of the player who seats them (people who join later may not take theirs,
`p2p.names.bot_namesake`)."""
BOT_WAIT = 30.0  # seconds the bots get to finish after our game ended
BOT_QUIET = 1.0  # seconds of that before the wait is worth a word

T = TypeVar("T")


def bot_names(count: int, player: str) -> list[str]:
    """`play` and `host --bots`: "Ada (bot)", "Bo (bot)", …, `count` of them, none sharing
    its first word with `player`'s name ("Bo" or "Bo Lee": names look alike as §6.4 says,
    `bot_namesake`), nor named like it (a `player` that reads as a bot's): that one gives way."""
    return [named for named in (f"{n} {BOT_MARK}" for n in BOT_NAMES)
            if not (alike(player, named) or bot_namesake(player, [named]))][:count]


@dataclass(frozen=True)
class BotTable:
    """Where the bots sit down and what they are told."""

    host: str  # the host's address, as the other players reach it
    port: int
    fingerprint: str  # the host's peer id (hex): the bots pin it
    bind: str  # the address the bots listen on
    state_dir: Path
    log_dir: Path
    seed: int = 0
    code: str | None = None
    lobby_only: bool = False
    full_speed: bool = False  # the host chose `--headless`: the bots play as fast as they can too


@dataclass
class BotSeats:
    """The bots of one table: their processes, once they are done.

    Until `seated()` is called (the lobby is over) a bot process that fails has failed
    to sit down: its reason goes at once to `lost`, so that a host can say so, and a
    table that waits for every bot (`play`) can give up instead of waiting forever."""

    names: Sequence[str]
    every_bot_needed: bool = False  # nobody else will come (`play`): one lost bot ends the table
    done: list[subprocess.CompletedProcess[bytes] | None] = field(default_factory=list)
    _all_done: trio.Event = field(default_factory=trio.Event)
    _seated: bool = False
    _lost: tuple[trio.MemorySendChannel[str], trio.MemoryReceiveChannel[str]] = field(
        default_factory=lambda: trio.open_memory_channel[str](math.inf))

    @property
    def lost(self) -> trio.MemoryReceiveChannel[str]:
        """Why each bot that ended before the game began did so, as it happens."""
        return self._lost[1]

    def seated(self) -> None:
        """The lobby is over: from now on a bot that ends has ended its game."""
        self._seated = True

    def ended(self, i: int, completed: subprocess.CompletedProcess[bytes]) -> None:
        self.done[i] = completed
        if not self._seated and completed.returncode != 0:  # (a `--lobby-only` bot's work ends with the lobby)
            then = "" if self.every_bot_needed else "; its seat is free for a player"
            self._lost[0].send_nowait(f"{self.label(i)} could not sit down ({self.failure(i)}){then}")
        if all(d is not None for d in self.done):
            self._all_done.set()

    async def finish(self) -> None:
        """Give the bots `BOT_WAIT` seconds to end their game (they see it end as we do,
        unless the end cannot be ordered: a seat is away); if they take longer than a
        moment, say what the wait is for."""
        with trio.move_on_after(BOT_WAIT):
            with trio.move_on_after(BOT_QUIET):
                await self._all_done.wait()
            if not self._all_done.is_set():
                complain(f"waiting for the bots to end their game (at most {BOT_WAIT - BOT_QUIET:.0f} s more)…")
                await self._all_done.wait()

    async def logs_after(self, own: Path) -> list[Path]:
        """Once the bots are done: `own` (the log of the seat that seated them), then theirs."""
        await self.finish()
        return [own, *self.logs()]

    def log(self, i: int) -> Path | None:
        """Bot `i`'s log, from the JSON line it printed at its game's end."""
        completed = self.done[i]
        for line in reversed(completed.stdout.decode(errors="replace").splitlines() if completed else []):
            try:
                return Path(json.loads(line)["log"])
            except (ValueError, KeyError, TypeError):
                continue
        return None

    def failure(self, i: int) -> str:
        """How bot `i`'s process ended, in its own last words."""
        completed = self.done[i]
        if completed is None:
            return "still running"
        tail = completed.stderr.decode(errors="replace").strip().splitlines()[-3:]
        return f"exited with status {completed.returncode}: {' / '.join(tail) or 'no output'}"

    def label(self, i: int) -> str:
        name = self.names[i]
        return name if name.endswith(BOT_MARK) else f"bot {name}"

    def logs(self) -> list[Path]:
        """Each bot's log; a bot that failed (or is not done) is reported."""
        logs: list[Path] = []
        for i in range(len(self.names)):
            path = self.log(i)
            if path is not None:
                logs.append(path)
            elif self.done[i] is None:
                complain(f"{self.label(i)} did not finish in time")
            else:
                complain(f"{self.label(i)} {self.failure(i)}")
        return logs


def bot_command(i: int, name: str, table: BotTable) -> list[str]:
    return [
        sys.executable, "-m", "cli", "join", "--peer", f"{table.host}:{table.port}", "--fingerprint", table.fingerprint,
        "--bot-name", name, "--bot", *(["--headless"] if table.full_speed else []), "--quiet",
        "--seed", str(table.seed), "--bind", table.bind,
        "--state-dir", str(table.state_dir / "bots" / f"bot{i + 1}"), "--log-dir", str(table.log_dir), "--json",
        *(["--code", "-"] if table.code is not None else []), *(["--lobby-only"] if table.lobby_only else []),
    ]


@asynccontextmanager
async def bot_seats(names: Sequence[str], table: BotTable, *, every_bot_needed: bool = False) -> AsyncIterator[BotSeats]:
    """Start one bot process per name, joining `table`; leaving the block stops any
    that are still running (a bot told to stop leaves its table, §9.8)."""
    seats = BotSeats(names, every_bot_needed, [None] * len(names))
    if not names:
        seats._all_done.set()
    stdin = b"" if table.code is None else table.code.encode() + b"\n"
    async with trio.open_nursery() as nursery:

        async def run_bot(i: int) -> None:
            seats.ended(i, await trio.run_process(bot_command(i, names[i], table), stdin=stdin, start_new_session=True,
                                                  capture_stdout=True, capture_stderr=True, check=False))

        for i in range(len(names)):
            nursery.start_soon(run_bot, i)
        yield seats
        nursery.cancel_scope.cancel()


async def seat_with_bots(bots: BotSeats, lobby: Callable[[], Awaitable[T]]) -> T | None:
    """Run `lobby`, saying at once why any bot could not sit down; a table that needs
    every bot gives up at the first (None). The bots are seated once `lobby` returns."""
    result: T | None = None
    with lone_exception_unwrapped():  # (the lobby's own error reaches the command as itself)
        async with trio.open_nursery() as nursery:

            async def tell_lost() -> None:
                async for why in bots.lost:
                    complain(why)
                    if bots.every_bot_needed:
                        nursery.cancel_scope.cancel()

            async def run_lobby() -> None:
                nonlocal result
                result = await lobby()
                bots.seated()
                nursery.cancel_scope.cancel()

            nursery.start_soon(tell_lost)
            nursery.start_soon(run_lobby)
    return result
