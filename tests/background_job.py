"""`python -m tests.background_job ARGS…`: `python -m ARGS…` as a job in the background of
its own terminal, as a shell runs `COMMAND &`. This process leads a new session whose
controlling terminal is its standard input (a pty), keeps that terminal's foreground,
and runs the command in a process group of its own, whose id it prints first
("background job 1234": what kills this process does not reach that group,
`cli_support.kill_job` does); its exit status is the command's."""

from __future__ import annotations

import os
import sys

from tests.on_terminal import take_terminal


def main() -> int:
    take_terminal()
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        os.write(1, f"background job {os.getpid()}\n".encode())  # (before the command's first word)
        os.execv(sys.executable, [sys.executable, "-m", *sys.argv[1:]])
    os.setpgid(pid, pid)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
