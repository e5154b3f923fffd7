"""`bandit-lan tables`: list the tables advertised on the LAN (DNS-SD over mDNS)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys

import trio

from cli.argtypes import seconds
from cli.tui.canvas import pad, text_width, wrap
from cli.lobby_common import add_interface_option, say, tell
from p2p.discovery import TableAd, browse
from p2p.identity import short_id

LISTED_WHILE_OPEN = "A table is listed while it waits for players, no longer once its game has begun."
"""Why a table the players know of may not be found: its game began (nobody joins it then)."""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("tables", help="list the tables on the LAN",
                              description="List the tables advertised on the LAN.")
    p.add_argument("--timeout", type=seconds, default=3.0, metavar="S", help="how long to listen (default 3 s)")
    p.add_argument("--json", action="store_true", help="print one JSON array on the last line")
    add_interface_option(p)
    p.set_defaults(func=run)


def render(tables: list[TableAd], width: int | None = None) -> list[str]:
    """The listing, its columns lined up in terminal cells (a CJK character takes two);
    narrower than its columns (`width`, a terminal's), one table after the other, a line
    for each thing (wrapped at word breaks where even that is too long: a long table or host
    name), so that no address or fingerprint is broken where the terminal wraps."""
    if not tables:
        return [f"No tables found on the LAN. {LISTED_WHILE_OPEN}"]
    rows = [("TABLE", "HOST", "SEATS", "FREE", "CODE", "ADDRESS", "FINGERPRINT", "")]
    for t in tables:
        where = f"{t.addresses[0]}:{t.port}" if t.addresses else f"?:{t.port}"
        other = "" if t.compatible else f"another bandit-lan (protocol {t.proto}): cannot join"
        rows.append((t.table, t.host, str(t.seats), str(t.free), "yes" if t.code else "", where,
                     short_id(t.fingerprint), other))
    widths = [max(text_width(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(pad(cell, w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    if width is None or max(text_width(line) for line in lines) <= width:
        return lines
    blocks: list[str] = []
    for name, host, seats, free, code, where, fingerprint, other in rows[1:]:
        things = [f"host {host}, {free} of {seats} seats free" + (", a code is needed" if code else ""),
                  f"address {where}", f"fingerprint {fingerprint}", *other.replace(": ", ":\n").splitlines()]
        blocks += wrap(name, width) + [f"  {part}" for thing in things for part in wrap(thing, max(1, width - 2))] + [""]
    return blocks[:-1]


def run(args: argparse.Namespace) -> int:
    try:
        tables = trio.run(lambda: browse(args.timeout, interfaces=args.interfaces))
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        say(f"bandit-lan: cannot use the network for discovery: {exc}")
        return 1
    if args.json:
        tell(json.dumps([t.to_json() for t in tables]), sys.stdout)
    else:
        columns = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        for line in render(tables, columns):
            say(line)
    return 0
