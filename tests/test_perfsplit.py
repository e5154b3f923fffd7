"""bench/perfsplit.py: what a perf sample is charged to, and a real recording cut to windows."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import perfsplit  # noqa: E402

SCRIPT = """\
          python 20662.656069:      7f62d76ba754 (/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0)
         swapper 20662.657070:  ffffffff8f9d5e2b ([kernel.kallsyms])
          python 20662.658075:  ffffffff8f12a0b1 ([kernel.kallsyms])
  python3.11 dbg 20662.659001:      7f62d7b0362a (/venv/lib/python3.11/site-packages/nacl/_sodium.abi3.so)
       kdamond.0 20662.660000:  ffffffff8f12a0b1 ([kernel.kallsyms])
          python 20662.661000:      7f62d7b0362a ([unknown])
a line that is not a sample
"""


def test_a_sample_is_charged_to_its_library_idle_or_another_process() -> None:
    found = perfsplit.parse(SCRIPT.splitlines())
    assert found == [
        (20662.656069, "libpython3.11.so.1.0"),
        (20662.657070, "idle"),
        (20662.658075, "[kernel.kallsyms]"),
        (20662.659001, "_sodium.abi3.so"),  # (a thread name with a space)
        (20662.660000, "other processes"),
        (20662.661000, "[unknown]"),
    ]


def test_the_report_counts_only_samples_inside_the_windows(capsys: pytest.CaptureFixture[str]) -> None:
    found = perfsplit.parse(SCRIPT.splitlines())
    rows = perfsplit.report(found, [(20662.656, 20662.6581), (20662.6595, 20662.6605)], "the windows", count=2)
    said = capsys.readouterr().out
    # the first window holds two samples of peers and an idle one; the second another process's
    assert "2 in the windows, 4 in all" in said
    assert "1.0 ms of peer CPU each" in said  # two samples of 1/999 s for two windows
    assert rows == [["libpython3.11.so.1.0", 50.0, 25.0], ["[kernel.kallsyms]", 50.0, 25.0]]


@pytest.mark.skipif(perfsplit.available() is not None, reason=str(perfsplit.available()))
def test_a_real_recording_sees_this_process_work_in_the_interpreter(tmp_path: Path) -> None:
    path = tmp_path / "perf.data"
    with perfsplit.recording(path):
        start = time.clock_gettime(time.CLOCK_MONOTONIC)
        while time.clock_gettime(time.CLOCK_MONOTONIC) < start + 0.3:  # Python work, on the clock perf stamps with
            sum(i * i for i in range(1000))
        end = time.clock_gettime(time.CLOCK_MONOTONIC)
    found = perfsplit.samples(path)
    inside = [where for t, where in found if start <= t <= end]
    # the interpreter: libpython, or the python binary itself where it is linked in statically
    interpreter = sum(where.startswith("libpython") or where == Path(os.path.realpath(sys.executable)).name
                      for where in inside)
    assert interpreter > 0.3 * 999 / 4  # (a busy machine gives it less than a whole CPU)
