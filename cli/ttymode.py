"""A terminal put back in line mode before the program asks a question on it.

A full-screen client turns the terminal's line discipline off (no echo, no line editing,
Enter read as a carriage return) and turns it back on when it ends. A client that was
killed (or crashed) cannot: the next command in that terminal inherits a raw terminal,
where a question that reads a line never sees Enter and the keys typed do not show. The
commands that ask such a question (`join`/`host`/`play` offering a game that still waits
for this seat) put the line discipline back first, as `stty sane` would for these flags.

A shell with job control (bash, zsh) puts the line discipline back itself after a job
killed by a signal, but not the screen: the terminal is still on the client's alternate
screen, its cursor hidden. No terminal can be asked reliably which screen it shows, so
the client leaves a mark while its screen is up (`full_screen_mark`, removed when it
closes it); a mark whose process is gone says the screen was left up on this terminal.
Marks are named by the terminal's device and kept in a folder of the user's own, written
and read never through a link.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

try:
    import termios
except ImportError:  # (no POSIX terminals here: nothing to put back)
    termios = None  # type: ignore[assignment]

TERMINAL_ERRORS: tuple[type[Exception], ...] = (OSError, ValueError, NotImplementedError) + (
    (termios.error,) if termios is not None else ())
"""What asking a terminal for its modes or its foreground may raise (not a terminal, gone, not ours)."""

AFTER_A_FULL_SCREEN = "\x1b[?2004l\x1b7\x1b[?1049l\x1b[?25h\x1b[?7h"
"""Bracketed paste off, back from the alternate screen (to what the terminal showed
before the client started, and where its cursor was), the cursor shown, long lines
wrapped again: what a killed client left on. (The cursor is saved first: a terminal that keeps one saved cursor a
screen, and was not on the alternate one after all, puts it back where it was.)"""


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
    it was not, or a full-screen client's mark says it was killed with its screen up,
    `out` back on the terminal's own screen with the cursor shown, so the question is not
    asked over the dead table."""
    left_up = screen_left_up(out)
    try:
        changed = line_mode(keys.fileno())
    except (OSError, ValueError):  # (not a real file)
        return
    if (changed or left_up) and out.isatty():
        out.write(AFTER_A_FULL_SCREEN)
        out.flush()


TTY_ALIAS = os.makedev(5, 0) if hasattr(os, "makedev") else -1  # /dev/tty: "my terminal", whichever it is


def _terminal_device(fd: int) -> int | None:
    """The device number of the terminal `fd` writes to: for /dev/tty, the one it stands
    for (a question asked there when the standard input is a pipe, `join --code -`)."""
    if not os.isatty(fd):
        return None
    device = os.fstat(fd).st_rdev
    if device != TTY_ALIAS:
        return device
    for std in (2, 1, 0):  # (the standard streams still on the terminal name it)
        with contextlib.suppress(OSError):
            if os.isatty(std) and (other := os.fstat(std).st_rdev) != TTY_ALIAS:
                return other
    with contextlib.suppress(OSError, ValueError, IndexError):  # (Linux: the controlling terminal, tty_nr)
        fields = Path("/proc/self/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
        number = int(fields[4])
        if number:
            return os.makedev((number >> 8) & 0xFFF, (number & 0xFF) | ((number >> 12) & 0xFFF00))
    return None


def _mark_folder() -> Path | None:
    """This user's folder for marks: the runtime folder (XDG_RUNTIME_DIR, the user's
    own), else one in the temporary folder that this user made and no one else may use;
    None if it is not (another user may have made it first, to have a mark written
    through a link of theirs)."""
    user = os.getuid() if hasattr(os, "getuid") else 0
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    folder = Path(runtime) / "bandit-lan" if runtime else Path(tempfile.gettempdir()) / f"bandit-lan-{user}-screens"
    try:
        folder.mkdir(mode=0o700, parents=bool(runtime), exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != user or st.st_mode & 0o077:
        return None
    return folder


def _mark_path(out: IO[str]) -> Path | None:
    """Where the mark of a full screen on `out`'s terminal goes (None: not a terminal,
    or no safe place for it)."""
    try:
        device = _terminal_device(out.fileno())
    except (OSError, ValueError):
        return None
    folder = None if device is None else _mark_folder()
    return None if folder is None else folder / f"tty-{device:x}"


def _write_mark(path: Path, text: str) -> None:
    """`text` in the mark at `path`, never through a link."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as mark:
        mark.write(text)


def _read_mark(path: Path) -> str:
    """The mark at `path`, never through a link."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, encoding="ascii") as mark:
        return mark.read()


@contextlib.contextmanager
def full_screen_mark(out: IO[str]) -> Iterator[Kept]:
    """While a full screen is up on the terminal `out`: a mark of it, naming this process
    (left behind if the process is killed, or if it is `Kept` when the block ends: the
    screen could not be put away; best effort, a mark that cannot be written is no fault)."""
    path = _mark_path(out)
    mine = str(os.getpid())
    if path is not None:
        try:
            _write_mark(path, mine)
        except OSError:
            path = None
    kept = Kept()
    try:
        yield kept
    finally:
        if path is not None and not kept.kept:
            with contextlib.suppress(OSError, ValueError):
                if _read_mark(path) == mine:
                    path.unlink()


def in_the_foreground(fd: int) -> bool:
    """Whether this process is in the foreground process group of the terminal `fd` (may
    read it and set its modes without being stopped); raises `OSError` where `fd` is not
    its controlling terminal."""
    return os.tcgetpgrp(fd) == os.getpgrp()


def point_at_nowhere(fds: Iterable[int]) -> None:
    """Point each descriptor of `fds` at /dev/null (what is read there ends at once, what
    is written goes nowhere): a terminal hung up, a reader gone, a terminal no longer
    this program's to write on."""
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in fds:
            os.dup2(null, fd)
    finally:
        os.close(null)


class Kept:
    """Whether a `full_screen_mark` stays when its block ends (`keep`)."""

    def __init__(self) -> None:
        self.kept = False

    def keep(self) -> None:
        self.kept = True


def screen_left_up(out: IO[str]) -> bool:
    """A full-screen client's mark on `out`'s terminal, of a process that is gone: it was
    killed with its screen up (the mark is removed). A process still there (stopped with
    Ctrl-Z, its screen put away) is no such client."""
    path = _mark_path(out)
    if path is None:
        return False
    try:
        pid = int(_read_mark(path))
    except (OSError, ValueError):
        return False
    if _running(pid):
        return False
    with contextlib.suppress(OSError):
        path.unlink()
    return True


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (another user's: it exists)
        return True
    return True
