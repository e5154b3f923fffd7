"""Fuzzing: millions of mutated inputs through every entry point of untrusted bytes.

Targets (tests/fuzz_targets.py): `link` (frames, strict msgpack, every schema of a
table's mesh, signed envelopes), `order` (the agreed order, §7), `table` (the replicated
game, §8–§9), `lobby` (front door and lobby, §6), `roster` (canonical roster), `deck`
(card structures), `txt` (mDNS TXT records), `log` (fairness log reader) and `audit`
(the whole audit of a log file). The corpus is a real game and a real lobby; stateful
targets restart from states saved while they ran.

Engines: atheris (coverage-guided libFuzzer, with the structure-aware mutator of
tests/fuzz_mutate.py as its custom mutator) where it imports, else `random`: the same
mutator driven by a seeded PRNG, growing its corpus with accepted inputs.

Every input runs in a worker process under a watchdog. An input that raises anything
but the target's typed errors is *unhandled* (an `InvariantBroken` promise is counted
apart as an *invariant* failure); one that runs longer than --hang-seconds is a *hang*
(its stack is dumped, the worker killed and restarted past it); a worker that dies is a
*crash*. Each finding is saved with its input under --out.

    python bench/fuzz.py --inputs 1000000 --json
    python bench/fuzz.py --target lobby --seconds 60

Prints a table and, with --json, one JSON object on the last line: inputs, crashes,
hangs, unhandled, invariant, seconds, inputs_per_s, engine, workers, per_target (inputs,
accepted, rejected, unhandled, invariant, hangs, crashes, seconds of worker time,
inputs_per_s) and findings (files). The exit status is 1 when anything was found.
"""

from __future__ import annotations

import argparse
import faulthandler
import hashlib
import json
import mmap
import os
import platform
import random
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WEIGHTS = {"link": 20, "deck": 14, "txt": 12, "roster": 10, "order": 12, "table": 10, "lobby": 11, "log": 8, "audit": 3}
"""Share of the inputs per target (cheap targets get more)."""

MAX_LEN = 1 << 16
SLOTS = ("inputs", "accepted", "rejected", "unhandled", "invariant", "started_ns", "input_len", "ready")
HEAD = struct.Struct(f"<{len(SLOTS)}q")
CONTROL_SIZE = HEAD.size + MAX_LEN
POLL = 0.05
EARLY_S = 2.0  # a worker that stops this long before its deadline, with inputs left, stopped early


# -- the worker: one target, one engine, a quota of inputs ------------------------------------------


class Control:
    """Counters and the input being run, shared with the parent through a mapped file."""

    def __init__(self, path: Path) -> None:
        self._file = open(path, "r+b")  # noqa: SIM115 - lives as long as the process
        self.map = mmap.mmap(self._file.fileno(), CONTROL_SIZE)

    def read(self) -> dict[str, int]:
        return dict(zip(SLOTS, HEAD.unpack_from(self.map, 0)))

    def set(self, slot: str, value: int) -> None:
        struct.pack_into("<q", self.map, 8 * SLOTS.index(slot), value)

    def add(self, slot: str) -> None:
        at = 8 * SLOTS.index(slot)
        struct.pack_into("<q", self.map, at, struct.unpack_from("<q", self.map, at)[0] + 1)

    def current_input(self) -> bytes:
        n = self.read()["input_len"]
        return bytes(self.map[HEAD.size : HEAD.size + n])

    def begin(self, data: bytes) -> None:
        data = data[:MAX_LEN]
        self.map[HEAD.size : HEAD.size + len(data)] = data
        self.set("input_len", len(data))
        self.set("started_ns", time.monotonic_ns())

    def end(self, outcome: str) -> None:
        self.set("started_ns", 0)
        self.add("inputs")
        self.add(outcome)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _finding_signature(exc: BaseException, kind: str) -> str:
    """What makes two findings the same: where in the project code an exception escaped,
    or, for a broken invariant, which promise (every one is raised by the same `require`)."""
    if kind == "invariant":
        return f"{type(exc).__name__}: {exc}"
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/p2p/" in f.filename or "/engine/" in f.filename] or frames
    where = f"{Path(ours[-1].filename).name}:{ours[-1].lineno}" if ours else "?"
    return f"{type(exc).__name__} at {where}"


def worker(spec: dict[str, Any]) -> None:
    """Run one job (see `Job.spec`); never returns with atheris (libFuzzer exits)."""
    warnings.simplefilter("ignore")  # library deprecation notices about hostile inputs
    faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)
    control = Control(Path(spec["control"]))
    out = Path(spec["out"])
    skip = set(Path(spec["skip"]).read_text().split()) if Path(spec["skip"]).exists() else set()
    engine = spec["engine"]
    if engine == "atheris":
        import atheris

        with atheris.instrument_imports(include=["p2p", "engine"]):
            from tests import fuzz_targets
    else:
        from tests import fuzz_targets
    from tests.fuzz_mutate import Pool

    target = fuzz_targets.make_target(spec["target"])
    seeds = target.seeds()
    pool = Pool.of(seeds, target.codec)
    seen: set[str] = set()

    def one(data: bytes) -> fuzz_targets.Verdict | None:
        """Run one input; its verdict, or None for a finding."""
        control.begin(data)
        try:
            verdict = target.run(data)
        except Exception as exc:  # every escape is a finding: count it, keep it, go on
            kind = "invariant" if isinstance(exc, fuzz_targets.InvariantBroken) else "unhandled"
            control.end(kind)
            signature = _finding_signature(exc, kind)
            if signature not in seen:
                seen.add(signature)
                name = f"{target.name}-{kind}-{hashlib.sha1(signature.encode()).hexdigest()[:10]}"
                (out / f"{name}.bin").write_bytes(data)
                (out / f"{name}.txt").write_text(f"{signature}\n\n{traceback.format_exc()}")
            return None
        control.end(verdict.value)
        return verdict

    control.set("ready", 1)
    if engine == "atheris":
        _fuzz_with_atheris(spec, target.codec, pool, one, skip)
    else:
        _fuzz_with_random(spec, target.codec, seeds, pool, one, skip, fuzz_targets.ACCEPTED)


def _fuzz_with_atheris(spec: dict[str, Any], codec: Any, pool: Any, one: Callable[[bytes], Any], skip: set[str]) -> None:
    """libFuzzer's loop, coverage-guided; our structure-aware mutator is one of its mutators."""
    import atheris

    from tests.fuzz_mutate import mutate_structure

    def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        if rng.random() < 0.6:
            mutated = mutate_structure(data, codec, rng, pool, rng.choice((1, 1, 2, 3)))
            if mutated is not None:
                return mutated[:max_size]
        return atheris.Mutate(data, max_size)

    def test_one_input(data: bytes) -> None:
        if not (skip and _digest(data) in skip):  # an input that hung or crashed a worker before
            one(bytes(data))

    runs = spec["quota"] if spec["quota"] < 2**31 else -1
    args = [
        "fuzz", f"-runs={runs}", f"-seed={spec['seed'] % 2**31 or 1}", f"-max_len={MAX_LEN}",
        f"-timeout={int(spec['hang_seconds'] * 3) + 1}", "-rss_limit_mb=4096", "-print_final_stats=0",
        f"-artifact_prefix={spec['out']}/{spec['target']}-libfuzzer-",
    ]
    if spec["deadline"] is not None:
        args.append(f"-max_total_time={max(1, int(spec['deadline'] - time.time()))}")
    args.append(spec["corpus"])
    atheris.Setup(args, test_one_input, custom_mutator=custom_mutator)
    atheris.Fuzz()  # exits the process when done


def _fuzz_with_random(
    spec: dict[str, Any], codec: Any, seeds: list[bytes], pool: Any, one: Callable[[bytes], Any], skip: set[str],
    accepted: Any,
) -> None:
    """The seeds, then mutants of the seeds and of accepted inputs, from a seeded PRNG."""
    from tests.fuzz_mutate import mutate

    rng = random.Random(spec["seed"])
    inputs = list(seeds)
    known = {_digest(s) for s in inputs}
    done = 0
    for data in seeds[spec["ran"] :]:  # a restarted job skips the seeds it has run
        if done < spec["quota"] and _digest(data) not in skip:
            one(data)
            done += 1
    deadline = spec["deadline"]
    while done < spec["quota"] and (deadline is None or time.time() < deadline):
        child = mutate(rng.choice(inputs), codec, rng, pool)
        if skip and _digest(child) in skip:
            continue
        verdict = one(child)
        done += 1
        if verdict is accepted and len(inputs) < 512 and rng.random() < 0.2:
            key = _digest(child)
            if key not in known:  # a valid input not seen before: a new place to mutate from
                known.add(key)
                inputs.append(child)
                pool.inputs.append(child)


# -- the parent: jobs, the watchdog, the report -------------------------------------------------------


@dataclass
class Tally:
    inputs: int = 0
    accepted: int = 0
    rejected: int = 0
    unhandled: int = 0
    invariant: int = 0
    hangs: int = 0
    crashes: int = 0
    seconds: float = 0.0

    def add_counts(self, counts: dict[str, int]) -> None:
        for slot in ("inputs", "accepted", "rejected", "unhandled", "invariant"):
            setattr(self, slot, getattr(self, slot) + counts[slot])


@dataclass
class Job:
    number: int
    target: str
    quota: int
    seed: int
    started: float = 0.0
    process: subprocess.Popen[bytes] | None = None
    control: Control | None = None
    log: Path | None = None
    budget: float | None = None  # seconds, in a timed run
    deadline: float | None = None
    killed: bool = False
    restarts: int = 0
    done: int = field(default=0)

    def remaining(self) -> int:
        return self.quota - self.done


@dataclass
class Campaign:
    targets: list[str]
    engine: str
    workers: int
    hang_seconds: float
    deadline: float | None
    out: Path
    work: Path
    tallies: dict[str, Tally]
    started: float = field(default_factory=time.time)  # (findings written since are this run's)

    def spec(self, job: Job) -> dict[str, Any]:
        assert job.control is not None
        return {
            "target": job.target, "engine": self.engine, "quota": job.remaining(), "seed": job.seed + 7919 * job.restarts,
            "deadline": job.deadline if self.deadline is None else min(job.deadline or self.deadline, self.deadline), "control": str(self.work / f"control-{job.number}"), "out": str(self.out),
            "skip": str(self.work / "skip"), "corpus": str(self.out / "corpus" / job.target),
            "hang_seconds": self.hang_seconds, "ran": job.done,
        }

    def launch(self, job: Job) -> None:
        if job.deadline is None and job.budget is not None:
            job.deadline = time.time() + job.budget
            if self.deadline is not None:
                job.deadline = min(job.deadline, self.deadline)
        control_path = self.work / f"control-{job.number}"
        control_path.write_bytes(bytes(CONTROL_SIZE))
        job.control = Control(control_path)
        job.log = self.out / "logs" / f"{job.target}-{job.number}-{job.restarts}.log"
        with open(job.log, "wb") as log:
            job.process = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(self.spec(job))],
                stdout=log, stderr=subprocess.STDOUT, cwd=self.work,
            )
        job.started = time.monotonic()
        job.killed = False

    def settle(self, job: Job) -> bool:
        """Account for a finished worker; True when the job needs another worker."""
        assert job.process is not None and job.control is not None
        counts = job.control.read()
        tally = self.tallies[job.target]
        tally.add_counts(counts)
        tally.seconds += time.monotonic() - job.started
        job.done += counts["inputs"]
        code = job.process.returncode
        stuck = counts["started_ns"] != 0
        if not counts["ready"] and not job.killed:
            tail = job.log.read_text(errors="replace")[-3000:] if job.log else ""
            raise SystemExit(f"a {job.target} worker failed before fuzzing (exit {code}):\n{tail}")
        # A worker that ends in the middle of an input, or with inputs and time left, did
        # not end by itself as a worker does (a SystemExit or os._exit in the code under
        # test): a crash, whatever its exit status.
        early = (self.engine == "random" and job.remaining() > 0  # (atheris counts its own way)
                 and (job.deadline is None or time.time() < job.deadline - EARLY_S))
        if job.killed or code != 0 or stuck or early:
            if job.killed:
                tally.hangs += 1
                kind = "hang"
            else:
                tally.crashes += 1
                kind = "crash"
            if stuck:
                data = job.control.current_input()
                name = f"{job.target}-{kind}-{_digest(data)[:10]}"
                (self.out / f"{name}.bin").write_bytes(data)
                stack = job.log.read_text(errors="replace")[-6000:] if job.log else ""
                (self.out / f"{name}.txt").write_text(f"{kind} (exit {code}) on this input; the worker's last words:\n{stack}")
                with open(self.work / "skip", "a") as skip:
                    skip.write(_digest(data) + "\n")
                tally.inputs += 1
                job.done += 1
            else:  # (between inputs: no input to keep, but the worker's last words)
                stack = job.log.read_text(errors="replace")[-6000:] if job.log else ""
                (self.out / f"{job.target}-{kind}-between-inputs-{job.number}-{job.restarts}.txt").write_text(
                    f"{kind} (exit {code}) with {job.remaining()} inputs left; the worker's last words:\n{stack}")
            job.restarts += 1
            return job.remaining() > 0 and (job.deadline is None or time.time() < job.deadline) and job.restarts < 50
        return False

    def watch(self, job: Job) -> None:
        """Kill a worker whose current input has run longer than the hang limit."""
        assert job.process is not None and job.control is not None
        started = job.control.read()["started_ns"]
        if started and (time.monotonic_ns() - started) / 1e9 > self.hang_seconds and not job.killed:
            job.killed = True
            job.process.send_signal(signal.SIGUSR1)  # the worker's stack goes to its log
            time.sleep(0.3)
            job.process.kill()

    def run(self, jobs: list[Job], progress: bool) -> None:
        queue = list(jobs)
        running: list[Job] = []
        last = time.monotonic()
        while queue or running:
            while queue and len(running) < self.workers and (self.deadline is None or time.time() < self.deadline):
                job = queue.pop(0)
                self.launch(job)
                running.append(job)
            if not running:
                break
            time.sleep(POLL)
            for job in list(running):
                assert job.process is not None
                if job.process.poll() is None:
                    self.watch(job)
                    continue
                running.remove(job)
                if self.settle(job):
                    queue.insert(0, job)
            if progress and time.monotonic() - last > 10:
                last = time.monotonic()
                live = sum(j.control.read()["inputs"] for j in running if j.control is not None)
                total = sum(t.inputs for t in self.tallies.values()) + live
                print(f"  ... {total:,} inputs", file=sys.stderr, flush=True)


def plan(targets: list[str], inputs: int | None, job_size: int, workers: int, seconds: float | None, seed: int) -> list[Job]:
    """Jobs of at most `job_size` inputs, targets interleaved so a partial run covers all.
    A timed run without an input count gives every target an equal share of the time:
    one job per target and worker, each `seconds / targets` long, so the jobs fill the
    workers' time evenly (one job per target left the last target a part of its share,
    and a worker idle, whenever the targets were not a multiple of the workers)."""
    if inputs is None:
        assert seconds is not None
        budget = seconds / len(targets)
        return [Job(i, t, 2**62, seed + i, budget=budget) for i, t in enumerate(targets * workers)]
    weight = sum(WEIGHTS.get(t, 10) for t in targets)
    shares = {t: inputs * WEIGHTS.get(t, 10) // weight for t in targets}
    shares[targets[0]] += inputs - sum(shares.values())  # the total is exactly `inputs`
    chunks = {t: [job_size] * (n // job_size) + ([n % job_size] if n % job_size else []) for t, n in shares.items()}
    jobs: list[Job] = []
    while any(chunks.values()):
        for t in targets:
            if chunks[t]:
                jobs.append(Job(len(jobs), t, chunks[t].pop(0), seed + len(jobs)))
    return jobs


def write_corpus(targets: list[str], out: Path) -> dict[str, int]:
    from tests.fuzz_targets import make_target

    sizes = {}
    for name in targets:
        folder = out / "corpus" / name
        folder.mkdir(parents=True, exist_ok=True)
        seeds = make_target(name).seeds()
        for data in seeds:
            (folder / f"seed-{_digest(data)[:16]}").write_bytes(data)
        sizes[name] = len(seeds)
    return sizes


def engine_available(wanted: str) -> str:
    if wanted == "random":
        return "random"
    try:
        import atheris  # noqa: F401
    except ImportError:
        if wanted == "atheris":
            raise SystemExit("atheris is not installed (pip install 'bandit-lan[fuzz]'), use --engine random") from None
        return "random"
    return "atheris"


def report(campaign: Campaign, wall: float, corpus: dict[str, int]) -> dict[str, Any]:
    tallies = campaign.tallies
    total = Tally()
    for t in tallies.values():
        for slot in ("inputs", "accepted", "rejected", "unhandled", "invariant", "hangs", "crashes"):
            setattr(total, slot, getattr(total, slot) + getattr(t, slot))
        total.seconds += t.seconds
    findings = sorted(p.name for p in campaign.out.glob("*.txt")  # (this run's: --out may be reused)
                      if p.stat().st_mtime >= campaign.started)
    return {
        "inputs": total.inputs, "crashes": total.crashes, "hangs": total.hangs, "unhandled": total.unhandled,
        "invariant": total.invariant, "seconds": round(wall, 1), "inputs_per_s": round(total.inputs / wall, 1) if wall else 0.0,
        "engine": campaign.engine, "workers": campaign.workers, "hang_seconds": campaign.hang_seconds,
        "python": platform.python_version(), "cores": os.cpu_count(),
        "per_target": {
            name: {
                "inputs": t.inputs, "accepted": t.accepted, "rejected": t.rejected, "unhandled": t.unhandled,
                "invariant": t.invariant, "hangs": t.hangs, "crashes": t.crashes, "seeds": corpus.get(name, 0),
                "seconds": round(t.seconds, 1), "inputs_per_s": round(t.inputs / t.seconds, 1) if t.seconds else 0.0,
            }
            for name, t in tallies.items()
        },
        "findings": findings,
        "out": str(campaign.out),
    }


def print_table(result: dict[str, Any]) -> None:
    header = f"{'target':<8} {'seeds':>5} {'inputs':>10} {'accepted':>9} {'rejected':>10} {'unhandled':>9} {'invariant':>9} {'hangs':>5} {'crashes':>7} {'inputs/s':>9}"
    print(header)
    print("-" * len(header))
    for name, t in result["per_target"].items():
        print(f"{name:<8} {t['seeds']:>5} {t['inputs']:>10,} {t['accepted']:>9,} {t['rejected']:>10,} {t['unhandled']:>9} "
              f"{t['invariant']:>9} {t['hangs']:>5} {t['crashes']:>7} {t['inputs_per_s']:>9,.0f}")
    print("-" * len(header))
    print(f"{'total':<8} {'':>5} {result['inputs']:>10,} {'':>9} {'':>10} {result['unhandled']:>9} {result['invariant']:>9} "
          f"{result['hangs']:>5} {result['crashes']:>7} {result['inputs_per_s']:>9,.0f}")
    print(f"\nengine {result['engine']}, {result['workers']} workers, {result['seconds']} s wall, "
          f"hang limit {result['hang_seconds']} s per input; findings and corpus in {result['out']}")
    for name in result["findings"]:
        print(f"  finding: {name}")
    if not result["findings"]:
        print("0 crashes, 0 hangs, 0 unhandled exceptions, 0 broken invariants")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:  # before anything imports the code under test (atheris instruments it)
        worker(json.loads(argv[1]))
        return 0
    from tests.fuzz_targets import ALL_TARGETS, CANARY

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=None, help="inputs to run in all (default 1,000,000 unless --seconds)")
    parser.add_argument("--seconds", type=float, default=None, help="stop after this many seconds")
    parser.add_argument("--target", action="append", default=None,
                        help=f"a target (repeatable, or comma-separated): {', '.join(ALL_TARGETS)}; default all")
    parser.add_argument("--engine", choices=("auto", "atheris", "random"), default="auto")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--hang-seconds", type=float, default=5.0, help="time limit per input")
    parser.add_argument("--job-size", type=int, default=25_000, help="inputs per worker process")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="where findings and the corpus go (default: a new temporary folder)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    targets = [t for spec in (args.target or list(ALL_TARGETS)) for t in spec.split(",") if t]
    unknown = [t for t in targets if t not in ALL_TARGETS and t != CANARY]
    if unknown:
        parser.error(f"unknown target {unknown[0]!r}; choose from {', '.join(ALL_TARGETS)}")
    inputs = args.inputs if args.inputs is not None else (None if args.seconds else 1_000_000)
    engine = engine_available(args.engine)
    out = args.out or Path(tempfile.mkdtemp(prefix="bandit-fuzz-"))
    (out / "logs").mkdir(parents=True, exist_ok=True)
    corpus = write_corpus(targets, out)
    begin = time.monotonic()
    deadline = time.time() + args.seconds if args.seconds else None
    jobs = plan(targets, inputs, args.job_size, args.workers, args.seconds, args.seed)
    with tempfile.TemporaryDirectory(prefix="bandit-fuzz-work-") as work:
        campaign = Campaign(targets, engine, args.workers, args.hang_seconds, deadline, out, Path(work),
                            {t: Tally() for t in targets})
        try:
            campaign.run(jobs, progress=not args.json)
        finally:
            for job in jobs:
                if job.process is not None and job.process.poll() is None:
                    job.process.kill()
    result = report(campaign, time.monotonic() - begin, corpus)
    print_table(result)
    if args.json:
        print(json.dumps(result))
    clean = not (result["crashes"] or result["hangs"] or result["unhandled"] or result["invariant"])
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
