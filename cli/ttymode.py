"""A terminal put back in line mode before the program asks a question on it.

A full-screen client turns the terminal's line discipline off (no echo, no line editing,
Enter read as a carriage return) and turns it back on when it ends. A client that was
killed (or crashed) cannot: the next command in that terminal inherits a raw terminal,
where a question that reads a line never sees Enter and the keys typed do not show. The
commands that ask such a question (`join`/`host`/`play` offering a game that still waits
for this seat) put the line discipline back first, as `stty sane` would for these flags.
"""

from __future__ import annotations

import os
from typing import IO

try:
    import termios
except ImportError:  # (no POSIX terminals here: nothing to put back)
    termios = None  # type: ignore[assignment]

AFTER_A_FULL_SCREEN = "\x1b[?2004l\x1b[?1049l\x1b[?25h"
"""Bracketed paste off, back from the alternate screen (to what the terminal showed
before the client started), the cursor shown: what a killed client left on."""


def line_mode(fd: int) -> bool:
    """Turn line editing, echo, signals and the Enter key's translation back on for the
    terminal `fd`, if it is one; True if anything had to change."""
    if termios is None or not os.isatty(fd):
        return False
    try:
        attrs = termios.tcgetattr(fd)
    except termios.error:
        return False
    iflag, oflag, lflag = attrs[0], attrs[1], attrs[3]
    iflag = (iflag | termios.ICRNL) & ~(termios.INLCR | termios.IGNCR)
    oflag |= termios.OPOST | termios.ONLCR
    lflag |= termios.ICANON | termios.ECHO | termios.ECHOE | termios.ECHOK | termios.ISIG | termios.IEXTEN
    if (iflag, oflag, lflag) == (attrs[0], attrs[1], attrs[3]):
        return False
    attrs[0], attrs[1], attrs[3] = iflag, oflag, lflag
    try:
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
    except termios.error:
        return False
    return True


def ready_to_ask(keys: IO[str], out: IO[str]) -> None:
    """Before a question read line by line from `keys`: its terminal in line mode and, if
    it was not (a full-screen client was killed in it), `out` back on the terminal's own
    screen with the cursor shown, so the question is not asked over the dead table."""
    try:
        changed = line_mode(keys.fileno())
    except (OSError, ValueError):  # (not a real file)
        return
    if changed and out.isatty():
        out.write(AFTER_A_FULL_SCREEN)
        out.flush()
