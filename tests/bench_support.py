"""Running a benchmark script as its users do, for the tests of `bench/`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def run_bench(script: str, *args: str, timeout: float = 300) -> tuple[dict[str, Any], str]:
    """`python bench/<script> <args> --json`, run from the project's root: its figures
    (the JSON of its last line) and everything it printed. It must exit 0."""
    done = subprocess.run([sys.executable, str(ROOT / "bench" / script), *args, "--json"],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stdout
