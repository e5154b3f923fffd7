"""Arrival benchmark: what one frame arriving costs a peer, end to end (§4, §7).

    python bench/arrival.py [--n 2000] [--warm 200] [--runs 3] [--json]
    python bench/arrival.py --callgrind [--n 300] [--json]

Theory of operation
-------------------
Two seats of a table, each with its own mesh (§4.1) and its own order (§7), run in this
one process, linked by mutual TLS over loopback. Seat 0 sends a snap claim (§9.5) with
its §7.1 header, signed, as a table peer sends content; seat 1's link reads it (TLS,
framing, strict decoding, schemas, the signature), hands it to seat 1's order, which
takes and delivers it, and seat 1 answers with its signed ack (built, signed, encoded,
encrypted and written at once). Seat 0 takes the ack on its signer's own link (its
signature waits, §4.5), its order notes the promise, which makes the claim stable, and
delivers it; then seat 0 sends the next claim. Each side handles what arrives as a
table peer does (`p2p.peer`): the link's task takes frames into the order, and a work
task, woken by them, sends what is due (here: the ack, or the next claim).

So each round trip is two arrivals, a claim and an ack, and each pays the whole path of
one frame at a peer: the wake-up, the TLS read, framing, decoding and schema checks, the
signature (the claim's), the order's bookkeeping, and the answer it causes, built,
signed, encoded, encrypted and written. What it does not pay is the table's own work
(the machine, the log, the engine): that is `bench/order.py`'s and `bench/snap.py`'s.

Two figures:

- `us_per_arrival`: CPU time (`time.process_time`, the kernel's loopback work for both
  sides included) per arrival over `--n` round trips after `--warm`, median of
  `--runs`. It moves with whatever else the machine runs;
- `ir_per_arrival` (with `--callgrind`): instructions per arrival as valgrind's
  callgrind counts them, which do not. This script runs itself twice under callgrind,
  with `--n` and with `--n` / 3 round trips (one run each, same warm-up), and divides
  the difference of their totals by the difference of their arrivals, so that start-up
  and set-up cancel out. Repeatable to well under 1 %: the yardstick for changes to a
  frame's path. (Under valgrind a run is some 50 times slower.)

With --json the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.order import claim  # noqa: E402
from bench.transport import linked_meshes  # noqa: E402
from p2p import quiet  # noqa: E402
from p2p.identity import load_or_create_identity  # noqa: E402
from p2p.order import Orderer  # noqa: E402
from p2p.peer import table_schemas  # noqa: E402
from p2p.signing import SignedMessage, signed_message  # noqa: E402
from p2p.transport import Mesh, MeshEvent, Received  # noqa: E402

GAME = bytes(range(32))


class Seat:
    """One seat's mesh and order, driven as `p2p.peer.TablePeer` drives them: frames are
    taken into the order by the link's task (`on_events`), what is due is sent by `work`."""

    def __init__(self, mesh: Mesh, orderer: Orderer, peer: bytes) -> None:
        self.mesh, self.orderer, self.peer = mesh, orderer, peer
        self.arrived = trio.Event()
        self.delivered = 0

    def on_events(self, events: list[MeshEvent]) -> None:
        now = trio.current_time()
        for event in events:
            if isinstance(event, Received) and isinstance(event.message, SignedMessage):
                self.orderer.receive(event.message, now, relayed=event.peer != event.message.sender)
        if self.orderer.has_work():
            self.arrived.set()

    async def next_arrival(self) -> None:
        await self.arrived.wait()
        self.arrived = trio.Event()
        now = trio.current_time()
        if self.orderer.ack_due():
            self.broadcast(self.orderer.ack(now))
        self.delivered += sum(1 for _ in self.orderer.deliveries())

    def broadcast(self, envelope: SignedMessage) -> None:
        self.mesh.broadcast_frame(envelope.wire)


async def round_trips(root: Path, warm: int, n: int) -> float:
    """CPU seconds of `n` round trips (a claim and its ack) after `warm` of them."""
    a = load_or_create_identity(root / "a")
    b = load_or_create_identity(root / "b")
    seats = (a.peer_id, b.peer_id)
    async with linked_meshes(a, b, table_schemas()) as (ma, mb):
        sender = Seat(ma, Orderer(seats=seats, me=0, game=GAME, sign=partial(signed_message, a)), b.peer_id)
        answerer = Seat(mb, Orderer(seats=seats, me=1, game=GAME, sign=partial(signed_message, b)), a.peer_id)
        ma.attach(sender.on_events)
        mb.attach(answerer.on_events)
        total = warm + n

        async def answer() -> None:
            while answerer.delivered < total:
                await answerer.next_arrival()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(answer)
            quiet.settle()  # (as a table does before play: nothing is timed before)
            started = 0.0
            for i in range(total):
                if i == warm:
                    started = time.process_time()
                sender.broadcast(sender.orderer.send(claim(i), trio.current_time()))
                while sender.delivered <= i:
                    await sender.next_arrival()
            elapsed = time.process_time() - started
        ma.detach()
        mb.detach()
        quiet.release()
    return elapsed


def timed(warm: int, n: int) -> float:
    """µs of CPU per arrival (two per round trip)."""
    with tempfile.TemporaryDirectory(prefix="bandit-arrival-bench-") as root:
        return trio.run(round_trips, Path(root), warm, n) / (2 * n) * 1e6


def instructions(warm: int, n: int) -> int:
    """Total instructions callgrind counts for a run of this script with `n` round trips."""
    with tempfile.TemporaryDirectory(prefix="bandit-arrival-callgrind-") as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
             "--warm", str(warm), "--n", str(n), "--runs", "1"],
            check=True, capture_output=True, env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        summary = re.search(r"^(?:summary|totals):\s*(\d+)", out.read_text(), re.MULTILINE)
        assert summary is not None, "no total in callgrind's output"
        return int(summary.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=2000, help="round trips timed (two arrivals each)")
    parser.add_argument("--warm", type=int, default=200, help="round trips before the timing starts")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--callgrind", action="store_true", help="count instructions under valgrind instead")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.n < 3:
        parser.error("--n is at least 3")
    result: dict[str, Any] = {"n": args.n, "warm": args.warm}
    if args.callgrind:
        if shutil.which("valgrind") is None:
            parser.error("--callgrind needs valgrind")
        small = args.n // 3
        big_ir, small_ir = instructions(args.warm, args.n), instructions(args.warm, small)
        result["ir_per_arrival"] = round((big_ir - small_ir) / (2 * (args.n - small)))
        print(f"{result['ir_per_arrival']} instructions per arrival (callgrind, {args.n} and {small} round trips "
              f"after {args.warm})")
    else:
        runs = [timed(args.warm, args.n) for _ in range(args.runs)]
        result["runs"] = args.runs
        result["us_per_arrival"] = round(statistics.median(runs), 2)
        print(f"{result['us_per_arrival']} µs of CPU per arrival (median of {args.runs} runs of {args.n} round trips "
              f"after {args.warm}: {', '.join(f'{r:.2f}' for r in runs)})")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
