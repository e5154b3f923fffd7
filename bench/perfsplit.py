"""Where the machine's CPU goes, by library and kernel, at given moments: `perf` for benchmarks.

Theory of operation
-------------------
`cpuprofile` tells which *Python code* a peer runs; it cannot tell the interpreter's own
work from the system calls, the kernel's TCP and scheduling, or a C library. This module
asks the kernel instead. `recording(path)` runs ``perf record`` system-wide around a
benchmark, sampling every CPU on a software clock (``cpu-clock``, no hardware counters
needed, so it works in a virtual machine) and stamping each sample with
``CLOCK_MONOTONIC``: the clock the peer processes note their claims on, so the samples
can be cut to a benchmark's timed windows. `samples(path)` reads them back (``perf
script``) as (time, label): for a Python process, the shared object the sample fell in
(``libpython3.11.so.1.0``: the interpreter, or the ``python3.11`` binary itself where it
is linked in statically; ``_sodium.abi3.so``: libsodium;
``[kernel.kallsyms]``: the kernel, on the process's behalf), ``idle`` for an idle CPU,
``other processes`` for the rest. `report` prints the shares inside the windows and how
busy the CPUs were there: samples over what every CPU would give in that time (a
tickless kernel samples an idle CPU only now and then, so ``idle`` is a lower bound and
the rest are true shares of the CPUs' time).

Needs ``perf`` (Linux) and the right to sample every CPU (root, or
``kernel.perf_event_paranoid`` ≤ 0).
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import shutil
import signal
import subprocess
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from bench import cpuprofile

FREQUENCY = 999  # samples a second on every CPU
_LINE = re.compile(r"\s*(?P<comm>.+?)\s+(?P<time>\d+\.\d+):\s+\S+\s+\((?P<dso>[^)]*)\)")


def available() -> str | None:
    """Why `perf` cannot be used here, or None when it can."""
    if shutil.which("perf") is None:
        return "the perf tool is not installed (linux-tools / linux-perf)"
    if os.geteuid() != 0:
        try:
            level = int(Path("/proc/sys/kernel/perf_event_paranoid").read_text())
        except (OSError, ValueError):
            level = 2
        if level > 0:
            return f"sampling every CPU needs root or kernel.perf_event_paranoid <= 0 (it is {level})"
    return None


@contextlib.contextmanager
def recording(path: Path) -> Iterator[None]:
    """Sample every CPU into `path` while the block runs. The block starts only once perf
    says it samples (its control pipe acknowledges ``enable``: perf ≥ 5.10), so nothing
    at the start is missed however long perf takes to set up."""
    ctl_read, ctl_write = os.pipe()
    ack_read, ack_write = os.pipe()
    perf = subprocess.Popen(
        ["perf", "record", "-a", "-e", "cpu-clock", "-F", str(FREQUENCY), "-k", "CLOCK_MONOTONIC",
         "-D", "-1", "--control", f"fd:{ctl_read},{ack_write}", "-o", str(path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, pass_fds=(ctl_read, ack_write),
    )
    os.close(ctl_read)
    os.close(ack_write)
    started = False
    try:
        os.write(ctl_write, b"enable\n")
        ready, _, _ = select.select([ack_read], [], [], 60)
        started = bool(ready) and os.read(ack_read, 64).startswith(b"ack")
        if started:
            yield
    finally:
        if perf.poll() is None:
            perf.send_signal(signal.SIGINT)
        _, err = perf.communicate(timeout=60)
        os.close(ctl_write)
        os.close(ack_read)
    said = err.decode(errors="replace").strip()
    if not started:
        raise SystemExit(f"perf record did not start: {said}")
    if perf.returncode not in (0, -signal.SIGINT) or not path.exists():
        raise SystemExit(f"perf record failed: {said}")


def label(comm: str, dso: str) -> str:
    """What a sample stands for (see the module docstring)."""
    if comm.startswith("swapper"):
        return "idle"
    if not comm.startswith("python"):
        return "other processes"
    return os.path.basename(dso) or "unknown"


def parse(lines: Iterable[str]) -> list[tuple[float, str]]:
    """(time, label) of each sample line of ``perf script -F comm,time,ip,dso``."""
    out = []
    for line in lines:
        m = _LINE.match(line)
        if m is not None:
            out.append((float(m["time"]), label(m["comm"], m["dso"])))
    return out


def samples(path: Path) -> list[tuple[float, str]]:
    """The samples of a `recording`."""
    script = subprocess.run(["perf", "script", "-i", str(path), "-F", "comm,time,ip,dso"],
                            capture_output=True, text=True, check=True)
    return parse(script.stdout.splitlines())


def report(found: Sequence[tuple[float, str]], windows: Iterable[tuple[float, float]], what: str,
           count: int = 0) -> list[list[object]]:
    """Print how busy the CPUs were in `windows` (and the peers' CPU time per window, given
    their `count`), and how the peer processes' share splits by library; returns the split
    as `cpuprofile.report` does."""
    spans = cpuprofile.merged(windows)
    inside, n_inside = cpuprofile.shares(found, spans)
    seconds = sum(end - start for start, end in spans)
    possible = seconds * FREQUENCY * (os.cpu_count() or 1)
    if possible:
        busy = ", ".join(f"{where} {100 * inside[where] / possible:.0f} %" for where in ("idle", "other processes"))
        peers = n_inside - inside["idle"] - inside["other processes"]
        each = f"; {1000 * peers / FREQUENCY / count:.1f} ms of peer CPU each" if count else ""
        print(f"CPUs in {what}: peer processes {100 * peers / possible:.0f} %, {busy}{each}")
    mine = [(t, where) for t, where in found if where not in ("idle", "other processes")]
    return cpuprofile.report(mine, spans, what, rows=10)
