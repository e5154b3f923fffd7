"""A child process on a real terminal (a pty): reading the terminal's other side, and
ending what is still running when a test is done."""

from __future__ import annotations

import os
import re
import select
import subprocess
import time


def read_until(fd: int, wanted: bytes | re.Pattern[bytes], seen: bytearray, deadline: float) -> bool:
    """Read the terminal's other side `fd` into `seen` until `wanted` (bytes, or a pattern
    searched for) shows, or `deadline` (of `time.monotonic`) passes, or the child is gone."""
    def shown() -> bool:
        return wanted in seen if isinstance(wanted, bytes) else wanted.search(seen) is not None

    while not shown():
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return False
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # (the child closed its side: Linux says EIO)
            return False
        if not chunk:
            return False
        seen += chunk
    return True


def reap(*processes: subprocess.Popen[bytes] | None) -> None:
    """Kill each process still running and wait for it (a test's `finally`)."""
    for process in processes:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
