"""§11.3: a seat's journal is written as it signs the roster (`cli.game.SeatBook`), and
goes again if no game begins."""

from __future__ import annotations

import argparse
import types
from pathlib import Path

from cli.game import SeatBook, seat_log_path
from p2p.appendfile import in_use
from p2p.journal import journal_path, read_journal
from p2p.lobby import Signing
from test_lobby_machine import signing


def bobs_signing(tmp_path: Path) -> Signing:
    """What bob's lobby tells its runner as he signs the roster of alice's table."""
    ids, host, bob, carol, start = signing(tmp_path)
    return next(a for a in bob.on_message(ids[0].peer_id, start) if isinstance(a, Signing))


def args_for(tmp_path: Path, **more: object) -> argparse.Namespace:
    return argparse.Namespace(**{"state_dir": tmp_path / "state", "log": None, "log_dir": tmp_path / "logs", **more})


def test_11_3_the_journal_is_written_as_the_seat_signs_and_holds_what_a_resume_needs(tmp_path: Path) -> None:
    seen, args = bobs_signing(tmp_path), args_for(tmp_path)
    with SeatBook(types.SimpleNamespace(port=4321), args) as book:  # type: ignore[arg-type]
        book.sign(seen)
        path = journal_path(args.state_dir, seen.game_id)
        assert in_use(path)  # (held while its seat plays: nobody else resumes it)
        kept = read_journal(path)
        assert (kept.game, kept.seat, kept.roster, kept.port) == (seen.game_id, 1, seen.canonical, 4321)
        assert kept.grace == seen.roster.rules.grace_s == 120  # (the table's rule, §6.8: not any seat's own)
        assert kept.addresses == [m.address for m in seen.roster.members] and kept.sent == []
        assert kept.log == seat_log_path(seen, args).resolve() and not kept.log.exists()
        assert book.seated is not None and book.seated.seed == kept.seed
        book.seated.taken = True  # (its game began: the game owns the journal)
    assert path.exists()


def test_11_3_a_lobby_that_ends_without_a_game_leaves_no_journal(tmp_path: Path) -> None:
    """The start failed (`lobby.fail`), or the player left while the roster was being
    signed: no game will begin, so nothing is left to resume."""
    seen, args = bobs_signing(tmp_path), args_for(tmp_path)
    try:
        with SeatBook(types.SimpleNamespace(port=4321), args) as book:  # type: ignore[arg-type]
            book.sign(seen)
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert not journal_path(args.state_dir, seen.game_id).exists()
    with SeatBook(types.SimpleNamespace(port=4321), args_for(tmp_path, lobby_only=True)) as book:  # type: ignore[arg-type]
        book.sign(seen)  # (a seat that plays no game: --lobby-only)
        assert book.seated is None and not journal_path(args.state_dir, seen.game_id).exists()
