"""Benchmark: time from a snap claim to its outcome applied at every peer (R6, §7, §9).

N peer processes on 127.0.0.1 (real TLS mesh, joint shuffle, every proof, every seat's
fairness log and journal written as a `bandit-lan` seat writes them) play whole games in
which every seat snaps each card it knows to match the top. Seats play at a table's
pace: 0.3 s to decide a move, 50-60 ms to react to a card turned up (so two seats that
know a match claim within milliseconds of each other and race). `--flood`
plays at full machine speed instead (no thinking, instant reactions), which measures
how the table behaves when the CPUs are saturated. Each peer notes, on the machine's
monotonic clock (shared by all processes), when it sent a claim and when each claim's
outcome was applied by its engine, in memory, and writes its notes when the game is over;
a claim's latency is the latest of those applications minus its sending.

    python bench/snap.py --peers 6 --json

Whole games are played, each by fresh peer processes, until at least `--claims` claims
(default 300) are timed, so that the p99 is a percentile and not the slowest claim of
one game (a game to 100 points holds 50-100 claims).

Prints a summary and, with --json, one JSON object on the last line: peers, processes,
games, claims, p50_ms, p90_ms, p99_ms, max_ms, window_cpu_ms_per_claim, cpu_ms_per_claim,
python. `python` names the interpreter the peers ran on (its version and build: on one
machine two builds of Python 3.11 differed by an eighth in the CPU figures,
bench/RESULTS.md). window_cpu_ms_per_claim and cpu_ms_per_claim are CPU times (user and
system) of every peer process, divided by the claims timed: the first only inside the
claims' windows (a claim's sending to its outcome applied at every peer, overlapping
windows merged; each peer notes its CPU clock as it takes frames in, sends a claim and
applies an outcome), the second over the whole games, the shuffles and the setting up
included. They depend far less than the latencies on what else the machine runs (a loaded
machine still stretches the windows, and more of the peers' other work falls inside
them), so they are the figures to compare two codes by on a shared machine (`--claims
100`, runs alternated within the hour).

`--timeline` also traces every message and tells where the time of a claim went; `--profile` samples every peer's CPU
(`bench/cpuprofile.py`) and tells which code used it while claims were open;
`--collections` notes every peer's garbage collections (`bench/gcwatch.py`) and tells how
the claims with one inside compare with the rest; `--perf` samples every CPU with the
kernel's `perf` (`bench/perfsplit.py`) and tells how busy the CPUs were while claims were
open, and how the peers' share splits between the Python interpreter, libsodium, TLS,
the kernel and the rest. The first two cost CPU themselves, so
their runs are not the figure. `--processes P` runs the N peers in P processes (one trio
loop each, seat s in process s mod P) instead of one each: not how a table runs, but it
tells how much of a claim's time goes to switching between more peer processes than
the machine has CPUs.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import contextlib
import json
import math
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import trio  # noqa: E402

from engine import NormalBot, Prng, SeatView, Snap, SnapResolved  # noqa: E402
from p2p.identity import load_or_create_identity  # noqa: E402
from p2p.lobby_runner import host_table, join_table  # noqa: E402
from engine import SnapDelay  # noqa: E402
from p2p.peer import FULL_SPEED, Pace, TablePeer, table_schemas  # noqa: E402
from p2p.roster import TableRules  # noqa: E402
from p2p.order import Delivered  # noqa: E402
from p2p.table import Step  # noqa: E402
from p2p.transport import open_mesh  # noqa: E402

from bench import cpuprofile, gcwatch, perfsplit  # noqa: E402


@dataclass(frozen=True)
class EagerBot(NormalBot):
    """Plays like `normal` but snaps every own card it knows to match."""

    snap_delay: SnapDelay = SnapDelay(median=0.055, spread=0.005, minimum=0.05)

    def snap(self, view: SeatView, rng: Prng) -> Snap | None:
        if not view.can_snap or view.top is None:
            return None
        for owner, slot, _card in view.known_matches():
            if owner == view.seat:
                return Snap(view.seat, view.top, view.seat, slot)
        return super().snap(view, rng)


class TimedPeer(TablePeer):
    """A peer that notes when it sent each claim and when each claim's outcome applied
    (and, with a timeline, when it sent, received and delivered every message). Notes
    are kept in memory and written when the peer stops, so the benchmark does not spend
    the measured moments on its own bookkeeping."""

    def __init__(self, *args: Any, trace: Path, timeline: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._trace = trace
        self._records: list[dict[str, Any]] = []
        self._timeline = timeline
        self._claims: dict[int, list[tuple[int, int]]] = {}  # seat -> its unresolved claims (seat, seq)
        self._position_claim: dict[int, tuple[int, int]] = {}
        self._cpu: list[tuple[float, float]] = []  # (monotonic time, this process's CPU seconds)
        # every delivery is noted as the order makes it; the shell's own loop hands it over
        deliveries = self.orderer.deliveries
        self.orderer.deliveries = lambda: self._noted(deliveries())  # type: ignore[method-assign]

    def _mark(self, what: str, seat: int, inner: dict[str, Any]) -> None:
        if self._timeline:
            self._records.append({"tl": [time.monotonic(), self.me, what, seat, inner["type"], inner.get("seq"),
                                         inner.get("lamport")]})

    def _on_events(self, events: list[Any]) -> None:
        self._cpu.append((time.monotonic(), time.process_time()))
        super()._on_events(events)
        self._cpu.append((time.monotonic(), time.process_time()))

    def _receive(self, link_peer: bytes, message: Any) -> None:
        self._mark("recv", self.machine.seats.index(message.sender), message.inner)
        super()._receive(link_peer, message)

    def _broadcast(self, envelope: Any) -> None:
        self._mark("send", self.me, envelope.inner)
        super()._broadcast(envelope)

    def _send(self, payload: dict[str, Any]) -> None:
        if payload["type"] == "snap":
            seq = self.orderer._peers[self.me].next_seq
            self._records.append({"sent": [self.me, seq], "t": time.monotonic()})
            self._cpu.append((time.monotonic(), time.process_time()))
        super()._send(payload)

    def _noted(self, deliveries: Iterator[Delivered]) -> Iterator[Delivered]:
        """The order's deliveries, each noted as the order makes it; the peer hands them to
        its machine (and its log) through its own intake, as a `bandit-lan` seat does."""
        for delivered in deliveries:
            inner = delivered.envelope.inner
            self._mark("deliver", delivered.seat, inner)
            if inner["type"] == "snap":
                self._position_claim[delivered.position] = (delivered.seat, inner["seq"])
            yield delivered

    def _handle(self, step: Step) -> None:
        now = time.monotonic()
        for applied in step.applied:
            if isinstance(applied.event, Snap):
                claim = self._position_claim.pop(applied.position, None)
                if claim is not None:
                    self._claims.setdefault(applied.event.seat, []).append(claim)
            for note in applied.notes:
                if isinstance(note, SnapResolved) and self._claims.get(note.seat):
                    claim = self._claims[note.seat].pop(0)
                    self._records.append({"applied": list(claim), "t": now})
                    self._mark("APPLIED", claim[0], {"type": "snap", "seq": claim[1]})
                    self._cpu.append((time.monotonic(), time.process_time()))
        super()._handle(step)

    async def run(self):  # type: ignore[no-untyped-def]
        try:
            return await super().run()
        finally:
            self._records.append({"cpu": self._cpu})
            self._trace.write_text("".join(json.dumps(record) + "\n" for record in self._records))


async def worker(seat: int, peers: int, folder: Path, port_file: Path, flood: bool, target: int, timeline: bool,
                 listening: trio.Event) -> None:
    """Seat `seat` at the table and play the game; the host (seat 0) writes its port to
    `port_file` and sets `listening`, which the guests in its process wait for."""
    identity = load_or_create_identity(folder / f"id{seat}")
    rules = TableRules(target=target)
    async with open_mesh(identity, table_schemas(), bind="127.0.0.1", port=0, hold_incoming=seat > 0) as mesh:
        if seat == 0:
            ready = port_file.with_suffix(".tmp")
            ready.write_text(f"{mesh.port} {identity.peer_id.hex()}")
            ready.rename(port_file)  # atomic: readers never see a half-written file
            listening.set()
            result = await host_table(mesh, name=f"p{seat + 1}", table="bench", seats=peers, rules=rules)
        else:
            await listening.wait()
            port, fp = port_file.read_text().split()
            result = await join_table(mesh, [("127.0.0.1", int(port))], name=f"p{seat + 1}",
                                      expect_host=bytes.fromhex(fp))
        pace = FULL_SPEED if flood else Pace(think=0.3, react=True)
        # each seat keeps its fairness log and its journal (written before every message it
        # sends, §11.3) in a folder of its own, as a `bandit-lan` seat does on its machine
        peer = TimedPeer(mesh, result, identity, log_path=folder / f"seat{seat}.bandit-log", bot=EagerBot(),
                         seed=seat, pace=pace, trace=folder / f"trace{seat}.jsonl", timeline=timeline,
                         journal_dir=folder / f"state{seat}")
        summary = await peer.run()
        if not summary.finished:
            raise SystemExit(f"seat {seat + 1}: {summary.why}")  # (seats and names p1, p2 … from 1)


def timed_claims(sent: dict, applied: dict, peers: int) -> list[tuple[float, Any]]:  # type: ignore[type-arg]
    """(seconds from sending to applied at every peer, claim) for every claim applied at
    every peer, fastest first."""
    return sorted((max(ts) - sent[c], c) for c, ts in applied.items() if c in sent and len(ts) == peers)


def claim_words(claim: tuple[int, int]) -> str:
    """A claim (seat, sequence number) as the report names it: "p2's claim 7" (its
    player's name, whose number counts seats from 1)."""
    seat, seq = claim
    return f"p{seat + 1}'s claim {seq}"


def story(timeline: list[list[Any]], sent: dict, applied: dict, peers: int) -> None:  # type: ignore[type-arg]
    """Print every send, delivery and outcome around the median claim."""
    done = timed_claims(sent, applied, peers)
    _, claim = done[len(done) // 2]
    t0, t1 = sent[claim], max(applied[claim])
    print(f"median claim, {claim_words(claim)}: {(t1 - t0) * 1000:.1f} ms")
    for t, me, what, seat, kind, seq, stamp in timeline:
        if t0 - 0.002 <= t <= t1 + 0.001 and (what != "recv" or kind != "ack"):
            print(f"{(t - t0) * 1000:8.2f} ms  p{me + 1} {what:<8} p{seat + 1} {kind:<12} seq={seq} L={stamp}")


def slowest(timeline: list[list[Any]], sent: dict, applied: dict, peers: int, count: int = 3) -> None:  # type: ignore[type-arg]
    """For each of the `count` slowest claims: the claims sent while it was open (its
    race), the messages sent and received meanwhile, and what else the game said within
    50 ms of it (anything but claims, acks and shares)."""
    for took, claim in timed_claims(sent, applied, peers)[-count:][::-1]:
        t0, t1 = sent[claim], max(applied[claim])
        window = [(what, kind) for t, _me, what, _s, kind, _q, _l in timeline if t0 <= t <= t1]
        race = 1 + sum(1 for c, t in sent.items() if c != claim and t0 - 0.01 <= t <= t1)
        other = sorted({kind for t, _me, what, _s, kind, _q, _l in timeline
                        if t0 - 0.05 <= t <= t1 + 0.05 and kind not in ("snap", "ack", "shares")})
        tally = ", ".join(f"{what} {kind} {n}" for (what, kind), n in sorted(collections.Counter(window).items())
                          if what in ("send", "recv"))
        print(f"slow claim, {claim_words(claim)}: {took * 1000:.1f} ms; claims in its race (sent from 10 ms before it "
              f"until its outcome was applied everywhere): {race}; meanwhile {tally}; other messages within 50 ms: "
              f"{', '.join(other) or 'none'}")


PHASES = ("first peer delivers the claim", "snapper delivers it", "snapper's shares sent", "outcome applied everywhere")


def phases(timeline: list[list[Any]], sent: dict, applied: dict, peers: int) -> list[tuple[float, ...]]:  # type: ignore[type-arg]
    """For each claim revealed by its snapper's shares: when (ms after the claim) each of
    PHASES happened."""
    delivered: dict[tuple[int, int], dict[int, float]] = {}
    shares: dict[int, list[float]] = {}
    for t, me, what, seat, kind, seq, _stamp in timeline:
        if what == "deliver" and kind == "snap":
            delivered.setdefault((seat, seq), {})[me] = t
        elif what == "send" and kind == "shares":
            shares.setdefault(me, []).append(t)
    rows = []
    for claim, times in applied.items():
        at = delivered.get(claim, {})
        if claim not in sent or len(times) != peers or len(at) != peers:
            continue
        mine = at[claim[0]]
        out = next((t for t in shares.get(claim[0], []) if mine <= t <= mine + 0.005), None)
        if out is not None:  # (a claim that lost its race turns nothing up)
            t0 = sent[claim]
            rows.append(tuple((t - t0) * 1000 for t in (min(at.values()), mine, out, max(times))))
    return rows


def print_phases(rows: list[tuple[float, ...]]) -> None:
    rows = sorted(rows, key=lambda r: r[-1])
    for label, chosen in (("all claims", rows), ("slowest 10 %", rows[-max(1, len(rows) // 10):])):
        medians = [statistics.median(r[i] for r in chosen) for i in range(len(PHASES))]
        print(f"{label} ({len(chosen)}), median ms after the claim: "
              + "; ".join(f"{name} {m:.2f}" for name, m in zip(PHASES, medians)))


@dataclass
class GameTrace:
    """What one game's peers noted: when each claim was sent (claim -> time) and applied
    (claim -> a time per peer), and, when asked for, every message, CPU samples and
    garbage collections; `cpu` is the seconds of CPU its peer processes used."""

    sent: dict[Any, float]
    applied: dict[Any, list[float]]
    timeline: list[list[Any]]
    samples: list[Any]
    collections: list[gcwatch.Collection]
    cpu: float = 0.0
    cpu_clocks: list[list[tuple[float, float]]] = field(default_factory=list)  # each process's (time, CPU seconds)


def read_traces(folder: Path, peers: int, processes: int, trace: GameTrace) -> None:
    """Add each peer's trace file in `folder` to `trace`: claims sent and applied, its CPU
    notes (seat i runs in process i mod `processes`: the peers of one process note one
    CPU clock, kept once), the timeline."""
    clocks: dict[int, list[tuple[float, float]]] = {}  # each process's CPU clock, noted by each peer it runs
    for i in range(peers):
        for line in (folder / f"trace{i}.jsonl").read_text().splitlines():
            record = json.loads(line)
            if "sent" in record:
                trace.sent[tuple(record["sent"])] = record["t"]
            elif "applied" in record:
                trace.applied.setdefault(tuple(record["applied"]), []).append(record["t"])
            elif "cpu" in record:  # (seat i runs in process i mod P: its peers share one clock, counted once)
                clocks.setdefault(i % processes, []).extend(tuple(note) for note in record["cpu"])
            else:
                trace.timeline.append(record["tl"])
    trace.cpu_clocks = [sorted(notes) for notes in clocks.values()]


def window_cpu(clocks: list[list[tuple[float, float]]], windows: list[tuple[float, float]]) -> float:
    """Seconds of CPU the peers used inside `windows` (merged where they overlap), each
    process's CPU clock read at the last note it made at or before each end of a window (its
    first note before it made any)."""
    total = 0.0
    for notes in clocks:
        if not notes:
            continue
        times = [t for t, _ in notes]

        def at(moment: float) -> float:
            i = bisect.bisect_right(times, moment)
            return notes[max(i, 1) - 1][1]

        total += sum(at(end) - at(start) for start, end in cpuprofile.merged(windows))
    return total


def interpreter() -> str:
    """The Python the peers run on (they are started with this one): version, build date
    and compiler, e.g. "CPython 3.11.7 (May  9 2026 07:35:25, GCC 12.2.0)"."""
    _, built = platform.python_build()
    return f"{platform.python_implementation()} {platform.python_version()} ({built}, {platform.python_compiler()})"


def children_cpu() -> float:
    """Seconds of CPU (user and system) used by this process's children that have ended."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


async def seats_in_process(seats: list[int], peers: int, folder: Path, flood: bool, target: int, timeline: bool) -> None:
    """Play `seats` of the table in this process, one trio loop for all of them."""
    listening = trio.Event()
    if 0 not in seats:  # the host is in another process, listening already
        listening.set()
    async with trio.open_nursery() as nursery:
        for seat in seats:
            nursery.start_soon(worker, seat, peers, folder, folder / "port", flood, target, timeline, listening)


def play_game(args: argparse.Namespace, folder: Path) -> GameTrace:
    """One game in `folder`: each peer in its own process, or, with `--processes P`, the
    peers dealt round the table into P processes (seat s in process s mod P)."""
    folder.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, __file__, "--peers", str(args.peers), "--folder", str(folder), "--target", str(args.target),
           *(["--flood"] if args.flood else []), *(["--timeline"] if args.timeline else []),
           *(["--profile"] if args.profile else []), *(["--collections"] if args.collections else []), "--worker"]
    processes = args.processes

    def start(index: int) -> subprocess.Popen[bytes]:
        out = (folder / f"worker{index}.out").open("wb")
        seats = ",".join(str(s) for s in range(index, args.peers, processes))
        return subprocess.Popen([*cmd, seats], stdout=out, stderr=subprocess.STDOUT)

    cpu_before = children_cpu()
    host = start(0)
    while not (folder / "port").exists():  # the host renames its port file into place once it listens
        if host.poll() is not None:
            raise SystemExit("the host peer failed to start:\n" + (folder / "worker0.out").read_text())
        time.sleep(0.01)
    others = [start(i) for i in range(1, processes)]
    deadline = time.monotonic() + args.timeout
    try:
        codes = [p.wait(timeout=max(1.0, deadline - time.monotonic())) for p in (host, *others)]
    except subprocess.TimeoutExpired:
        for p in (host, *others):
            p.kill()
        codes = [p.wait() for p in (host, *others)]
    if any(codes):
        reports = "\n".join(f"--- process {i}: exit {c}\n" + (folder / f"worker{i}.out").read_text()[-3000:]
                            for i, c in enumerate(codes) if c)
        raise SystemExit(f"a peer failed:\n{reports}")
    trace = GameTrace({}, {}, [], [], [], cpu=children_cpu() - cpu_before)
    for i in range(processes):
        cpu, gc_file = folder / f"cpu{i}.json", folder / f"gc{i}.json"
        if cpu.exists():
            trace.samples += [tuple(sample) for sample in json.loads(cpu.read_text())]
        if gc_file.exists():
            trace.collections += [tuple(c) for c in json.loads(gc_file.read_text())]
    read_traces(folder, args.peers, processes, trace)
    return trace


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank percentile (with fewer than 100 values, p99 is the maximum)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peers", type=int, default=6)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--target", type=int, default=100, help="end of the game (default 100)")
    parser.add_argument("--claims", type=int, default=300,
                        help="play whole games until at least this many claims are timed (default 300)")
    parser.add_argument("--flood", action="store_true", help="play at full machine speed")
    parser.add_argument("--timeline", action="store_true",
                        help="also trace every message; prints the story of each game's median claim, what was "
                             "sent and received during its three slowest claims, and when each phase of a claim happened")
    parser.add_argument("--profile", action="store_true",
                        help="sample every peer's CPU (bench/cpuprofile.py) and print where it went while claims were "
                             "open, beside where it went over the whole game")
    parser.add_argument("--collections", action="store_true",
                        help="note every peer's garbage collections (bench/gcwatch.py) and print how the claims with "
                             "one inside compare with the rest")
    parser.add_argument("--perf", action="store_true",
                        help="sample every CPU with perf (bench/perfsplit.py; root) and print how busy the CPUs were "
                             "while claims were open and how the peers' share splits by library and kernel")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="work in DIR and keep logs and traces there")
    parser.add_argument("--timeout", type=float, default=900, help="give up after this many seconds (default 900)")
    parser.add_argument("--processes", type=int, metavar="P",
                        help="run the peers in P processes, one trio loop each (default: one process per peer, "
                             "as at a real table; fewer shows what the operating system's switching between "
                             "them costs)")
    parser.add_argument("--worker", type=str, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.processes = min(args.processes or args.peers, args.peers)
    if args.worker is not None:
        sampler = cpuprofile.Sampler() if args.profile else None
        watcher = gcwatch.Watcher() if args.collections else None
        for started in (sampler, watcher):
            if started is not None:
                started.start()
        seats = [int(seat) for seat in args.worker.split(",")]  # this process's seats; seats[0] is its index
        try:
            trio.run(seats_in_process, seats, args.peers, args.folder, args.flood, args.target, args.timeline)
        finally:
            if sampler is not None:
                sampler.stop()
                (args.folder / f"cpu{seats[0]}.json").write_text(json.dumps(sampler.samples))
            if watcher is not None:
                watcher.stop()
                (args.folder / f"gc{seats[0]}.json").write_text(json.dumps(watcher.collections))
        return 0
    if args.perf and (why := perfsplit.available()) is not None:
        raise SystemExit(f"--perf: {why}")
    if args.keep is not None and args.keep.exists() and any(args.keep.iterdir()):
        # (an old run's port file would send the guests to a table long gone)
        raise SystemExit(f"--keep: {args.keep} already holds files; give an empty or new folder")
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as perf:
        root = args.keep or Path(tmp)
        if args.perf:
            root.mkdir(parents=True, exist_ok=True)
            perf.enter_context(perfsplit.recording(root / "perf.data"))
        latencies: list[float] = []
        phase_rows: list[tuple[float, ...]] = []
        samples: list[Any] = []
        collections: list[gcwatch.Collection] = []
        windows: list[tuple[float, float]] = []
        games = 0
        cpu = window = 0.0
        while len(latencies) < args.claims:  # whole games until there are enough claims for a p99
            folder = root / f"game{games}"
            games += 1
            game = play_game(args, folder)
            sent, applied, timeline = game.sent, game.applied, game.timeline
            timed = timed_claims(sent, applied, args.peers)
            if not timed:
                raise SystemExit(f"no claim was made in a whole game (see {folder})" if args.keep else "no claim was made in a whole game")
            latencies += [took * 1000 for took, _claim in timed]
            cpu += game.cpu
            window += window_cpu(game.cpu_clocks, [(sent[claim], sent[claim] + took) for took, claim in timed])
            samples += game.samples
            collections += game.collections
            windows += [(sent[claim], sent[claim] + took) for took, claim in timed]
            if timeline:
                timeline.sort()
                story(timeline, sent, applied, args.peers)
                slowest(timeline, sent, applied, args.peers)
                phase_rows += phases(timeline, sent, applied, args.peers)
        perf.close()
        machine = perfsplit.samples(root / "perf.data") if args.perf else []
    out = {
        "peers": args.peers,
        "processes": args.processes,
        "games": games,
        "claims": len(latencies),
        "p50_ms": round(statistics.median(latencies), 2),
        "p90_ms": round(percentile(latencies, 90), 2),
        "p99_ms": round(percentile(latencies, 99), 2),
        "max_ms": round(max(latencies), 2),
        "window_cpu_ms_per_claim": round(1000 * window / len(latencies), 2),
        "cpu_ms_per_claim": round(1000 * cpu / len(latencies), 2),
        "goal_p99_ms": 10,
        "python": interpreter(),
    }
    if phase_rows:
        print_phases(phase_rows)
    if args.profile:
        cpuprofile.report(samples, windows, "claim windows (a claim's sending to its outcome at every peer)")
    if args.collections:
        print("claims: " + gcwatch.summary(collections, windows))
    if args.perf:
        perfsplit.report(machine, windows, "claim windows (a claim's sending to its outcome at every peer)", len(latencies))
    print(f"{args.peers} peers, {games} game{'s' * (games != 1)}, {out['claims']} snap claims: p50 {out['p50_ms']} ms, p90 {out['p90_ms']} ms, "
          f"p99 {out['p99_ms']} ms, max {out['max_ms']} ms (claim sent -> outcome applied at every peer); "
          f"peers' CPU per claim: {out['window_cpu_ms_per_claim']} ms inside the claims' windows, "
          f"{out['cpu_ms_per_claim']} ms over the whole games ({cpu:.1f} s); {out['python']}")
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
