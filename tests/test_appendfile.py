"""§10.1, §11.3: the log and the journal are written a whole frame at a time, and a disk
that fails leaves them holding every whole frame written before, and nothing after."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from p2p.appendfile import AppendFile


def test_a_write_cut_short_by_the_os_is_finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real(fd, bytes(data[:3])))  # at most 3 bytes a call
    out = AppendFile.create(tmp_path / "f", mode=0o600)
    assert out.append(b"first frame") and out.append(b"second")
    out.close()
    assert (tmp_path / "f").read_bytes() == b"first framesecond" and out.failure is None


def test_a_failing_disk_keeps_the_whole_frames_and_takes_nothing_more(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = AppendFile.create(tmp_path / "f", mode=0o600)
    assert out.append(b"kept")
    real, calls = os.write, []

    def full(fd: int, data: bytes) -> int:  # half the frame fits, then the disk is full
        calls.append(len(data))
        if len(calls) == 1:
            return real(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    assert not out.append(b"torn frame")
    assert out.failure == "No space left on device"
    assert (tmp_path / "f").read_bytes() == b"kept"  # the half-written frame was cut off
    monkeypatch.setattr(os, "write", real)
    assert not out.append(b"later") and not out.sync()  # once failed, it takes nothing more
    out.close()
    assert (tmp_path / "f").read_bytes() == b"kept"


def test_an_existing_file_is_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"an earlier game")
    with pytest.raises(FileExistsError):
        AppendFile.create(tmp_path / "f", mode=0o600)
    assert (tmp_path / "f").read_bytes() == b"an earlier game"


def test_reopening_continues_after_the_last_whole_frame(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"wholetorn")
    out = AppendFile.reopen(tmp_path / "f", intact=5)
    assert out.append(b"next")
    out.close()
    assert (tmp_path / "f").read_bytes() == b"wholenext"
