"""§11.3: the seat journal reads back what was written; a last frame cut short was never sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p.journal import Journal, JournalError, read_journal
from p2p.signing import SignedMessage


def test_11_3_the_journal_reads_back_and_ignores_a_torn_last_frame(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    journal = Journal.create(path, game=bytes(32), seat=1, seed=bytes([7]) * 32, log=tmp_path / "g.log", port=4000,
                             addresses=[("10.0.0.1", 4001), None], roster=b"R")
    for i in range(3):
        journal.sent(SignedMessage(bytes(32), {}, bytes([i]) * 10, bytes([i]) * 64))
    journal.close(finished=False)
    whole = path.read_bytes()
    path.write_bytes(whole[:-5])  # killed in the middle of the third write
    contents = read_journal(path)
    assert (contents.seat, contents.port, contents.addresses) == (1, 4000, [("10.0.0.1", 4001), None])
    assert contents.sent == [(bytes([i]) * 10, bytes([i]) * 64) for i in range(2)]
    reopened, again = Journal.reopen(path)
    reopened.close(finished=True)
    assert again.sent == contents.sent and not path.exists()  # a finished game leaves no journal


def test_11_3_a_frame_longer_than_a_journal_may_hold_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.journal"
    path.write_bytes((1 << 30).to_bytes(4, "big") + b"x")
    with pytest.raises(JournalError):
        read_journal(path)


def test_11_3_a_journal_written_before_version_3_still_resumes(tmp_path: Path) -> None:
    """A seat that stopped mid-game under the program before journals held R (version 2,
    written as its game began) is still found and taken back after an upgrade."""
    from p2p.journal import SCHEMAS
    from p2p.wire import encode_frame

    path = tmp_path / "g.journal"
    seat = {"type": "journal.seat", "v": 2, "game": bytes(32), "seat": 1, "seed": bytes([7]) * 32,
            "log": str(tmp_path / "g.log"), "port": 4000, "addresses": [["10.0.0.1", 4001], ["", 0]], "boot": "",
            "grace_ms": 120000}
    SCHEMAS.check(seat)
    path.write_bytes(encode_frame(seat))
    contents = read_journal(path)
    assert (contents.seat, contents.roster, contents.grace) == (1, b"", 120.0)
    assert contents.began()  # (version 2 was written as the game began, log or not)


def test_11_3_the_journal_keeps_whether_its_seat_trusted_the_host_on_first_use(tmp_path: Path) -> None:
    """A seat that joined by address keeps that in its journal, so that, taken back, it
    shows the host's fingerprint again; a journal of version 3 (written before it kept
    that) reads as a seat that did not."""
    from p2p.journal import SCHEMAS
    from p2p.wire import encode_frame

    for first_use in (True, False):
        path = tmp_path / f"{first_use}.journal"
        Journal.create(path, game=bytes(32), seat=1, seed=bytes(32), log=tmp_path / "g.log", port=4000,
                       addresses=[None, None], roster=b"R", first_use=first_use).close(finished=False)
        assert read_journal(path).first_use is first_use
    old = tmp_path / "v3.journal"
    seat = {"type": "journal.seat", "v": 3, "game": bytes(32), "seat": 1, "seed": bytes(32),
            "log": str(tmp_path / "g.log"), "port": 4000, "addresses": [["10.0.0.1", 4001], ["", 0]], "boot": "",
            "grace_ms": 120000, "roster": b"R"}
    SCHEMAS.check(seat)
    old.write_bytes(encode_frame(seat))
    contents = read_journal(old)
    assert (contents.roster, contents.first_use) == (b"R", False)


def test_11_3_a_journal_given_up_keeps_the_time_its_seat_stopped(tmp_path: Path) -> None:
    """A `--resume` that could not start (or tried for 30 s and gave up) gives the journal
    back with the very time it had: its age must still say when the seat stopped, or the
    next offer says "stopped 25 s ago" of a game that stopped long before."""
    import os
    import time

    path = tmp_path / "g.journal"
    Journal.create(path, game=bytes(32), seat=1, seed=bytes(32), log=tmp_path / "g.log", port=4000,
                   addresses=[None, None], roster=b"R").close(finished=False)
    stopped = time.time() - 100.0
    os.utime(path, (stopped, stopped))
    journal, _ = Journal.reopen(path)
    journal.release()
    assert path.stat().st_mtime == stopped


def test_11_3_a_log_made_but_never_written_is_a_game_that_had_not_begun(tmp_path: Path) -> None:
    """The log is made, then its header written (one write); a kill between the two left
    an empty file, which made the seat's game look begun, and `--resume` said its log
    could not be read. Empty, with nothing sent, it is a game that had not begun: the
    seat signs again (§11.3). A log with anything in it, or a seat that sent anything,
    had begun."""
    log = tmp_path / "g.log"
    path = tmp_path / "g.journal"
    journal = Journal.create(path, game=bytes(32), seat=1, seed=bytes(32), log=log, port=4000,
                             addresses=[None, None], roster=b"R")
    assert not read_journal(path).began() and not read_journal(path).unmade_log()  # (no log: stopped as it signed)
    log.touch()
    assert not read_journal(path).began() and read_journal(path).unmade_log()
    log.write_bytes(b"\x00")
    assert read_journal(path).began() and not read_journal(path).unmade_log()
    log.write_bytes(b"")
    journal.sent(SignedMessage(bytes(32), {}, b"body", bytes(64)))
    journal.close(finished=False)
    assert read_journal(path).began() and not read_journal(path).unmade_log()  # (it sent: its log is damaged)


def test_s9_12_the_journal_keeps_the_seat_seed_from_other_users_and_from_reprs(tmp_path: Path) -> None:
    """The seat seed gives every secret of its seat (§9.12): its journal is the owner's
    alone (file 0600 in a folder 0700) and no repr of what holds it shows it."""
    import stat

    from p2p.journal import open_seat_journal

    seated = open_seat_journal(tmp_path / "state", game=bytes(32), roster=b"R", seat=0, log=tmp_path / "g.log",
                               port=4000, addresses=[None, ("10.0.0.2", 4001)])
    try:
        path = seated.journal.path
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        contents = read_journal(path)
        assert contents.seed == seated.seed
        for holder in (seated, contents):
            assert seated.seed.hex() not in repr(holder) and repr(seated.seed) not in repr(holder)
    finally:
        seated.journal.close(finished=True)


def test_R4_s11_3_the_journal_keeps_when_the_look_at_the_bottom_cards_began(tmp_path: Path) -> None:
    """A seat restarted during its look at the bottom cards is shown only what is left of
    R4.3's 10 s: its journal keeps when the look began (the last record of it), and the
    time it stopped tells how long it was shown."""
    import os

    from cli.tui.client import look_seen

    path = tmp_path / "g.journal"
    journal = Journal.create(path, game=bytes(32), seat=1, seed=bytes(32), log=tmp_path / "g.log", port=4000,
                             addresses=[None, None], roster=b"R")
    journal.look(1, 1_000_000.25)
    journal.sent(SignedMessage(bytes(32), {}, b"ready", bytes(64)))
    journal.look(2, 1_000_100.5)  # (the next round's)
    journal.close(finished=False)
    os.utime(path, (1_000_106.5, 1_000_106.5))  # its last mark of life: 6 s into round 2's look
    reopened, contents = Journal.reopen(path)
    assert contents.look == (2, 1_000_100.5) and contents.sent == [(b"ready", bytes(64))]
    seen = look_seen(contents, reopened.stopped)
    assert seen is not None and (seen.round, seen.shown_s) == (2, 6.0)
    reopened.release()


def test_s11_3_the_journal_says_its_seat_went_away_until_it_runs_again(tmp_path: Path) -> None:
    """A seat whose terminal hung up goes away meaning to come back: its journal says so,
    for its player's resume; once the seat is taken back and sends again, it no longer does."""
    path = tmp_path / "g.journal"
    journal = Journal.create(path, game=bytes(32), seat=1, seed=bytes(32), log=tmp_path / "g.log", port=4000,
                             addresses=[None, None], roster=b"R")
    journal.sent(SignedMessage(bytes(32), {}, b"keys", bytes(64)))
    journal.away("their terminal was closed")
    journal.close(finished=False)
    reopened, contents = Journal.reopen(path)
    assert contents.away == "their terminal was closed" and contents.sent == [(b"keys", bytes(64))]
    reopened.sent(SignedMessage(bytes(32), {}, b"ack", bytes(64)))  # (taken back: it acknowledges at once)
    reopened.close(finished=False)
    assert read_journal(path).away is None


def test_11_3_a_log_and_journal_of_different_seats_are_named_as_players_count_seats() -> None:
    """A resume given the log of another seat than its journal's says so, counting the
    seats from 1 as every screen does (it said "seat 0" for the host's)."""
    from types import SimpleNamespace

    from p2p.rejoin import ResumeError, restore

    log = SimpleNamespace(header=SimpleNamespace(seat=1))
    journal = SimpleNamespace(seat=0, game=bytes(32))
    with pytest.raises(ResumeError) as info:
        restore(log=log, journal=journal, seats=(), rules=None, keys={}, schemas=None, sign=None,  # type: ignore[arg-type]
                now=0.0)
    assert str(info.value) == "the log was written by seat 2, the journal by seat 1"


def test_11_3_a_resume_note_counts_messages_in_the_agreed_order_apart_from_share_messages() -> None:
    """A resume's note said "52 records replayed from this log", which the audit's report
    had to split; it now says the two counts itself, and the report tells it as written,
    as it still splits an older note's count at its place in the order."""
    from p2p.rejoin import resumed_note
    from p2p.report import _counted

    note = resumed_note(52, 12, 12.4)
    assert note == ("resumed after a restart: 40 messages in the agreed order and 12 share messages replayed from this "
                    "log in 12 ms")
    assert _counted(note, 40) == note
    assert resumed_note(1, 0, 3) == ("resumed after a restart: 1 message in the agreed order and no share messages "
                                     "replayed from this log in 3 ms")
    old = "resumed after a restart: 52 records replayed from this log in 12 ms"
    assert _counted(old, 40) == ("resumed after a restart: 52 records replayed from this log (40 messages in the agreed "
                                 "order and 12 share messages) in 12 ms")
