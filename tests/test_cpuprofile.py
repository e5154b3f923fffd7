"""bench/cpuprofile.py: what a CPU sample is charged to, and which samples a report
counts (those inside the timed windows, overlapping windows counted once)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bench import cpuprofile

ROOT = Path(__file__).resolve().parent.parent


def frame(path: str, name: str = "f", back: Any = None) -> Any:
    return SimpleNamespace(f_code=SimpleNamespace(co_filename=path, co_name=name), f_back=back)


def test_a_sample_is_charged_to_the_innermost_frame_that_names_real_code() -> None:
    site = "/usr/lib/python3.11/site-packages"
    order = frame(str(ROOT / "p2p" / "order" / "orderer.py"))
    assert cpuprofile.label(sys._getframe()) == "tests/test_cpuprofile.py"
    assert cpuprofile.label(order) == "p2p/order/orderer.py"
    assert cpuprofile.label(frame(f"{site}/nacl/bindings/crypto_sign.py", "crypto_sign_open", order)) == "nacl crypto_sign_open"
    assert cpuprofile.label(frame(f"{site}/trio/_core/_run.py", "unrolled_run")) == "trio"
    assert cpuprofile.label(frame("<attrs generated methods outcome._impl.Value>", "__init__", order)) == "trio"
    assert cpuprofile.label(frame("<string>", "__init__", order)) == "p2p/order/orderer.py"  # a dataclass's __init__
    assert cpuprofile.label(frame(f"{site}/msgpack/__init__.py", "packb", order)) == "msgpack"
    assert cpuprofile.label(frame(f"{site}/p2p/wire.py", "decode")) == "p2p/wire.py"  # installed, not editable
    assert cpuprofile.label(frame("/usr/lib/python3.11/json/decoder.py", "decode", order)) == "json"
    assert cpuprofile.label(frame("/usr/lib/python3.11/ssl.py", "read", order)) == "ssl"
    assert cpuprofile.label(None) == "?"


def test_only_samples_inside_the_windows_count_and_overlaps_count_once(capsys) -> None:  # type: ignore[no-untyped-def]
    samples = [(0.5, "trio"), (1.0, "p2p/order/orderer.py"), (1.5, "p2p/order/orderer.py"), (1.7, "nacl crypto_sign"),
               (2.5, "trio"), (3.0, "trio"), (9.0, "p2p/order/orderer.py")]
    windows = [(1.0, 2.0), (1.5, 1.8), (3.0, 3.5)]  # the second lies inside the first
    assert cpuprofile.merged(windows) == [(1.0, 2.0), (3.0, 3.5)]
    counts, total = cpuprofile.shares(samples, windows)
    assert total == 4 and counts == {"p2p/order/orderer.py": 2, "nacl crypto_sign": 1, "trio": 1}
    table = cpuprofile.report(samples, windows, "claim windows", rows=2)
    assert table == [["p2p/order/orderer.py", 50.0, 42.9], ["nacl crypto_sign", 25.0, 14.3]]
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "CPU samples of every peer process: 4 in claim windows, 7 in all"
    assert "25.0 %  everything else" in out


def test_the_sampler_charges_cpu_time_to_the_code_that_ran() -> None:
    sampler = cpuprofile.Sampler(interval=0.001)
    sampler.start()
    try:
        total = 0
        while len(sampler.samples) < 3:  # burn CPU until the kernel has sampled it thrice
            total += sum(range(1000))
    finally:
        sampler.stop()
    assert all(where == "tests/test_cpuprofile.py" for _, where in sampler.samples)
    times = [t for t, _ in sampler.samples]
    assert times == sorted(times)
