"""`join --code -`: the table code is read from the standard input only once it is
needed, after the offer to go back to a waiting game and once the table is found."""

from __future__ import annotations

import argparse
import io
import socket
from pathlib import Path

import pytest

import cli.join
import cli.resume
from cli.main import main
from p2p.discovery import TableAd
from p2p.roster import PROTOCOL_VERSION


@pytest.fixture
def stdin(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """The code, piped in (a pipe is no terminal: its first line is read)."""
    given = io.StringIO("sesame\n")
    monkeypatch.setattr("sys.stdin", given)
    return given


def ad(host: str, port: int, fingerprint: int) -> TableAd:
    return TableAd("Friday", host, 4, 2, PROTOCOL_VERSION, bytes([fingerprint]) * 32, port, ("127.0.0.1",), code=True)


def unused_port() -> int:
    with socket.socket() as sock:  # (nobody listens there once it is closed)
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_join_code_from_the_input_is_left_unread_when_the_player_goes_back_to_a_waiting_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stdin: io.StringIO) -> None:
    """Going back to the game that waits (`--resume`) needs no code: it is not read, nor
    before the question is asked (it was read first, then the player went back)."""
    unread_when_asked: list[bool] = []

    def offer(*_given: object, **_named: object) -> str:
        unread_when_asked.append(stdin.tell() == 0)
        return "back"

    went: list[argparse.Namespace] = []
    monkeypatch.setattr(cli.resume, "offer_resume", offer)
    monkeypatch.setattr(cli.resume, "run_resume", lambda again, **_named: went.append(again) or 0)
    assert main(["join", "--peer", f"127.0.0.1:{unused_port()}", "--code", "-", "--headless",
                 "--state-dir", str(tmp_path)]) == 0
    assert unread_when_asked == [True] and len(went) == 1
    assert stdin.read() == "sesame\n"


@pytest.mark.parametrize("found", ["two of that name", "none"])
def test_join_code_from_the_input_is_left_unread_when_the_table_is_not_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stdin: io.StringIO,
        found: str) -> None:
    """Two tables of the name given (or none): the player is told so, and no code is read
    (the code is read only once the table is found)."""
    async def browse(*_given: object, **_named: object) -> list[TableAd]:
        assert stdin.tell() == 0, "the code was read before the table was looked for"
        return [ad("ann", 4000, 1), ad("bob", 4001, 2)] if found != "none" else []

    monkeypatch.setattr(cli.join, "browse", browse)
    assert main(["join", "Friday", "--code", "-", "--headless", "--bind", "127.0.0.1",
                 "--state-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert ("several tables are named 'Friday', hosted by ann" if found != "none"
            else "no table named 'Friday' found on the LAN") in err, err
    assert stdin.read() == "sesame\n"


def test_join_code_from_the_input_is_read_once_the_table_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stdin: io.StringIO) -> None:
    port = unused_port()

    async def browse(*_given: object, **_named: object) -> list[TableAd]:
        assert stdin.tell() == 0, "the code was read before the table was looked for"
        return [ad("ann", port, 1)]

    monkeypatch.setattr(cli.join, "browse", browse)
    assert main(["join", "Friday", "--code", "-", "--headless", "--bind", "127.0.0.1",
                 "--state-dir", str(tmp_path)]) == 1  # (nobody listens at its address)
    err = capsys.readouterr().err
    # (found by name: no address typed, to check on the host's screen)
    assert err == f"bandit-lan: nothing answers at 127.0.0.1:{port}\n", err
    assert stdin.read() == ""  # (read, to join with)


def test_s5_a_table_not_found_by_name_may_be_one_whose_game_began(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A late friend ran `join Friday` while Friday's game was on and read only that no
    table of that name was on the LAN, as `tables` said "No tables found": both say that
    a table is listed only until its game begins."""
    from cli.tables import render

    async def browse(*_given: object, **_named: object) -> list[TableAd]:
        return []

    monkeypatch.setattr(cli.join, "browse", browse)
    assert main(["join", "Friday", "--headless", "--bind", "127.0.0.1", "--state-dir", str(tmp_path)]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "no table named 'Friday' found on the LAN (looked for 5 s). A table is listed while it waits for " \
           "players, no longer once its game has begun." in err, err
    assert render([]) == ["No tables found on the LAN. A table is listed while it waits for players, no longer "
                          "once its game has begun."]
