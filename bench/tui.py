"""Terminal client benchmark: key press → redrawn screen, and your action on every peer's screen.

    python bench/tui.py [--runs 5] [--turns 8] [--peers 4] [--json]

A real table on loopback in this process: N peers with their own identities, mutual-TLS
links, joint encrypted shuffle and agreed order (`p2p.peer.TablePeer`), each keeping its
fairness log and its journal as a `bandit-lan` seat does. Seat 1 is played through the
real prompt_toolkit application of the client (keys written into a pipe input; an 80×24
VT100 output into memory); the other seats are played by the normal bot at full speed,
and each of them keeps the screen its client would show (`TableUi` + an 80×24 frame
drawn on every change).

key_ms      a key that changes only the screen (Space opens and closes the snap
            prompt, ? opens and closes help): from writing the key into the terminal's
            input until prompt_toolkit has written the redrawn frame (`after_render`).
draw_ms     x on your turn: until your screen shows the drawn card's value (the Draw is
            ordered and delivered, then the card is revealed to you with every other
            peer's decryption share and proof).
peers_ms    x and z: until every other peer's screen shows it (your drawn card in your
            hand, then the discarded card on the pile), frame drawn.

All peers share this process's one trio thread (plus the terminal's thread), so the
cross-peer figure is conservative: on a LAN party each peer has its own machine.
Figures are medians of the runs' medians, and the p95 of all samples. With --json the
last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # tests/live_support.py seats the in-process table

from engine import Phase  # noqa: E402
from cli.tui import run_client  # noqa: E402
from cli.tui.model import TableModel  # noqa: E402
from cli.tui.table_ui import Overlay, TableScene, TableUi  # noqa: E402
from cli.tui.terminal import Screen, open_terminal  # noqa: E402
from live_support import seat_live_table  # noqa: E402
from p2p.peer import TablePeer  # noqa: E402
from p2p.roster import TableRules  # noqa: E402

GOAL_KEY_MS = 50.0
GOAL_PEERS_MS = 100.0


class _Sink:
    encoding = "utf-8"

    def write(self, data: str) -> None:
        pass

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


class Renders:
    """Every frame the terminal wrote, with when (on the terminal's thread)."""

    def __init__(self) -> None:
        self.frames: list[tuple[float, TableScene]] = []
        self._cond = threading.Condition()

    def __call__(self, screen: Screen) -> None:
        if isinstance(screen, TableScene):
            with self._cond:
                self.frames.append((time.perf_counter(), screen))
                self._cond.notify_all()

    @property
    def latest(self) -> TableScene | None:
        with self._cond:
            return self.frames[-1][1] if self.frames else None

    async def first(self, predicate: Callable[[TableScene], bool], after: float, timeout: float = 20.0) -> float:
        """When the first frame written after `after` that `predicate` accepts was written."""

        def blocking() -> float | None:
            def found() -> float | None:
                return next((t for t, s in reversed(self.frames) if t >= after and predicate(s)), None)

            with self._cond:
                self._cond.wait_for(lambda: found() is not None, timeout)
                hits = [t for t, s in self.frames if t >= after and predicate(s)]
                return min(hits) if hits else None

        when = await trio.to_thread.run_sync(blocking)
        if when is None:
            raise TimeoutError("the expected frame was never drawn")
        return when


@dataclass
class Remote:
    """Another peer and the screen its client would show."""

    peer: TablePeer
    ui: TableUi = field(init=False)
    updates: list[tuple[float, TableModel]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.ui = TableUi(self.peer.me)

    async def watch(self, changed: Callable[[], None]) -> None:
        shown: tuple[object, ...] = ()
        while True:
            await self.peer.changed()
            model = TableModel.capture(self.peer)
            self.ui.update(model)
            scene = self.ui.scene()
            picture = scene.picture()
            if picture != shown:  # as the client does: draw what changed the picture
                scene.draw(80, 24)
                shown = picture
            self.updates.append((time.perf_counter(), model))
            changed()

    def first(self, predicate: Callable[[TableModel], bool], after: float) -> float | None:
        return next((t for t, m in self.updates if t >= after and predicate(m)), None)


@dataclass
class Samples:
    key: list[float] = field(default_factory=list)
    draw: list[float] = field(default_factory=list)
    peers: list[float] = field(default_factory=list)


async def one_run(peers: int, turns: int) -> Samples:
    samples = Samples()
    renders = Renders()
    size = Size(rows=24, columns=80)
    with tempfile.TemporaryDirectory() as tmp, create_pipe_input() as pipe:
        stack, table = await seat_live_table(Path(tmp), peers, rules=TableRules(target=1000), journals=True)
        me = table[0]
        remotes = [Remote(p) for p in table[1:]]
        remote_changed = trio.Event()
        keys_sent = 0

        def poke() -> None:
            nonlocal remote_changed
            remote_changed.set()
            remote_changed = trio.Event()

        async def remotes_show(predicate: Callable[[TableModel], bool], after: float) -> float:
            with trio.fail_after(20):
                while True:
                    times = [r.first(predicate, after) for r in remotes]
                    if all(t is not None for t in times):
                        return max(t for t in times if t is not None)
                    await remote_changed.wait()

        def press(key: str) -> float:
            nonlocal keys_sent
            keys_sent += 1
            t0 = time.perf_counter()
            pipe.send_text(key)
            return t0

        output = Vt100_Output(_Sink(), lambda: size, term="xterm-256color", enable_cpr=False)  # type: ignore[arg-type]
        async with stack, open_terminal(input=pipe, output=output, after_render=renders, forward_resize=False) as term:
            async with trio.open_nursery() as nursery:
                for peer in table:
                    nursery.start_soon(peer.run)
                for remote in remotes:
                    nursery.start_soon(remote.watch, poke)
                nursery.start_soon(lambda: run_client(me, terminal=term))
                measured = 0
                while measured < turns:
                    scene = renders.latest
                    if scene is None or scene.keys < keys_sent:
                        await renders.first(lambda s: s.keys >= keys_sent, 0.0)
                        continue
                    view = scene.model.view
                    if scene.overlay is Overlay.GAME or scene.model.ended:
                        break
                    if scene.overlay is not None or scene.bottom_until is not None:
                        press("\r")
                        continue
                    if view.turn_seat != me.me or view.needs:
                        await renders.first(lambda s: s is not scene, time.perf_counter())
                        continue
                    if view.phase is not Phase.START:
                        press("z")  # a power of the last turn: skip it
                        continue
                    for key in (" ", " ", "?", "?"):  # screen-only keys
                        t0 = press(key)
                        samples.key.append(await renders.first(lambda s: s.keys >= keys_sent, t0) - t0)
                    t0 = press("x")
                    drawn = await renders.first(lambda s: s.keys >= keys_sent and s.model.view.hand is not None
                                                and s.model.view.hand.face is not None, t0)
                    samples.draw.append(drawn - t0)
                    samples.peers.append(await remotes_show(
                        lambda m: m.view.hand is not None and m.view.turn_seat == me.me, t0) - t0)
                    hand = renders.latest.model.view.hand  # type: ignore[union-attr]
                    assert hand is not None
                    t0 = press("z")
                    samples.peers.append(await remotes_show(
                        lambda m: bool(m.view.discard) and m.view.discard[-1].card == hand.card, t0) - t0)
                    measured += 1
                await me.leave()
                nursery.cancel_scope.cancel()
    return samples


def ms(values: list[float]) -> float:
    return round(1000 * statistics.median(values), 2)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", type=int, default=8, help="your turns measured per run")
    parser.add_argument("--peers", type=int, default=4)
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    args = parser.parse_args()
    runs = [trio.run(one_run, args.peers, args.turns) for _ in range(args.runs)]
    every = Samples()
    for run in runs:
        every.key += run.key
        every.draw += run.draw
        every.peers += run.peers
    figures = {
        "peers": args.peers,
        "runs": args.runs,
        "key_ms": statistics.median(ms(r.key) for r in runs),
        "key_p95_ms": p95(every.key),
        "draw_ms": statistics.median(ms(r.draw) for r in runs),
        "draw_p95_ms": p95(every.draw),
        "peers_ms": statistics.median(ms(r.peers) for r in runs),
        "peers_p95_ms": p95(every.peers),
        "samples": {"key": len(every.key), "draw": len(every.draw), "peers": len(every.peers)},
        "goal_key_ms": GOAL_KEY_MS,
        "goal_peers_ms": GOAL_PEERS_MS,
    }
    rows = [
        ("key press → redrawn screen (screen-only keys)", figures["key_ms"], figures["key_p95_ms"], GOAL_KEY_MS),
        ("x → your drawn card on your screen", figures["draw_ms"], figures["draw_p95_ms"], None),  # (no goal: a round trip of the table)
        (f"x, z → on all {args.peers - 1} other peers' screens", figures["peers_ms"], figures["peers_p95_ms"],
         GOAL_PEERS_MS),
    ]
    print(f"{'figure':<48} {'median':>9} {'p95':>9} {'goal':>7}")
    for name, median, high, goal in rows:
        print(f"{name:<48} {median:>7.2f}ms {high:>7.2f}ms " + (f"{goal:>5.0f}ms" if goal is not None else f"{'-':>7}"))
    if args.json:
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
