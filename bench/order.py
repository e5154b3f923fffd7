"""Order benchmark: what one received message costs a peer's Python, hot (§4.5, §7).

    python bench/order.py [--seats 6] [--messages 5000] [--runs 5] [--json]

One seat of a table takes, in a loop, the frames the others sent it: each frame's bytes
are split and decoded strictly (§4.2, §4.3), its schema checked, its signature verified
(not for an ack on its signer's own link, §4.5), and the message taken into the order
(§7: chain, stamp, promises, heads compared across peers). Two figures, medians of
`--runs` runs of `--messages` messages each:

- `content_us`: a snap claim (§9.5) of another seat, with its §7.1 header;
- `ack_us`: that seat's neighbour's acknowledgement of it (§7.1), as it comes on the
  neighbour's own link.

No sockets, no TLS, no scheduler, one process: this is the floor a message costs in
the interpreter with its caches warm. The snap benchmark's peers pay it too, plus
TLS, trio and the kernel, in six processes that take turns on the CPUs (README, "A
whole game, and snap races"). With --json the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from p2p.identity import load_or_create_identity  # noqa: E402
from p2p.order import Orderer  # noqa: E402
from p2p.peer import table_schemas  # noqa: E402
from p2p.signing import SignedMessage, open_signed, signed_message  # noqa: E402
from p2p.transport import LINK_AUTHENTICATED  # noqa: E402
from p2p.wire import FrameDecoder, encode_frame  # noqa: E402

GAME = bytes(range(32))
SCHEMAS = table_schemas()


def claim(i: int) -> dict[str, Any]:
    return {"type": "snap", "v": 1, "round": 1, "top": i % 52, "owner": 1, "slot": i % 4, "seen": []}


def table(root: Path, seats: int) -> tuple[list[Orderer], dict[bytes, bytes]]:
    """A table whose every seat has sent one message that every other seat holds, and
    the seats' public keys."""
    identities = [load_or_create_identity(root / f"seat{i}") for i in range(seats)]
    ids = [identity.peer_id for identity in identities]
    keys = {identity.peer_id: identity.certificate.public_key for identity in identities}
    orderers = [Orderer(seats=ids, me=i, game=GAME, sign=partial(signed_message, identity))
                for i, identity in enumerate(identities)]
    for i, sender in enumerate(orderers):
        first = sender.send(claim(i), 0.0)
        for j, other in enumerate(orderers):
            if j != i:
                other.receive(arrived(first, keys), 0.0)
    return orderers, keys


def arrived(envelope: SignedMessage, keys: dict[bytes, bytes]) -> SignedMessage:
    """The message as a receiver has it: opened afresh from its bytes (§4.5)."""
    return open_signed(envelope.frame(), keys, SCHEMAS)


def run(seats: int, messages: int) -> tuple[float, float]:
    """(µs a claim costs seat 0, µs an ack costs it), each over `messages` messages."""
    with tempfile.TemporaryDirectory(prefix="bandit-order-bench-") as root:
        orderers, keys = table(Path(root), seats)
        me, sender, neighbour = orderers[0], orderers[1], orderers[2]
        claims, acks = [], []
        for i in range(messages):  # the neighbour takes each claim and acknowledges it
            envelope = sender.send(claim(i), float(i))
            neighbour.receive(arrived(envelope, keys), float(i))
            claims.append(encode_frame(envelope.frame()))
            acks.append(encode_frame(neighbour.ack(float(i)).frame()))

        def take(frames: list[bytes], link: bytes) -> float:
            decoder = FrameDecoder()
            start = time.perf_counter()
            for data in frames:
                decoder.feed(data)
                frame = decoder.next_frame()
                assert frame is not None
                message = open_signed(frame, keys, SCHEMAS, link=link, link_authenticated=LINK_AUTHENTICATED)
                me.receive(message, 1e6)
            return (time.perf_counter() - start) / len(frames) * 1e6

        return take(claims, sender.seats[sender.me]), take(acks, neighbour.seats[neighbour.me])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not 3 <= args.seats <= 6:
        parser.error("--seats is 3 to 6 (a claim, its sender and a neighbour that acknowledges it)")
    results = [run(args.seats, args.messages) for _ in range(args.runs)]
    content = statistics.median(r[0] for r in results)
    ack = statistics.median(r[1] for r in results)
    print(f"{args.seats} seats, {args.messages} messages, median of {args.runs} runs: a claim {content:.1f} µs, "
          f"an ack {ack:.1f} µs (frame bytes to the order, hot, one process)")
    if args.json:
        print(json.dumps({"seats": args.seats, "messages": args.messages, "runs": args.runs,
                          "content_us": round(content, 1), "ack_us": round(ack, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
