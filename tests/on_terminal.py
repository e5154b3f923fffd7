"""`python -m tests.on_terminal ARGS…`: `python -m ARGS…` in a session of its own whose
controlling terminal is its standard input (a pty), as a terminal window runs its shell:
closing the terminal's other side hangs it up (SIGHUP). Started as a process of its own
(`subprocess`), not forked from a test's threaded process."""

from __future__ import annotations

import fcntl
import os
import sys
import termios


def take_terminal() -> None:
    """Lead a new session, standard input (a terminal) its controlling terminal."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def main() -> None:
    take_terminal()
    os.execv(sys.executable, [sys.executable, "-m", *sys.argv[1:]])


if __name__ == "__main__":
    main()
