"""Transport benchmark: signed-message throughput and lobby join latency on loopback.

    python bench/transport.py [--runs 5] [--messages 5000] [--json]

msgs_per_s: a sender signs N typical game messages (a snap intent with its Lamport
header, ~150-byte body) and sends them over mutual TLS; the receiver's mesh verifies
each signature and checks each schema; timed from the first send to the last delivery.
The comparison, measured in the same run, is the same traffic as plain (unsigned)
frames: the ratio shows what signing and verifying cost. Both peers run in this one
process, so each message pays for both sides on one core.

split_msgs_per_s: the same signed traffic with the receiver in a process of its own, as
between two machines: each side pays only its own work (the sender signs and sends, the
receiver checks), on a core of its own if the machine has two. Timed from the first
send until the receiver's answer to the last message arrives.

connect_ms: a fresh joiner opens the front door (TCP + TLS 1.3), says hello, is
welcomed, and has its mutual-TLS mesh link from the host up: two-seat table, start,
roster signed by both.

Medians of --runs runs. With --json the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from multiprocessing.connection import Connection
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from p2p import lobby  # noqa: E402
from p2p.identity import Identity, load_or_create_identity  # noqa: E402
from p2p.lobby_runner import host_table, join_table  # noqa: E402
from p2p.schema import PEER_ID, Bin, Int, Message, OneOf, Schemas  # noqa: E402
from p2p.signing import sign, signed_frame  # noqa: E402
from p2p.transport import LinkUp, Mesh, Received, Sent, link_schemas, open_mesh  # noqa: E402

SNAP = Message("bench.snap", 1, "§9", {
    "from": PEER_ID, "lamport": Int(0), "seq": Int(0), "prev": Bin(size=32), "game": Bin(size=32),
    "slot": Int(0, 7), "target": Int(0, 5), "claim": OneOf(frozenset({"own", "other"})),
})
PLAIN = Message("bench.plain", 1, "§9", {"body": Bin(max_len=1024)})


def snap(peer: bytes, i: int) -> dict:
    return {"type": "bench.snap", "v": 1, "from": peer, "lamport": 1000 + i, "seq": i, "prev": bytes(32),
            "game": bytes(range(32)), "slot": i % 8, "target": i % 4, "claim": "own"}


async def send_paced(mesh: Mesh, peer: bytes, message: dict) -> None:
    """`Mesh.send_paced` for a run that counts every message: a message the link did not
    take (it ended) ends the run, which would otherwise wait for it for good."""
    sent = await mesh.send_paced(peer, message)
    if sent is not Sent.TAKEN:
        raise RuntimeError(f"the link to the receiver ended during the run (a message was {sent.value}): no figure")


async def events(mesh, kind: type, count: int = 1) -> None:  # type: ignore[no-untyped-def]
    """Take `mesh`'s events until `count` of them were of `kind` (a link up, messages received)."""
    while count:
        if isinstance(await mesh.receive(), kind):
            count -= 1


@asynccontextmanager
async def linked_meshes(a: Identity, b: Identity, schemas: Schemas) -> AsyncIterator[tuple[Mesh, Mesh]]:
    """The meshes of `a` and `b` on loopback, `a` dialled to `b`, once their link is up
    at `b` (each has its `LinkUp` event waiting, or on its way)."""
    async with open_mesh(a, schemas, bind="127.0.0.1") as ma, open_mesh(b, schemas, bind="127.0.0.1") as mb:
        ma.set_table(bytes(32))
        mb.set_table(bytes(32))
        mb.expect(a.certificate)
        ma.expect(b.certificate, ("127.0.0.1", mb.port), dial=True)
        await events(mb, LinkUp)
        yield ma, mb


async def throughput(root: Path, n: int, signed: bool) -> float:
    a = load_or_create_identity(root / "a")
    b = load_or_create_identity(root / "b")
    async with linked_meshes(a, b, link_schemas(SNAP, PLAIN)) as (ma, mb):
        body_len = len(sign(a, snap(a.peer_id, 0))[0])
        t0 = time.perf_counter()

        async def send() -> None:
            for i in range(n):
                if signed:
                    body, sig = sign(a, snap(a.peer_id, i))
                    await send_paced(ma, b.peer_id, signed_frame(body, sig))
                else:
                    await send_paced(ma, b.peer_id, {"type": "bench.plain", "v": 1, "body": bytes(body_len)})

        async with trio.open_nursery() as nursery:
            nursery.start_soon(send)
            await events(mb, Received, n)
        return n / (time.perf_counter() - t0)


async def split_sender(root: Path, n: int, conn: Connection) -> float:
    """The sending half of `split_msgs_per_s`; the receiver runs `split_receiver` in a
    process of its own and answers the last message."""
    a = load_or_create_identity(root / "a")
    b = load_or_create_identity(root / "b")
    async with open_mesh(a, link_schemas(SNAP, PLAIN), bind="127.0.0.1") as ma:
        ma.set_table(bytes(32))
        port = await trio.to_thread.run_sync(conn.recv)
        ma.expect(b.certificate, ("127.0.0.1", port), dial=True)
        await events(ma, LinkUp)
        t0 = time.perf_counter()
        for i in range(n):
            body, sig = sign(a, snap(a.peer_id, i))
            await send_paced(ma, b.peer_id, signed_frame(body, sig))
        await events(ma, Received)
        return n / (time.perf_counter() - t0)


def split_receiver(root: Path, n: int, conn: Connection) -> None:
    """The receiving half: check `n` signed messages, then answer."""

    async def receive() -> None:
        a = load_or_create_identity(root / "a")
        b = load_or_create_identity(root / "b")
        async with open_mesh(b, link_schemas(SNAP, PLAIN), bind="127.0.0.1") as mb:
            mb.set_table(bytes(32))
            mb.expect(a.certificate)
            conn.send(mb.port)
            await events(mb, Received, n)
            mb.send(a.peer_id, {"type": "bench.plain", "v": 1, "body": b"done"})  # (closing says bye after it)

    trio.run(receive)


def split_throughput(root: Path, n: int) -> float:
    load_or_create_identity(root / "a")  # (made once, here: both processes load them)
    load_or_create_identity(root / "b")
    ours, theirs = multiprocessing.Pipe()
    receiver = multiprocessing.get_context("spawn").Process(target=split_receiver, args=(root, n, theirs))
    receiver.start()
    try:
        return trio.run(split_sender, root, n, ours)
    finally:
        receiver.join(30)
        if receiver.is_alive():
            receiver.kill()


async def connect(root: Path, run: int) -> float:
    host_id = load_or_create_identity(root / "host")
    guest_id = load_or_create_identity(root / f"guest{run}")
    schemas = link_schemas(*lobby.MESSAGES)
    async with open_mesh(host_id, schemas, bind="127.0.0.1") as hm, \
            open_mesh(guest_id, schemas, bind="127.0.0.1", hold_incoming=True) as gm:
        async with trio.open_nursery() as nursery:
            await nursery.start(lambda task_status: host_table(hm, name="host", table="bench", seats=2, task_status=task_status))
            t0 = time.perf_counter()
            await join_table(gm, [("127.0.0.1", hm.port)], name="guest", expect_host=host_id.peer_id)
            elapsed = time.perf_counter() - t0
            nursery.cancel_scope.cancel()
    return elapsed * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        signed = [trio.run(throughput, root / f"s{i}", args.messages, True) for i in range(args.runs)]
        plain = [trio.run(throughput, root / f"p{i}", args.messages, False) for i in range(args.runs)]
        split = [split_throughput(root / f"x{i}", args.messages) for i in range(args.runs)]
        connects = [trio.run(connect, root, i) for i in range(args.runs)]
        a = load_or_create_identity(root / "size")
        body = len(sign(a, snap(a.peer_id, 12345))[0])
    result = {
        "msgs_per_s": round(statistics.median(signed)),
        "plain_msgs_per_s": round(statistics.median(plain)),
        "signed_over_plain": round(statistics.median(signed) / statistics.median(plain), 3),
        "split_msgs_per_s": round(statistics.median(split)),
        "split_over_one": round(statistics.median(split) / statistics.median(signed), 3),
        "connect_ms": round(statistics.median(connects), 2),
        "body_bytes": body,
        "runs": args.runs,
        "messages": args.messages,
    }
    print(f"{'figure':<22}{'median':>12}  {'goal':>10}  runs")
    print(f"{'msgs_per_s (signed)':<22}{result['msgs_per_s']:>12}  {'>= 5000':>10}  {[round(x) for x in signed]}")
    print(f"{'msgs_per_s (plain)':<22}{result['plain_msgs_per_s']:>12}  {'':>10}  {[round(x) for x in plain]}")
    print(f"{'split_msgs_per_s':<22}{result['split_msgs_per_s']:>12}  {'>= 5000':>10}  {[round(x) for x in split]}")
    print(f"{'connect_ms':<22}{result['connect_ms']:>12}  {'<= 100':>10}  {[round(x, 1) for x in connects]}")
    print(f"signed body: {body} bytes; signed/plain throughput ratio {result['signed_over_plain']}")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
