"""Append-only record files that stay whole when the disk fails (§10.1, §11.3).

Theory of operation
-------------------
The fairness log and the journal are sequences of frames appended to one file. A frame
is written whole or not at all: a write the operating system cuts short is finished by
the next one, and a write or sync that fails (no space left on the device, an I/O
error) is cut back to the end of the last whole frame. From then on the file takes
nothing more and `failure` says why; no call raises. Whoever owns the file reads
`failure` and ends its game cleanly (`TablePeer`), while what the file holds stays
readable: every record before the failure, byte for byte, as if the peer had stopped
there.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # (no flock here: a file's owner is not known)
    fcntl = None  # type: ignore[assignment]


class FileInUse(OSError):
    """The file is held by another process (`AppendFile(lock=True)`)."""


def _lock(fd: int, path: Path, *, shared: bool = False) -> None:
    """Hold `fd`'s lock until it is closed, or raise FileInUse at once."""
    if fcntl is None:
        return
    try:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise FileInUse(exc.errno, "held by another process", str(path)) from None
        raise


def in_use(path: Path) -> bool:
    """Whether another process holds `path` open with `lock=True` now."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        _lock(fd, path, shared=True)
    except FileInUse:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


class AppendFile:
    """An open append-only file of whole frames; `failure` is set once writing failed."""

    def __init__(self, path: Path, fd: int, intact: int) -> None:
        self.path = path
        self._fd = fd
        self._intact = intact  # bytes up to the end of the last whole frame
        self.failure: str | None = None

    @classmethod
    def create(cls, path: Path, *, mode: int, folder_mode: int = 0o777, lock: bool = False) -> AppendFile:
        """A new, empty file at `path`; an existing file is never overwritten (raises).
        `lock`: held by this process until closed (`in_use` tells others)."""
        path.parent.mkdir(parents=True, exist_ok=True, mode=folder_mode)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, mode)
        if lock:
            _lock(fd, path)  # (nobody else has it open yet: O_EXCL)
        return cls(path, fd, 0)

    @classmethod
    def reopen(cls, path: Path, intact: int, *, lock: bool = False) -> AppendFile:
        """Continue an existing file after its last whole frame (what follows is cut off).
        `lock`: as `create`; a file another process holds raises FileInUse, untouched."""
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        try:
            if lock:
                _lock(fd, path)
            if os.fstat(fd).st_size != intact:  # (cutting sets the file's time: only if there is a torn frame)
                os.ftruncate(fd, intact)
        except OSError:
            os.close(fd)
            raise
        return cls(path, fd, intact)

    def append(self, frame: bytes) -> bool:
        """Write one whole frame; False if the file failed (now or before)."""
        if self.failure is not None or self._fd < 0:
            return False
        try:
            rest = memoryview(frame)
            while rest:
                rest = rest[os.write(self._fd, rest):]
        except OSError as exc:
            self._fail(exc)
            return False
        self._intact += len(frame)
        return True

    def sync(self) -> bool:
        """Make what was written durable; False if the file failed."""
        if self.failure is not None or self._fd < 0:
            return False
        try:
            os.fsync(self._fd)
        except OSError as exc:
            self._fail(exc)
            return False
        return True

    def started(self, what: str) -> None:
        """After the first records: if they could not be written, close and remove the
        file and raise, so that no half-made file is left to be resumed or audited."""
        if self.failure is not None:
            self.close()
            self.path.unlink(missing_ok=True)
            raise OSError(errno.EIO, f"cannot start {what}: {self.failure}", str(self.path))

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            try:
                os.close(fd)
            except OSError as exc:  # a late write-back error: what was synced is kept
                self.failure = self.failure or (exc.strerror or str(exc))

    def _fail(self, exc: OSError) -> None:
        self.failure = exc.strerror or str(exc)
        try:  # shrinking a file needs no space; if even this fails, a reader cuts the torn frame
            os.ftruncate(self._fd, self._intact)
        except OSError:
            pass
