"""Bot seats as real peers, for `play` and `host --bots`.

Each bot is a `bandit-lan join --bot --headless` process of its own, with its own
identity (kept under the state folder, one per bot), its own TLS links to every other
seat and its own fairness log: nothing about a bot's seat is simulated. It dials the
host at the address the other players reach the host at, so the roster gives every
player an address of the bot that works for them (a player in a lower seat dials it,
and so does a resumed peer, §6.5, §11.3). A table code goes to the bot on its standard
input, never on its command line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import trio

from cli.lobby_common import complain

BOT_NAMES = ("Ada", "Bo", "Cy", "Dee", "Eve", "Fay")
"""One more than a table's bots can be, so one may give way to a player's own name."""
BOT_WAIT = 30.0  # seconds the bots get to finish after our game ended


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


@dataclass
class BotSeats:
    """The bots of one table: their processes, once they are done."""

    names: Sequence[str]
    done: list[subprocess.CompletedProcess[bytes] | None] = field(default_factory=list)
    _all_done: trio.Event = field(default_factory=trio.Event)

    async def finish(self) -> None:
        """Give the bots `BOT_WAIT` seconds to end their game (they see it end as we do)."""
        with trio.move_on_after(BOT_WAIT):
            await self._all_done.wait()

    async def logs_after(self, own: Path) -> list[Path]:
        """Once the bots are done: `own` (the log of the seat that seated them), then theirs."""
        await self.finish()
        return [own, *self.logs()]

    def logs(self) -> list[Path]:
        """Each bot's log, from the JSON line it printed; a bot that failed is reported."""
        logs: list[Path] = []
        for name, completed in zip(self.names, self.done):
            if completed is None:
                complain(f"bot {name} did not finish in time")
                continue
            for line in reversed(completed.stdout.decode(errors="replace").splitlines()):
                try:
                    logs.append(Path(json.loads(line)["log"]))
                    break
                except (ValueError, KeyError, TypeError):
                    continue
            else:
                tail = completed.stderr.decode(errors="replace").strip().splitlines()[-3:]
                complain(f"bot {name} exited with status {completed.returncode}: {' / '.join(tail) or 'no output'}")
        return logs


def bot_command(i: int, name: str, table: BotTable) -> list[str]:
    return [
        sys.executable, "-m", "cli", "join", "--peer", f"{table.host}:{table.port}", "--fingerprint", table.fingerprint,
        "--name", name, "--bot", "--headless", "--quiet", "--seed", str(table.seed), "--bind", table.bind,
        "--state-dir", str(table.state_dir / "bots" / f"bot{i + 1}"), "--log-dir", str(table.log_dir), "--json",
        *(["--code", "-"] if table.code is not None else []), *(["--lobby-only"] if table.lobby_only else []),
    ]


@asynccontextmanager
async def bot_seats(names: Sequence[str], table: BotTable) -> AsyncIterator[BotSeats]:
    """Start one bot process per name, joining `table`; leaving the block stops any
    that are still running (a bot told to stop leaves its table, §9.8)."""
    seats = BotSeats(names, [None] * len(names))
    if not names:
        seats._all_done.set()
    stdin = b"" if table.code is None else table.code.encode() + b"\n"
    async with trio.open_nursery() as nursery:

        async def run_bot(i: int) -> None:
            seats.done[i] = await trio.run_process(bot_command(i, names[i], table), stdin=stdin,
                                                   capture_stdout=True, capture_stderr=True, check=False)
            if all(d is not None for d in seats.done):
                seats._all_done.set()

        for i in range(len(names)):
            nursery.start_soon(run_bot, i)
        yield seats
        nursery.cancel_scope.cancel()
