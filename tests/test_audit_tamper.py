"""§10.2: any changed, dropped, duplicated or reordered record fails the audit, which
names the record, the peer and the check."""

from __future__ import annotations

import random
import re
import json
import subprocess
import sys
from pathlib import Path

import pytest

from p2p.audit import audit, writer_signed_it
from p2p.errors import ProtocolError
from p2p.identity import Identity
from p2p.log import LOG_LIMITS, FairnessLog, Header, LogError, read_log
from p2p.plain import plain, side_message
from p2p.roster import TableRules, parse_canonical
from p2p.wire import split_frames
from tests.ordersim import seeded_identity, seeded_identity_of
from p2p.plain import leave_claim
from tests.tablesim import TableNetwork
from tests.test_table_games import SMALL_DECK

ROOT = Path(__file__).resolve().parent.parent


# The tests share what a module fixture plays: one worker plays it and runs them all
pytestmark = pytest.mark.xdist_group("audit_tamper")


@pytest.fixture(scope="module")
def game_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    net = TableNetwork(3, 120, rules=TableRules(target=25, skills_text=SMALL_DECK))
    net.run()
    assert all(t.machine.finished for t in net.tables)
    return net.write_logs(tmp_path_factory.mktemp("logs"))[1]


def writer_of(header: Header) -> Identity:
    """The identity the roster names for `header`'s seat (a writer can sign its own log
    however it likes), or a stranger's where it names none."""
    try:
        peer = parse_canonical(header.roster).members[header.seat].peer_id
    except (ProtocolError, IndexError):
        peer = b""
    return seeded_identity_of(peer) or seeded_identity(bytes([0xEE]) * 32)


def rewrite(original: Path, tmp_path: Path, change, sides=lambda s: s, *,  # type: ignore[no-untyped-def]
            why: str = "the game ended", absent: int | None = None, left: str | None = None, leave=None) -> Path:
    """A copy of `original` whose ordered records went through `change` and whose side
    records (§7.8) went through `sides`, closed with `why` (and `absent`, `left`, `leave`,
    §10.1), signed by its writer: what the writer itself could write."""
    contents = read_log(original)
    messages = change(list(contents.messages))
    header = change.header(contents.header) if hasattr(change, "header") else contents.header
    path = tmp_path / "tampered.bandit-log"
    path.unlink(missing_ok=True)
    log = FairnessLog.create(path, header, writer_of(header))
    for body, sig in sides(list(contents.sides)):
        log._write({"type": "log.side", "v": 1, "body": body, "sig": sig})
    for body, sig in messages:
        log._write({"type": "log.msg", "v": 1, "body": body, "sig": sig})
    log.close(why, absent=absent, left=left, leave=leave)
    return path


def as_written(failure) -> str:  # type: ignore[no-untyped-def]
    """The words of a failure of a log `rewrite` made (its writer signs its end over it as
    it is, §10.2) less what says so, which they end with: that key signed it."""
    tail = f"; {writer_signed_it('P1')}"
    assert failure is not None and failure.signed_by == 1 and failure.what.endswith(tail), failure
    return failure.what.removesuffix(tail)


def test_audit_clean_log_passes(game_log: Path) -> None:
    result = audit(game_log)
    assert result.ok and result.finished and result.winners


def test_audit_changed_record_fails_its_signature(game_log: Path, tmp_path: Path) -> None:
    def change(messages):  # type: ignore[no-untyped-def]
        body, sig = messages[40]
        flipped = bytearray(body)
        flipped[-1] ^= 1
        messages[40] = (bytes(flipped), sig)
        return messages

    result = audit(rewrite(game_log, tmp_path, change))
    assert not result.ok
    assert result.first_failure.record == 40 and result.first_failure.section == "§4.5"
    assert "(its signature does not verify under the key of " in result.first_failure.what  # (§4.5, in plain words)
    assert "bad signature" not in result.first_failure.what
    assert result.first_failure.seat is None  # nobody signed it: the log was altered, no player is blamed


@pytest.mark.parametrize("where", ["message", "side"])
def test_s10_2_a_record_nobody_signed_blames_nobody_and_says_whose_it_claims_to_be(
        game_log: Path, tmp_path: Path, where: str) -> None:
    """Anyone can write 64 zero bytes for a signature: the record's `from` is its claim,
    not its author, so the verdict blames nobody (§10.2) and only tells whose it says it is."""
    zeroed = lambda records, at: [(body, bytes(64) if i == at else sig) for i, (body, sig) in enumerate(records)]
    if where == "message":
        result = audit(rewrite(game_log, tmp_path, lambda m: zeroed(m, 40)))
    else:
        result = audit(rewrite(game_log, tmp_path, lambda m: m, sides=lambda s: zeroed(s, 3)))
    failure = result.first_failure
    assert failure is not None and failure.section == "§4.5" and failure.seat is None
    assert ", the seat it names as its sender; the record says it is P" in failure.what, failure.what
    if where == "side":  # (by what it carried and its place in its sender's chain, and what such a message is)
        assert failure.what.startswith("the file was changed or damaged in the record of a share message that starts "
                                       "at byte "), failure.what
        assert "(a share message carries a player's shares of cards being revealed, and travels beside the agreed " \
               "order)" in failure.what
        from p2p.wire import decode_map

        inner = decode_map(read_log(game_log).sides[3][0])
        assert as_written(failure).endswith(f"; the record says it is {result.member(inner['from']).name}'s "  # type: ignore[union-attr]
                                            f"{side_message(inner['sseq'])})"), failure.what


def test_audit_dropped_record_breaks_a_chain(game_log: Path, tmp_path: Path) -> None:
    """Its sender's chain breaks at its next record, further on; the first record that
    does not hold is where it went missing, and the verdict counts up to there."""
    result = audit(rewrite(game_log, tmp_path, lambda m: m[:30] + m[31:]))
    assert not result.ok and result.first_failure.section in ("§7.2", "§7.4")
    assert result.first_failure.record == 30 and result.records == 31, result.first_failure
    assert result.first_failure.seat is None  # the log was altered: no player is blamed
    assert re.search(r"P\d's \([A-Z0-9-]+\) message: its seq \d+ comes where seq \d+ is due", result.first_failure.what)


def test_s10_2_a_dropped_record_is_named_where_it_went_missing_not_where_its_chain_breaks(
        game_log: Path, tmp_path: Path) -> None:
    """The next record is another seat's: the dropped one's sender shows the gap only at
    its own next record, further on. The verdict still names the place it went missing
    (where the agreed order stops holding) and says the log was altered, naming the gap;
    it counts the records checked up to there (it said "record 35" after "30 messages
    checked")."""
    from p2p.wire import decode_map

    senders = [decode_map(body)["from"] for body, _ in read_log(game_log).messages]
    k = next(i for i in range(20, len(senders) - 1) if senders[i] != senders[i + 1])
    result = audit(rewrite(game_log, tmp_path, lambda m: m[:k] + m[k + 1:]))
    failure = result.first_failure
    assert failure is not None and failure.record == k and result.records == k + 1 and failure.seat is None, failure
    gap = re.match(r"the log was altered: a record is missing or out of place here, where the agreed order stops "
                   r"holding \(§7\.\d+\); record (\d+) shows it \(P\d's \([A-Z0-9-]+\) message: its seq \d+ comes where",
                   failure.what)
    assert gap and "signed falsely" not in failure.what, failure.what
    shown = next(i for i in range(k + 1, len(senders)) if senders[i] == senders[k]) - 1  # (its index, one dropped)
    assert int(gap.group(1)) == shown + 1  # (in words, from 1)
    assert failure.what.count("altered") == 1, failure.what  # (said once, not again inside the brackets)


def test_s10_2_a_record_out_of_its_sender_s_chain_is_told_as_the_log_altered(game_log: Path, tmp_path: Path) -> None:
    """A repeated record, ordered or side, breaks its sender's chain (§7.2, §7.8): only an
    altered log shows that (an honest peer logs what its order accepted), and the verdict
    says so, so that the seat it names is not read as one that broke its chain."""
    from p2p.report import game_report

    result = audit(rewrite(game_log, tmp_path, lambda m: m[:50] + [m[49]] + m[50:]))
    assert result.first_failure is not None and result.first_failure.seat is None
    assert as_written(result.first_failure).endswith("is due: a record is missing, repeated or out of place; "
                                                     "the log was altered"), result.first_failure.what
    verdict = list(game_report(result))[-1]
    assert verdict.startswith("Verdict: NOT VERIFIED. P1's log is false: it is not as a player's program writes a "
                              "log, yet P1's key signed its end over it as it is")
    assert " First violation: record 51: §7.2: " in verdict
    assert verdict.endswith(f"; the log was altered; {writer_signed_it('P1')}")
    side = audit(rewrite(game_log, tmp_path, lambda m: m, lambda s: s[:5] + [s[4]] + s[5:])).first_failure
    assert side is not None and side.seat is None and side.what.startswith("the record of a share message that starts "
                                                                          "at byte ")
    assert as_written(side).endswith("; the log was altered"), side.what


def test_audit_duplicated_record_fails(game_log: Path, tmp_path: Path) -> None:
    result = audit(rewrite(game_log, tmp_path, lambda m: m[:50] + [m[49]] + m[50:]))
    assert not result.ok and result.first_failure.record == 50 and result.first_failure.section == "§7.2"


def test_audit_reordered_records_fail(game_log: Path, tmp_path: Path) -> None:
    contents = read_log(game_log)
    from p2p.wire import decode_map

    senders = [decode_map(body)["from"] for body, _ in contents.messages]
    i = next(i for i in range(20, len(senders) - 1) if senders[i] != senders[i + 1])
    result = audit(rewrite(game_log, tmp_path, lambda m: m[:i] + [m[i + 1], m[i]] + m[i + 2 :]))
    assert not result.ok and result.first_failure.record in (i, i + 1)
    assert result.first_failure.section in ("§7.2", "§7.4")
    assert result.first_failure.seat is None  # the log was altered: no player is blamed


def test_s7_4_two_records_of_one_stamp_swapped_are_told_as_the_tie_break_broken_by_an_altered_log(
        game_log: Path, tmp_path: Path) -> None:
    """Two messages of one stamp, from two seats, in the order the salted tie-break does
    not give (§7.4): the verdict names the tie-break, not "stamp 3 comes after stamp 3",
    and says the log was altered, blaming nobody (an honest writer logs the agreed order)."""
    from p2p.wire import decode_map

    heads = [decode_map(body) for body, _ in read_log(game_log).messages]
    i = next(i for i in range(len(heads) - 1)
             if heads[i]["lamport"] == heads[i + 1]["lamport"] and heads[i]["from"] != heads[i + 1]["from"])
    result = audit(rewrite(game_log, tmp_path, lambda m: m[:i] + [m[i + 1], m[i]] + m[i + 2:]))
    failure = result.first_failure
    assert failure is not None and (failure.record, failure.seat, failure.section) == (i + 1, None, "§7.4")
    assert as_written(failure).endswith(f"stamp {heads[i]['lamport']} comes after a message of the same stamp that "
                                        "the agreed tie-break (§7.4) puts after it: not the agreed order; the log was "
                                        "altered"), failure.what


def swapped(messages: list, one: int, other: int) -> list:  # type: ignore[type-arg]
    """`messages` with the records at `one` and `other` in each other's places."""
    messages = list(messages)
    messages[one], messages[other] = messages[other], messages[one]
    return messages


def test_s10_2_no_two_records_swapped_by_their_writer_blame_anyone(game_log: Path, tmp_path: Path) -> None:
    """Every adjacent pair of records, and a sample of pairs further apart, swapped in the
    writer's own log, its end signed again: the audit says the log was altered, blaming
    nobody. Where two records of one stamp were swapped, the one put first seemed to break
    a rule (a share for another card, §8.5) before the tie-break broke at the second: the
    table blamed its sender, as it did at a few of these pairs."""
    from p2p.wire import decode_map

    heads = [decode_map(body) for body, _ in read_log(game_log).messages]
    pairs = [(i, i + 1) for i in range(len(heads) - 1)]
    rng = random.Random(7)
    pairs += [tuple(sorted(rng.sample(range(len(heads)), 2))) for _ in range(30)]  # type: ignore[misc]
    blamed = []
    for one, other in pairs:
        result = audit(rewrite(game_log, tmp_path, lambda m: swapped(m, one, other)))
        failure = result.first_failure
        if failure is None or failure.seat is not None or failure.suspects or not result.altered:
            blamed.append((one, other, failure and failure.describe(result.names)))
        elif heads[one]["lamport"] == heads[other]["lamport"]:  # (one stamp: the tie-break breaks, nothing else)
            assert failure.section == "§7.4" and "the agreed tie-break (§7.4)" in failure.what, failure
            assert result.records == failure.record + 1 <= other + 1
    assert not blamed, blamed


def test_audit_truncated_log_is_incomplete(game_log: Path, tmp_path: Path) -> None:
    result = audit(rewrite(game_log, tmp_path, lambda m: m[: len(m) // 2]))
    assert not result.ok and result.first_failure.record is None and "before the game did" in result.first_failure.what
    assert "never closed" not in result.first_failure.what  # (it has its `log.end`)


def test_s10_2_a_log_still_being_written_is_not_verified_and_says_why(game_log: Path, tmp_path: Path) -> None:
    """A log without its `log.end` (a game in progress, or a peer that stopped) is not
    verified as a game, and the verdict says what may be going on, blaming nobody."""
    data = game_log.read_bytes()
    frames = [offset for offset, _payload in split_frames(data, LOG_LIMITS)]
    half = tmp_path / "in-progress.bandit-log"
    half.write_bytes(data[: frames[len(frames) // 2]])  # the first half of its frames, whole
    result = audit(half)
    failure = result.first_failure
    assert not result.ok and failure is not None and failure.seat is None and failure.section == "§10.2"
    assert "it was never closed: its game is still being played, or its peer stopped" in failure.what


def test_s10_2_a_log_not_closed_says_what_it_may_be_however_much_it_holds(game_log: Path, tmp_path: Path) -> None:
    """Cut before its `log.end` alone, a log said only "the log was not closed" where one
    cut a record earlier was explained; one holding only its header ended "in round 0"."""
    data = game_log.read_bytes()
    frames = [offset for offset, _payload in split_frames(data, LOG_LIMITS)]
    unclosed = tmp_path / "unclosed.bandit-log"
    unclosed.write_bytes(data[:frames[-1]])
    assert audit(unclosed).first_failure.what == (
        "the log was not closed: it holds the whole game but no log.end: its writer crashed or left without closing "
        "it, or the file was cut after its last record; everything it holds checks")
    header = tmp_path / "header.bandit-log"
    header.write_bytes(data[:frames[1]])
    what = audit(header).first_failure.what
    assert what.startswith("the log holds no message: its game never began, or the file was cut after its header; "
                           "it was never closed"), what


def test_s10_2_audit_of_a_path_that_names_no_file_is_a_usage_error(tmp_path: Path) -> None:
    """A mistyped path is the command line's mistake (exit 2, as other usage errors), not
    a log that fails its audit (exit 1, "First violation: … cannot be read")."""
    env = {"PYTHONPATH": str(ROOT)}
    missing = tmp_path / "nosuch.bandit-log"
    for path, said in [(missing, f"bandit-lan: no such file: {missing}"),
                       (tmp_path, f"bandit-lan: {tmp_path} is a folder: give the .bandit-log files in it")]:
        run = subprocess.run([sys.executable, "-m", "cli", "audit", str(path)], capture_output=True, text=True, env=env)
        assert run.returncode == 2 and run.stderr.strip() == said and not run.stdout, run
        scripted = subprocess.run([sys.executable, "-m", "cli", "audit", "--json", str(path)], capture_output=True,
                                  text=True, env=env)  # (a script reads one JSON object on the last line, here too)
        assert scripted.returncode == 2 and scripted.stderr.strip() == said, scripted
        assert json.loads(scripted.stdout.strip().splitlines()[-1]) == {"ok": False, "error": said.split(": ", 1)[1]}


@pytest.mark.parametrize(("words", "said"), [
    (("--json",), "the following arguments are required: LOG"),
    (("--json", "--bogus", "a.bandit-log"),
     "unrecognized arguments: --bogus (`{program} audit --help` lists its options)"),
    (("--bogus", "--js", "a.bandit-log"),  # (argparse's prefix of --json)
     "unrecognized arguments: --bogus (`{program} audit --help` lists its options)"),
])
def test_s10_2_audit_json_says_a_usage_error_in_its_json_object_too(words: tuple[str, ...], said: str) -> None:
    """Every usage error argparse catches, with --json: the JSON object on the last line
    (as for a LOG that names no file), argparse's words on the standard error, exit 2."""
    from tests.cli_support import PROGRAM

    said = said.format(program=PROGRAM)
    run = subprocess.run([sys.executable, "-m", "cli", "audit", *words], capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT)})
    assert run.returncode == 2 and run.stderr.strip().endswith(f"bandit-lan audit: error: {said}"), run
    assert json.loads(run.stdout.strip().splitlines()[-1]) == {"ok": False, "error": said}, run
    plain = subprocess.run([sys.executable, "-m", "cli", "audit", *(w for w in words if w not in ("--json", "--js"))],
                           capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)})
    assert plain.returncode == 2 and not plain.stdout, plain  # (without --json, no JSON)


def test_s10_2_audit_of_a_path_it_cannot_read_says_so_and_exits_2(tmp_path: Path) -> None:
    """A name too long for the file system, or a path through a file, is told as "cannot
    read PATH: …" (exit 2, the JSON object with --json), never as a traceback."""
    env = {"PYTHONPATH": str(ROOT)}
    through = tmp_path / "a-file"
    through.write_bytes(b"")
    for path, why in [(tmp_path / ("x" * 300), "File name too long"), (through / "x.bandit-log", "Not a directory")]:
        said = f"bandit-lan: cannot read {path}: {why}"
        for json_flag in ([], ["--json"]):
            run = subprocess.run([sys.executable, "-m", "cli", "audit", *json_flag, str(path)], capture_output=True,
                                 text=True, env=env)
            assert run.returncode == 2 and run.stderr.strip() == said, run
            if json_flag:
                assert json.loads(run.stdout.strip().splitlines()[-1]) == {"ok": False, "error": said.split(": ", 1)[1]}


def test_s10_2_audit_of_a_log_in_a_folder_it_may_not_enter_says_so_and_exits_2(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A log inside a folder of another user's (mode 0700): even asking whether it is a
    folder is refused (as root nothing is, so the refusal is stood in for here)."""
    from cli.main import main

    def refused(self: Path) -> bool:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "is_dir", refused)
    path = tmp_path / "theirs" / "game.bandit-log"
    assert main(["audit", "--json", str(path)]) == 2
    out, err = capsys.readouterr()
    assert err.strip() == f"bandit-lan: cannot read {path}: Permission denied", err
    assert json.loads(out.strip().splitlines()[-1]) == {"ok": False, "error": f"cannot read {path}: Permission denied"}


def test_audit_torn_last_frame_is_reported(game_log: Path, tmp_path: Path) -> None:
    torn = tmp_path / "torn.bandit-log"
    data = game_log.read_bytes()
    torn.write_bytes(data[:-7])
    result = audit(torn)
    whole = read_log(torn).intact  # (where the last whole frame ends: the cut record begins there)
    assert 0 < whole < len(data) - 7
    assert not result.ok and result.first_failure.what == (
        f"the log's last record, from byte {whole} on, was cut short: its peer stopped while writing it, or the file "
        "was cut there")


def test_s10_1_a_damaged_length_is_told_as_damage_and_a_cut_record_as_a_cut(game_log: Path, tmp_path: Path) -> None:
    """A bit changed in the length of a frame in the middle of a log makes it claim more
    bytes than the file holds: that frame's bytes hold a whole record well before that
    length, so the length was changed, not cut short by a crash (it read as "the log's last
    record … was cut short (the peer stopped while writing)"). A file cut inside a record
    says it may have been cut, not only that its peer stopped. Read to be resumed in, a
    damaged length is refused, not cut off with every record after it."""
    contents = read_log(game_log)
    at = contents.message_at[60]
    data = game_log.read_bytes()
    changed = bytearray(data)
    changed[at + 1] ^= 0x10  # (bit 20 of its length: 1 MiB more than it holds, less than a log frame may hold)
    damaged = tmp_path / "damaged.bandit-log"
    damaged.write_bytes(bytes(changed))
    claimed = int.from_bytes(changed[at:at + 4], "big")
    assert at + 4 + claimed > len(data) and claimed < LOG_LIMITS.max_frame
    result = audit(damaged)
    failure = result.first_failure
    assert failure is not None and failure.record is None and failure.seat is None and result.records == 60
    assert failure.what.startswith(
        f"the file was changed or damaged in the frame that starts at byte {at}: its length says {claimed} bytes "
        f"follow, but only {len(data) - at - 4} do, and its record ends after "), failure.what
    assert "the length was changed, it was not cut short" in failure.what and "stopped" not in failure.what
    with pytest.raises(LogError, match=f"frame at byte {at}: its length says"):
        read_log(damaged)
    cut = tmp_path / "cut.bandit-log"
    cut.write_bytes(data[:at + 30])  # (the file cut inside record 61)
    assert audit(cut).first_failure.what == (
        f"the log's last record, from byte {at} on, was cut short: its peer stopped while writing it, or the file was "
        "cut there")
    assert read_log(cut).torn


def test_s10_1_a_length_changed_in_a_low_bit_is_told_as_a_changed_length(game_log: Path, tmp_path: Path) -> None:
    """A low bit changed in the length of a frame in the middle of a log: the frame holds
    a whole record that ends elsewhere than its length says, so its length was changed;
    it was told as "not valid msgpack: Unpack failed: incomplete input", which says
    neither. A frame whose bytes are no record says so, its decoder's reason in brackets."""
    contents = read_log(game_log)
    at = contents.message_at[60]
    data = game_log.read_bytes()
    size = int.from_bytes(data[at:at + 4], "big")
    for bit in (1, 2, 0x80 << 24):  # (one byte fewer or more, or more than a log frame may hold)
        changed = bytearray(data)
        changed[at:at + 4] = (size ^ bit).to_bytes(4, "big")
        path = tmp_path / "length.bandit-log"
        path.write_bytes(bytes(changed))
        said = f"its length says {size ^ bit} bytes, " + ("more than a log frame may hold, " if bit > 2 else "")
        failure = audit(path).first_failure
        assert failure is not None and failure.what == (
            f"the file was changed or damaged in the frame that starts at byte {at}: {said}but the record in it ends "
            f"after {size}, so its length was changed; it and everything after it cannot be checked, only the records "
            "before it"), failure.what
        with pytest.raises(LogError, match=f"^§10.1: frame at byte {at}: {said}but the record in it ends after {size}"):
            read_log(path)
    changed = bytearray(data)
    changed[at + 4] = 0xC1  # (a byte msgpack never uses, where the record's map begins)
    path.write_bytes(bytes(changed))
    failure = audit(path).first_failure
    assert failure is not None and failure.what.startswith(
        f"the file was changed or damaged in the frame that starts at byte {at}: its bytes are not a record (not a "
        "frame of the strict msgpack subset: a byte that msgpack reserves, 0xc1, which starts no value"), failure.what
    assert failure.what.count("(") == 1 and "))" not in failure.what, failure.what


def test_s10_1_a_record_cut_by_a_power_loss_is_a_cut_not_damage(game_log: Path, tmp_path: Path) -> None:
    """Bytes a power loss left unwritten often read back as zeros: a last record whose
    bytes end in zeros (its length and its start written, or not even its length) was
    cut short, and its seat resumes in the log. (Zeros begin no record, so such a record
    was told as a length that was changed: the audit called the file altered and the
    seat could not resume.)"""
    contents = read_log(game_log)
    at = contents.message_at[60]
    data = game_log.read_bytes()
    cases = {
        "its start written, then zeros": data[:at + 30] + bytes(200),
        "zeros where its map's entries go": data[:at + 5] + bytes(200),
        "nothing written but zeros": data[:at] + bytes(200),
    }
    for how, cut in cases.items():
        path = tmp_path / f"{how}.bandit-log"
        path.write_bytes(cut)
        assert read_log(path).torn, how
        assert audit(path).first_failure.what == (
            f"the log's last record, from byte {at} on, was cut short: its peer stopped while writing it, or the file "
            "was cut there"), how
        log, back = FairnessLog.reopen(path, writer_of(contents.header))
        assert len(back.messages) == 60 and not back.torn, how
        log.drop()
        assert path.read_bytes() == data[:at], how


def test_s10_1_a_log_cut_inside_its_header_s_first_bytes_says_so(game_log: Path, tmp_path: Path) -> None:
    """A log cut within its first bytes (a crash as its header was written) ends inside
    its header; it is not called "not a fairness log" for the bytes it does not hold."""
    data = game_log.read_bytes()
    for size in (1, 4, 5, 6, 11):
        path = tmp_path / f"{size}.bandit-log"
        path.write_bytes(data[:size])
        with pytest.raises(LogError, match="^§10.1: the log ends inside its header$"):
            read_log(path)
    path.write_bytes(b"#!/bin")
    with pytest.raises(LogError, match="not a bandit-lan fairness log"):
        read_log(path)


def test_s10_1_a_file_that_is_not_a_log_is_named_so(tmp_path: Path) -> None:
    """A file that is no log at all (its first bytes are not those of every log's header)
    is said to be none, not a log whose first frame "claims 589324897 bytes"."""
    readme = tmp_path / "README.md"
    readme.write_text("# bandit-lan\n\nA serverless card game for a LAN.\n" * 10)
    for path in (readme, ROOT / "pyproject.toml"):
        failure = audit(path).first_failure
        assert failure is not None and failure.what == (
            "this is not a bandit-lan fairness log: its first bytes are not a log's header"), failure.what
        with pytest.raises(LogError, match="not a bandit-lan fairness log"):
            read_log(path)


def test_s10_2_a_file_that_is_not_a_log_is_reported_as_none_not_as_a_violation(
        game_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`audit README.md` said "First violation: the log: §10.1: this is not a bandit-lan
    fairness log", and beside a log "README.md, written by a writer it does not prove: 0
    messages checked": the report says it is not a log, and that nothing was checked;
    the exit status and the JSON verdict still say NOT VERIFIED."""
    import json

    from cli.main import main

    readme = tmp_path / "README.md"
    readme.write_text("# bandit-lan\n\nA serverless card game for a LAN.\n" * 10)
    assert main(["audit", str(readme)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{readme} is not a bandit-lan fairness log (its first bytes are not a log's header); nothing to check."]
    assert main(["audit", "--json", str(readme)]) == 1
    said = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert said["ok"] is False and "not a bandit-lan fairness log" in said["first_violation"]["what"]
    assert main(["audit", "--brief", str(game_log), str(readme)]) == 1
    told = capsys.readouterr().out.splitlines()
    assert "  README.md is not a bandit-lan fairness log (its first bytes are not a log's header)" in told, told
    assert not any("written by a writer it does not prove" in line or "violation" in line for line in told), told
    assert told[-1] == "Overall: NOT VERIFIED: README.md is not a fairness log; the logs cannot be compared.", told[-1]


def test_audit_forged_roster_fails(game_log: Path, tmp_path: Path) -> None:
    def change(messages):  # type: ignore[no-untyped-def]
        return messages

    def header(h: Header) -> Header:
        sigs = list(h.signatures)
        sigs[0], sigs[1] = sigs[1], sigs[0]
        return Header(h.roster, tuple(sigs), h.seat, h.software)

    change.header = header  # type: ignore[attr-defined]
    result = audit(rewrite(game_log, tmp_path, change))
    failure = result.first_failure
    assert not result.ok and failure.section == "§6.6"
    # (the signature given as P0's is not P0's: nobody is blamed, §10.2)
    assert failure.record is None and failure.seat is None, failure
    assert failure.what == ("the log's header does not hold: the signature it gives as seat 1's (P0) over the roster "
                            "does not verify under P0's key: the header was altered"), failure.what


def test_s10_2_a_damaged_header_is_told_as_damage_with_its_byte(game_log: Path, tmp_path: Path) -> None:
    """A byte changed in the log's header where it no longer decodes (its frame, the
    roster in it, a certificate in that) is told as a damaged record is: in plain words,
    with the byte where that part starts and the check that failed in parentheses, and
    the verdict stays NOT VERIFIED, blaming nobody. (It was told as the check alone:
    "the roster: certificate does not parse as X.509 DER: …".)"""
    from p2p.report import game_report
    from p2p.wire import decode

    contents = read_log(game_log)
    roster = contents.header.roster
    at = contents.roster_at
    assert game_log.read_bytes()[at:at + len(roster)] == roster
    cert = decode(roster)["members"][1]["cert"]
    payload = game_log.read_bytes()[4:]
    record = "the log's header (its first record, at byte 0)"  # (the roster, and a certificate in it, are in it)
    cases = [  # (byte changed, the part named, with its byte, what it is not)
        (4 + payload.index(b"roster") - 1, "the log's header, in its first frame, which starts at byte 0 (or the file "
                                           "is not a fairness log)",
         "it cannot be read as a log.header: its bytes are not a record ("),  # (a key's length: not msgpack)
        (at + roster.index(b"members") - 1, f"{record}, in the roster that starts at byte {at}",
         "it cannot be read as a roster ("),
        (at + roster.index(cert) + 1, f"{record}, in seat 2's (P1) certificate in its roster, which starts at byte "
                                      f"{at + roster.index(cert)}",
         "it is not a valid certificate (its bytes do not read as an X.509 certificate)"),  # (its DER length)
    ]
    for byte, part, kind in cases:
        result = audit(flipped(game_log, tmp_path, byte))
        failure = result.first_failure
        assert failure is not None and failure.record is None and failure.seat is None, failure
        assert failure.what.startswith(f"the file was changed or damaged in {part}: {kind}"), failure.what
        assert failure.what.endswith("); without its header nothing in the log can be checked"), failure.what
        last = list(game_report(result))[-1]
        assert last.startswith("Verdict: NOT VERIFIED. The log file was changed or damaged") and " First violation: the log: §" in last


def test_s10_2_a_certificate_in_the_header_that_does_not_parse_is_told_in_the_auditor_s_words(
        game_log: Path, tmp_path: Path) -> None:
    """A byte of a certificate's DER changed so that it no longer parses: the verdict names
    the header record, the seat and that its certificate is not a valid certificate, not
    the certificate library's own account ("error parsing asn1 value: ParseError { kind:
    InvalidLength, location: [\"Certificate::tbs_cert\"] }")."""
    from p2p.identity import Certificate, CertificateRefused
    from p2p.wire import decode

    contents = read_log(game_log)
    roster = contents.header.roster
    cert = decode(roster)["members"][1]["cert"]
    start = contents.roster_at + roster.index(cert)
    for offset in (1, 5, 9):  # (its length, and lengths inside its signed part)
        changed = bytearray(cert)
        changed[offset] ^= 1
        with pytest.raises(ProtocolError) as refused:
            Certificate.from_der(bytes(changed))
        assert not isinstance(refused.value, CertificateRefused)  # (its bytes do not parse)
        failure = audit(flipped(game_log, tmp_path, start + offset)).first_failure
        assert failure is not None and failure.section == "§3.1" and failure.seat is None, failure
        assert failure.what == ("the file was changed or damaged in the log's header (its first record, at byte 0), "
                                f"in seat 2's (P1) certificate in its roster, which starts at byte {start}: it is not "
                                "a valid certificate (its bytes do not read as an X.509 certificate); without its "
                                "header nothing in the log can be checked"), failure.what


def test_s10_2_a_header_whose_length_was_changed_is_not_doubted_as_a_log(game_log: Path, tmp_path: Path) -> None:
    """A header frame whose length was changed holds a whole log.header record, so the
    file is a fairness log: the damage is told without "(or the file is not a fairness
    log)", which a header whose bytes are no record keeps."""
    size = int.from_bytes(game_log.read_bytes()[:4], "big")
    failure = audit(flipped(game_log, tmp_path, 3)).first_failure  # (the length's last byte)
    assert failure is not None and failure.record is None and failure.seat is None, failure
    assert failure.what == ("the file was changed or damaged in the log's header, in its first frame, which starts at "
                            f"byte 0: it cannot be read as a log.header: its length says {size ^ 1} bytes, but the "
                            f"record in it ends after {size}, so its length was changed; without its header nothing "
                            "in the log can be checked"), failure.what
    failure = audit(flipped(game_log, tmp_path, 4 + 1)).first_failure  # (the map's first key: no record)
    assert failure is not None and "(or the file is not a fairness log)" in failure.what, failure


def test_s10_2_a_header_that_decodes_but_does_not_verify_is_not_told_as_damage(game_log: Path, tmp_path: Path) -> None:
    """A header whose bytes decode but whose certificate or signature does not hold is
    told as that certificate or signature, not as bytes that cannot be read: a byte of a
    certificate's own signature changed, and a roster given another player's well-formed
    certificate, the header signed again by its writer."""
    from p2p.wire import decode, encode

    contents = read_log(game_log)
    roster = contents.header.roster
    cert = decode(roster)["members"][2]["cert"]
    start = contents.roster_at + roster.index(cert)
    failure = audit(flipped(game_log, tmp_path, start + len(cert) - 1)).first_failure
    assert failure is not None and failure.seat is None and failure.section == "§3.1", failure
    assert failure.what == (f"the log's header does not hold: seat 3's (P2) certificate in its roster (from byte {start}) "
                            "reads as a certificate but does not hold (certificate self-signature does not verify): it is "
                            "not a certificate as its player made it, so the roster was altered, and nothing in the log "
                            "can be checked"), failure.what

    def header(h: Header) -> Header:
        data = decode(h.roster)
        data["members"][2]["cert"] = seeded_identity(bytes([0xEE]) * 32).certificate.der
        return Header(encode(data), h.signatures, h.seat, h.software)

    def change(messages):  # type: ignore[no-untyped-def]
        return messages

    change.header = header  # type: ignore[attr-defined]
    failure = audit(rewrite(game_log, tmp_path, change)).first_failure
    assert failure is not None and failure.seat is None and failure.section == "§6.6", failure
    assert failure.what.startswith("the log's header does not hold: the signature it gives as seat 1's (P0) over the "
                                   "roster does not verify"), failure.what  # (that roster is not the one anybody signed)


def test_audit_dropped_side_record_breaks_its_side_chain(game_log: Path, tmp_path: Path) -> None:
    """The side record where the chain breaks is named by the byte its frame starts at and
    by what a reader finds in it, its sender and its `sseq` (§7.8, §10.2), not by a count
    of side records from 0 ("side record 15, …: its side sseq 6 …")."""
    from p2p.wire import decode_map

    path = rewrite(game_log, tmp_path, lambda m: m, sides=lambda s: s[:5] + s[6:])
    result = audit(path)
    failure = result.first_failure
    assert not result.ok and failure.section == "§7.2" and failure.seat is None
    told = re.fullmatch(r"the record of a share message that starts at byte (\d+) \(a share message carries a player's "
                        r"shares of cards being revealed, and travels beside the agreed order\), (\w+)'s \(\S+\): its "
                        r"(\w+) share message comes where its (\w+) share message is due: a record is missing, repeated "
                        r"or out of place; the log was altered", as_written(failure))
    assert told is not None, failure.what
    contents = read_log(path)
    inner = decode_map(contents.sides[contents.side_at.index(int(told[1]))][0])
    assert result.member(inner["from"]).name == told[2]
    assert f"{told[3]} share message" == side_message(inner["sseq"]) and f"{told[4]} share message" == side_message(
        inner["sseq"] - 1)


def test_s10_2_a_share_message_is_named_by_its_place_in_its_sender_s_chain_in_words() -> None:
    """A side message's `sseq` (§7.8), counted from 0, is said as a player counts, from
    the first, and by what it carried: sseq 0 is the first share message."""
    assert [side_message(n) for n in (0, 1, 9, 10, 20, 101, 110, 111, 112)] == [
        "first share message", "second share message", "tenth share message", "11th share message",
        "21st share message", "102nd share message", "111th share message", "112th share message",
        "113th share message"]
    assert side_message(2, "snap") == "third message beside the agreed order"
    assert side_message(None) == "share message"


def test_audit_log_stripped_of_shares_blames_nobody(game_log: Path, tmp_path: Path) -> None:
    """Without the shares the replay waits; nothing afterwards may be held against a player,
    and the records after the first one held are records no honest peer logs (§10.1)."""
    result = audit(rewrite(game_log, tmp_path, lambda m: m, sides=lambda s: []))
    failure = result.first_failure
    assert not result.ok and failure.seat is None and failure.section == "§10.1" and failure.record is not None
    assert "waiting for the shares of reveal 0 from" in failure.what
    assert "records of share messages were removed" in failure.what


def test_audit_changed_side_record_fails_its_signature(game_log: Path, tmp_path: Path) -> None:
    def flip(sides):  # type: ignore[no-untyped-def]
        body, sig = sides[3]
        sides[3] = (body[:-1] + bytes([body[-1] ^ 1]), sig)
        return sides

    result = audit(rewrite(game_log, tmp_path, lambda m: m, sides=flip))
    assert not result.ok and result.first_failure.section == "§4.5"


def flipped(original: Path, tmp_path: Path, at: int) -> Path:
    """A copy of `original` with one bit of byte `at` changed, as a failing disk (or an
    editor) would leave it: the writer signed nothing again."""
    data = bytearray(original.read_bytes())
    data[at] ^= 1
    path = tmp_path / "flipped.bandit-log"
    path.write_bytes(bytes(data))
    return path


def test_s10_2_a_byte_changed_in_a_record_is_named_with_its_place_in_plain_words(game_log: Path, tmp_path: Path) -> None:
    """A byte changed inside an ordered record: the verdict names the record and the byte
    its frame starts at, says in plain words that the file was changed or damaged there,
    and the story is told up to it."""
    from p2p.report import game_report

    at = read_log(game_log).message_at[40]
    result = audit(flipped(game_log, tmp_path, at + 30))
    failure = result.first_failure
    assert failure is not None and failure.record == 40 and failure.seat is None
    assert failure.what.startswith(f"the file was changed or damaged in the record that starts at byte {at}: it is "
                                   "not a message as a seat of the table signed it ("), failure.what
    assert "\nRound 1" in "\n".join(game_report(result))


def test_s10_2_a_byte_changed_in_a_side_record_still_lets_the_game_be_told_up_to_it(
        game_log: Path, tmp_path: Path) -> None:
    """A byte changed inside a side record (§7.8) said "Records: 0 signed messages
    checked" and told no story: every ordered record the file holds before it is still
    checked and told, and the verdict says where the file was changed, in plain words."""
    from p2p.report import game_report
    from p2p.wire import decode_map

    contents = read_log(game_log)
    index = len(contents.sides) // 2
    position = contents.sequence.index((True, index))
    before = sum(1 for side, _ in contents.sequence[:position] if not side)
    at = contents.side_at[index]
    body = contents.sides[index][0]
    inner = decode_map(body)
    end = at + 4 + game_log.read_bytes()[at + 4:].index(body) + len(body)  # (its body's last byte: it still decodes)
    result = audit(flipped(game_log, tmp_path, end - 1))
    failure = result.first_failure
    assert failure is not None and failure.record is None and failure.seat is None
    assert failure.what.startswith(f"the file was changed or damaged in the record of a share message that starts at "
                                   f"byte {at} ("), failure.what
    assert ": it is not a message as a seat of the table signed it (" in failure.what
    # (whose share message it says it is, by the number it holds: `sseq`, §7.8, counted from the first in words)
    assert failure.what.endswith(f"; the record says it is {result.member(inner['from']).name}'s "
                                 f"{side_message(inner['sseq'])})"), failure.what
    assert result.records == before > 0
    report = list(game_report(result))
    assert f"Records: {before} signed messages checked." in report and "Round 1" in report


def test_s10_1_a_frame_that_cannot_be_read_is_named_and_what_comes_before_it_is_told(
        game_log: Path, tmp_path: Path) -> None:
    """A byte changed where the frame itself no longer decodes (§4.3): the log was
    unreadable as a whole ("the log: §10.1: frame at byte N: …", no story). The audit
    reads up to that frame, checks and tells everything before it, and says in plain
    words that the file was changed or damaged there; read strictly (to resume in it),
    the log still fails."""
    from p2p.report import game_report

    contents = read_log(game_log)
    at = contents.message_at[60]
    payload = game_log.read_bytes()[at + 4:]
    damaged = flipped(game_log, tmp_path, at + 4 + payload.index(b"body") - 1)  # (the key's length: not msgpack)
    with pytest.raises(LogError):
        read_log(damaged)
    result = audit(damaged)
    failure = result.first_failure
    assert failure is not None and failure.record is None and failure.seat is None and failure.section == "§10.1"
    assert failure.what == (f"the file was changed or damaged in the frame that starts at byte {at}: its bytes are "
                            "not a record (str is not valid UTF-8); it and everything after it cannot be checked, only "
                            "the records before it"), failure.what
    assert result.records == 60
    assert "Round 1" in list(game_report(result))


def test_audit_garbage_file_fails_cleanly(tmp_path: Path) -> None:
    junk = tmp_path / "junk.bandit-log"
    junk.write_bytes(b"\x00\x00\x00\x05hello world")
    result = audit(junk)
    assert not result.ok and result.first_failure.section == "§10.1"


def test_audit_cli_exit_status_and_first_violation(game_log: Path, tmp_path: Path) -> None:
    bad = rewrite(game_log, tmp_path, lambda m: m[:10] + m[11:])
    env = {"PYTHONPATH": str(ROOT)}
    good = subprocess.run([sys.executable, "-m", "cli", "audit", "--json", str(game_log)], capture_output=True, text=True, env=env)
    assert good.returncode == 0 and '"ok": true' in good.stdout.splitlines()[-1]
    failed = subprocess.run([sys.executable, "-m", "cli", "audit", str(bad)], capture_output=True, text=True, env=env)
    assert failed.returncode == 1 and " First violation: record 11: " in failed.stdout, failed.stdout
    # (the 11th record, where the 11th went missing: `record` 10 in JSON, counted from 0)
    told = subprocess.run([sys.executable, "-m", "cli", "audit", "--json", str(bad)], capture_output=True, text=True, env=env)
    assert '"record": 10,' in told.stdout.splitlines()[-1]


def test_s10_2_audit_json_names_each_seat_it_numbers(game_log: Path) -> None:
    """`--json` counts seats from 0, as the wire does, and gives each its player's name,
    for the player who left as for the culprit of the first violation."""
    from dataclasses import replace

    from cli.audit import verdict
    from p2p.audit import Departure, Failure

    result = audit(game_log)
    names = list(result.names)
    assert verdict(result)["players"] == names and verdict(result)["left"] is None
    left = verdict(replace(result, left=Departure(2, "left the table", f"{names[2]} left the table")))["left"]
    assert left == {"seat": 2, "peer": names[2], "why": "left the table", "told": f"{names[2]} left the table"}
    blamed = verdict(replace(result, first_failure=Failure(7, 0, "§9.4", "a share that is not owed")))["first_violation"]
    assert blamed == {"record": 7, "seat": 0, "peer": names[0], "section": "§9.4", "what": "a share that is not owed",
                      "suspects": [], "signed_by": None,
                      "plain": f"{names[0]} (seat 1) withheld their share of a card, so it could not be "
                                               "turned up [§9.4, record 8]."}
    shared = verdict(replace(result, first_failure=Failure(7, None, "§7.5", "one of the two", (1, 0))))
    assert shared["first_violation"]["seat"] is None and shared["first_violation"]["suspects"] == [names[1], names[0]]
    altered = verdict(replace(result, first_failure=Failure(7, None, "§7.2", "chain broken")))["first_violation"]
    assert altered["seat"] is None and altered["peer"] is None


def test_s10_2_an_unfinished_round_s_report_names_every_card_turned_up_and_no_other(game_log: Path, tmp_path: Path) -> None:
    """A round that did not finish has no openings, but its shares are in the log: the
    report names every card turned face up for all (the discards, the snapped cards) with
    its true face, also where a seat had seen it privately before, and leaves every card
    that only a seat saw unknown (R10). Checked line by line against the same log's
    report once the round had finished and its openings told every card."""
    import re

    from p2p.report import game_report, public_faces

    def round_two(result) -> list[str]:  # type: ignore[no-untyped-def]
        report = "\n".join(game_report(result))
        lines = report.split("\nRound 2", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
        return [line for line in lines if not line.startswith("    ")]  # (the cards at the end: only once finished)

    import msgpack

    finished = audit(game_log)
    bodies = [msgpack.unpackb(body) for body, _ in read_log(game_log).messages]
    # cut where round 2's last turns begin, before its cards are turned up to be counted
    called = next(i for i, b in enumerate(bodies) if b["type"] == "bandit" and b["round"] == 2)
    cut = audit(rewrite(game_log, tmp_path, lambda m: m[:called + 1], why="Bo was away for more than 120 s; round 2 is void",
                        absent=2))
    assert cut.ok and len(cut.rounds) == 1  # round 2 did not finish
    truth = finished.rounds[1].faces  # round 2's cards, from its openings
    public = public_faces(cut)[1]
    assert public and all(truth[card] == face for card, face in public.items())
    card = re.compile(r"an? (?:[^\[\]]*? \([+-]\d+\)|-?\d+) \[card (\d+)\]")

    # a card that moved unseen is named beside its slot only where the log knows it (none
    # of those the openings alone tell: nobody had seen them)
    moved = re.compile(r"( \(|: )(" + card.pattern + r")(, known from the shuffles shown at the round's end)?(; it stayed face down)?(?=\))\)?")

    def unnamed(m: re.Match[str]) -> str:
        if m[4] is None and int(m[3]) in public.values():
            return m[0]
        return ")" if m[1] == ": " and m[0].endswith(")") else ""

    def as_the_cut_log_knows(line: str) -> str:
        if any(words in line for words in (" swapped ", " went to ", "not the fastest", "penalty card (into")):
            line = moved.sub(unnamed, line)
        if ("not the fastest" in line and "it stayed face down" not in line  # (said beside the card, where named)
                and not re.search(r" had (snapped|given) that card|had been swapped away|that slot was already empty",
                                  line)):
            line = re.sub(r"(not the fastest \(R6[^)]*\)): ", r"\1: it stayed face down, unseen, ", line)
        if " saw their bottom cards: " in line:  # (R4.3: both unknown, said once)
            who = line.split(" saw ", 1)[0]
            if not any(int(m[1]) in public.values() for m in card.finditer(line)):
                return f"{who} saw their two bottom cards, both unknown to the audit."
        return card.sub(lambda m: m[0] if int(m[1]) in public.values() else "a card unknown to the audit", line)

    told, known = round_two(cut), round_two(finished)
    assert told[0] == ("  Round 2 was cut short, so its shuffles were never shown and checked (at the end of a round "
                       "every player's program shows how it shuffled): a card only one player saw in it stays unknown "
                       "to everyone else, an audit included.")
    told = told[1:]
    assert told == [as_the_cut_log_knows(line) for line in known[:len(told)]]
    bottoms = [line for line in told if " bottom cards" in line and "(private)" in line]
    assert any("saw their two bottom cards, both unknown to the audit." in line for line in bottoms), bottoms
    assert any(card.search(line) for line in told)  # the log names cards of the unfinished round
    assert any("(private)" in line and "a card unknown to the audit" in line for line in told)  # and keeps the private ones
    assert not any("unknown card" in line for line in told)


def test_s10_2_the_report_tells_every_move_and_every_look_of_a_finished_round_with_its_card(game_log: Path) -> None:
    """The report is the whole story, not only the snaps: every move (discard, exchange,
    take, power, snap) gets its line, every private look (the bottom cards, a draw, a
    peek, a spy, a look & swap) a "(private)" line naming the cards seen, and in a round
    whose openings were verified no card is unknown. Turns count from 1 in each round."""
    import re

    from engine import Discard, Draw, Exchange, LookSwap, Peek, RoundStarted, Snap, Spy, TakeDiscard
    from p2p.report import game_report

    result = audit(game_log)
    assert result.ok and len(result.rounds) >= 2
    report = "\n".join(game_report(result))
    rounds = [chunk.split("\n\n", 1)[0].splitlines()[1:] for chunk in report.split("\nRound ")[1:]]
    counts: list[dict[type, int]] = []
    for applied in result.applied:
        if isinstance(applied.event, RoundStarted):
            counts.append({})
        counts[-1][type(applied.event)] = counts[-1].get(type(applied.event), 0) + 1
    players = len(result.names)
    moved: list[str] = []  # lines of a card that moves unseen (a swap, a give, a penalty)
    for lines, count in zip(rounds, counts, strict=True):
        def told(words: str) -> int:
            return sum(words in line for line in lines)

        assert told(" drew and discarded ") == count.get(Discard, 0)
        assert told(" kept the drawn card ") == count.get(Exchange, 0)
        assert told(" from the discard pile into ") == count.get(TakeDiscard, 0)
        # (one line a snap: a late one may say who had snapped its card away first)
        assert sum(" snapped " in line or " tried " in line for line in lines) == count.get(Snap, 0)
        looks = players + count.get(Draw, 0) + count.get(Peek, 0) + count.get(Spy, 0) + count.get(LookSwap, 0)
        assert told("(private)") == looks
        assert not any("unknown card" in line for line in lines)
        assert not any(" is over" in line for line in lines)  # the scores are the report's own lines
        assert all(re.search(r"\[card \d+\]", line) for line in lines if "(private)" in line)
        moved += [line for line in lines if "unseen" in line or "penalty card (into" in line]
        turns = [int(m[1]) for line in lines if (m := re.match(r"  turn (\d+): ", line))]
        assert turns[0] == 1 and turns == sorted(turns)
    # each named once its face is known, so that it can be followed through the game
    assert any(re.search(r"\((an? [^)]*)\[card \d+\]\)", line) for line in moved), moved


def test_R4_the_round_s_final_cards_name_their_slots_as_the_story_does(game_log: Path) -> None:
    """R4, R6: the square's slots are top-left … bottom-right and a penalty card's slot 4,
    5 …, in the story as on the table's screen; the cards at the end of a round are named
    by the same words (they read "slot 2" there, "bottom-left" in the story)."""
    import re

    from p2p.report import game_report

    ends = [line for line in game_report(audit(game_log)) if line.startswith("    ")]
    assert ends and not any(re.search(r"slot [0-3]\b", line) for line in ends), ends
    assert any("bottom-left: " in line for line in ends) and any(re.search(r"slot [4-9]: ", line) for line in ends)


def test_s10_2_a_round_s_final_cards_come_after_its_story_under_their_own_title(game_log: Path) -> None:
    """The cards every seat held at the end were printed at the top of the round, before
    the moves that brought them there: they come after the last move, under a title that
    says what they are, then the scores."""
    from p2p.report import game_report

    report = "\n".join(game_report(audit(game_log)))
    for chunk in report.split("\nRound ")[1:]:
        lines = chunk.split("\n\n", 1)[0].splitlines()
        title = lines.index("  Every card turned face up at the end of the round (R8):")
        ends = [i for i, line in enumerate(lines) if line.startswith("    ")]
        moves = [i for i, line in enumerate(lines) if line.startswith("  turn ")]
        scores = next(i for i, line in enumerate(lines) if line.startswith("  Scores: "))
        assert max(moves) < title and ends == list(range(title + 1, scores)), lines


def test_s10_2_every_card_moved_unseen_in_a_finished_round_is_named(game_log: Path) -> None:
    """R3, R6: a swapped card, a card given by a snap and a penalty card move unseen;
    once the round's openings are verified the report names each with its card, marking
    the ones no seat had seen as known from the shuffles shown at the round's end."""
    import re

    from p2p.report import game_report

    report = list(game_report(audit(game_log)))
    swaps = [line for line in report if " swapped " in line]
    gives = [line for line in report if " went to " in line]
    penalties = [line for line in report if "penalty card (into" in line]
    assert swaps and penalties
    assert all(line.count("[card ") == 2 for line in swaps), swaps
    assert all(re.search(r"card \([^()]*\[card \d+\][^()]*\) went to", line) for line in gives), gives
    assert all(re.search(r"penalty card \(into slot \d+: [^()]*\[card \d+\]", line) for line in penalties), penalties
    assert any("known from the shuffles shown at the round's end" in line for line in swaps + penalties)


def test_R1_the_report_says_why_the_game_ended(game_log: Path, tmp_path: Path) -> None:
    """After the last round, one line says why the game ended: whose total reached the
    target and who won (R1), the absence that ended it (§11.3), the violation it stopped
    at (§9.9), or that the log stops short of any end (its verdict says why)."""
    import msgpack

    from p2p.report import game_report
    from p2p.signing import sign

    def ending(path: Path) -> str:
        report = list(game_report(audit(path)))
        last_round = max(i for i, line in enumerate(report) if re.fullmatch(r"Round \d+", line))
        return next(line for line in report[last_round:] if line and not line.startswith(("  ", "Round ")))

    result = audit(game_log)
    assert result.roster is not None and len(result.winners) == 1
    target, totals = result.roster.rules.target, result.rounds[-1].totals
    reached = [f"{name} ({total})" for name, total in zip(result.names, totals) if total >= target]
    assert ending(game_log) == (f"Game over after round {len(result.rounds)} (R1): {' and '.join(reached)} reached "
                                f"the target of {target}; the lowest total wins: {result.winners[0]}, with {min(totals)}.")
    bodies = [msgpack.unpackb(body) for body, _ in read_log(game_log).messages]
    called = next(i for i, b in enumerate(bodies) if b["type"] == "bandit" and b["round"] == 2)
    why = "P2 was away for more than 120 s; round 2 is void"
    absent = rewrite(game_log, tmp_path, lambda m: m[:called + 1], why=why, absent=2)
    assert ending(absent) == f'The game ended early, in round 2: P1\'s table ended it, naming P2 absent (§11.3): "{why}".'
    inner = bodies[50]  # its sender's stamp 1000 higher than a Lamport clock gives (§7.3)
    forged = sign(seeded_identity_of(inner["from"]), dict(inner, lamport=inner["lamport"] + 1000))
    stopped = rewrite(game_log, tmp_path, lambda m: m[:50] + [forged])
    assert audit(stopped).first_failure.seat is not None  # type: ignore[union-attr]
    assert ending(stopped) == ("The game stopped at record 51, on a violation (§9.9): P0 (seat 1) stamped a message "
                               "with a place in the order that the rules do not allow [§7.3, record 51].")
    cut = rewrite(game_log, tmp_path, lambda m: m[:30] + m[31:])
    assert ending(cut) == "The log stops before the end of the game: the verdict below says why."


def test_s10_2_the_report_says_in_one_sentence_why_a_game_ended_early(game_log: Path, tmp_path: Path) -> None:
    """A `leave` (§9.8) is told as the seat's name and its reason, whatever the name is (a
    player called "left" keeps it); the end of a wait for an absent seat (§11.3) names the
    seat its `log.end` signs as `absent`, and quotes that end's sentence as its writer's."""
    from p2p.report import game_report

    def verdict_of(result) -> str:  # type: ignore[no-untyped-def]
        last = list(game_report(result))[-1]
        assert last.startswith("Verdict: the log is intact; the game ended early because "), last
        return last.removeprefix("Verdict: the log is intact; the game ended early because ")

    net = TableNetwork(3, 7, rules=TableRules(target=25, skills_text=SMALL_DECK), names=("Ann", "left", "Bo"))
    reason = "the player chose to leave"
    net.schedule(0.2, lambda: net.send(1, {"type": "leave", "v": 1, "reason": reason}))  # in round 2
    net.run(limit=60.0)
    left = audit(net.write_logs(tmp_path)[0])
    assert left.ok and left.left is not None and left.left.seat == 1 and reason in left.left.why
    assert verdict_of(left) == f"left left the table ({reason})."

    ann, writer, bo = audit(game_log).names
    for why in (f"{bo} was away for more than 120 s; round 2 is void",
                f"{ann} could not reach {bo} for more than 120 s; round 2 is void"):
        # the game was under way when the writer's wait for seat 2 ended
        result = audit(rewrite(game_log, tmp_path, lambda m: m[:60], why=why, absent=2))
        assert result.ok and result.left is not None and result.left.seat == 2, result.first_failure
        assert verdict_of(result) == f'{writer}\'s table ended it, naming {bo} absent (§11.3): "{why}".'


def _left_game(tmp_path: Path) -> Path:
    """A game of three that ended at P1's delivered `leave` (§9.8), in round 2: P0's log."""
    net = TableNetwork(3, 104, rules=TableRules(target=25, skills_text=SMALL_DECK))
    net.schedule(0.2, lambda: net.send(1, {"type": "leave", "v": 1, "reason": "the player chose to leave"}))
    net.run(limit=60.0)
    tmp_path.mkdir()
    return net.write_logs(tmp_path)[0]


@pytest.mark.parametrize("ended", ["every seat said done", "a leave was delivered"])
def test_s10_2_a_log_end_naming_a_seat_absent_after_the_game_ended_fails(
        game_log: Path, tmp_path: Path, ended: str) -> None:
    """A writer signs its end as it likes: one that names a seat `absent` on a log that
    holds the end of the game (it passed, "FAIR", its end saying the game ended because
    that seat was away) is no end an honest peer writes, since a table whose game has
    ended waits for nobody (§11.3): the log was altered, and as the writer's key signed
    that end, the log is false, its writer's (§10.2); no move is blamed on anybody."""
    log = game_log if ended == "every seat said done" else _left_game(tmp_path / "left")
    honest = audit(log)
    assert honest.ok and (honest.finished if ended == "every seat said done" else honest.left is not None)
    result = audit(rewrite(log, tmp_path, lambda m: m, why="P2 was away for more than 120 s; round 3 is void",
                           absent=2))
    failure = result.first_failure
    assert failure is not None and failure.record is None and failure.seat is None and failure.section == "§10.1"
    assert failure.what.startswith(f"its log.end names seat 3 (P2) absent, but the log holds the end of the game "
                                   f"({ended})"), failure.what
    writer = result.writer_name
    assert writer is not None and failure.signed_by == result.writer, failure
    assert failure.what.endswith(f"after which a table waits for nobody (§11.3): the log was altered; "
                                 f"{writer_signed_it(writer)}"), failure.what
    assert plain(failure, result.names).startswith(f"{writer}'s log is false: it is not as a player's program writes")


def test_s10_2_an_absence_is_told_from_the_seat_the_log_end_names_not_in_its_writer_s_words(
        game_log: Path, tmp_path: Path) -> None:
    """The sentence of a `log.end` is its writer's own: the verdict of an absence said
    "the game ended early because" and then that sentence, so a writer could have the
    audit accuse a player its records show nothing against, while `absent` named another.
    The verdict names the seat the signed `absent` names, and quotes the sentence as the
    writer's."""
    from p2p.report import game_report

    why = "P0 broke the rules of the table (§8.9: a shuffle step that does not open)"
    result = audit(rewrite(game_log, tmp_path, lambda m: m[:60], why=why, absent=2))
    assert result.ok and result.left is not None and result.left.seat == 2 and result.left.why == why
    assert result.left.told == f'P1\'s table ended it, naming P2 absent (§11.3): "{why}"'
    assert list(game_report(result, brief=True))[-1] == (
        f'Verdict: the log is intact; the game ended early because P1\'s table ended it, naming P2 absent (§11.3): '
        f'"{why}".')


def test_s10_1_a_log_that_cannot_be_read_is_named_as_such(tmp_path: Path) -> None:
    for path, why in [(tmp_path / "missing.bandit-log", "No such file or directory"), (tmp_path, "Is a directory")]:
        result = audit(path)
        failure = result.first_failure
        assert not result.ok and failure.section == "§10.1" and failure.what == f"the log cannot be read: {why}"


def test_s10_2_the_report_gives_the_writer_s_notes_as_its_own_account(game_log: Path, tmp_path: Path) -> None:
    """`log.note` records (§10.1: a lost link, a stop, a peer's garbage) are told where
    they fall, with the peer they name, as the writer's unsigned account: the verdict is
    the same with or without them. A note's section comes before its words, as the
    moves that did not count and the verdict give theirs ("§9.6: this peer did not run
    …"), not in brackets after them where the report puts words ("(about Bo)")."""
    from p2p.report import game_report

    contents = read_log(game_log)
    names = audit(game_log).names
    other = contents.header.seat - 1 if contents.header.seat else 1
    other_id = audit(game_log).roster.members[other].peer_id  # type: ignore[union-attr]
    path = tmp_path / "noted.bandit-log"
    log = FairnessLog.create(path, contents.header, writer_of(contents.header))
    for body, sig in contents.sides:
        log._write({"type": "log.side", "v": 1, "body": body, "sig": sig})
    for index, (body, sig) in enumerate(contents.messages):
        if index == 10:
            log.note(f"link to {names[other]} lost: connection closed")
            log.note("a frame that is not msgpack", peer=other_id, section="§4.3")
            log.note("this peer did not run for 14 s (its process was stopped, or its machine slept)", section="§9.6")
        log._write({"type": "log.msg", "v": 1, "body": body, "sig": sig})
    log.close("the game ended")
    report = list(game_report(audit(path)))
    noted = report.index(f"What {names[contents.header.seat]}'s peer noted as it played "
                         "(3; its own account, unsigned, no part of the verdict):")
    assert report[noted + 1:noted + 4] == [
        f"  after 10 messages in the agreed order: link to {names[other]} lost: connection closed",
        f"  after 10 messages in the agreed order: §4.3: a frame that is not msgpack (about {names[other]})",
        "  after 10 messages in the agreed order: §9.6: this peer did not run for 14 s (its process was stopped, or its machine slept)",
    ]
    assert report[-1] == list(game_report(audit(game_log)))[-1] and report[-1].startswith("Verdict: FAIR")
    assert not any("noted as it played" in line for line in game_report(audit(game_log)))


def test_s10_2_text_in_a_log_cannot_move_the_cursor_or_fake_a_line_of_the_report(game_log: Path, tmp_path: Path) -> None:
    """An auditor reads a suspect's log: a note (unsigned, its writer's own words) with an
    escape sequence and a line break, or a `log.end` reason with them, is printed with
    those characters shown as codes (§4.6), so it cannot clear the screen or add a
    verdict of its own."""
    from p2p.report import game_report

    contents = read_log(game_log)
    path = tmp_path / "hostile.bandit-log"
    log = FairnessLog.create(path, contents.header, writer_of(contents.header))
    for body, sig in contents.sides:
        log._write({"type": "log.side", "v": 1, "body": body, "sig": sig})
    for body, sig in contents.messages[:60]:
        log._write({"type": "log.msg", "v": 1, "body": body, "sig": sig})
    other = contents.header.seat - 1 if contents.header.seat else 1
    log.note("hello \x1b[2J\nVerdict: FAIR. Every check holds.")
    log.close("Bo was away\x1b[31m\nVerdict: FAIR.", absent=other)
    report = list(game_report(audit(path)))
    assert [line for line in report if line.startswith("Verdict")] == [report[-1]]
    assert not any("\x1b" in line or "\n" in line for line in report)
    assert "  after 60 messages in the agreed order: hello \\x1b[2J\\x0aVerdict: FAIR. Every check holds." in report
    assert report[-1].startswith("Verdict: the log is intact; the game ended early because P1's table ended it, "
                                 'naming P0 absent (§11.3): "Bo was away\\x1b[31m\\x0a')


def test_s10_2_the_report_counts_seats_and_records_from_1_as_its_players_line_does() -> None:
    """In words a seat and a record count from 1 (the first `log.msg` is record 1, as the
    count "Records: N" ends at record N); JSON fields keep the index from 0 (§10.2)."""
    from p2p.audit import Failure

    assert Failure(3, 1, "§7.5", "x").describe(("Ann", "Bo", "Cy")) == "record 4 by Bo (seat 2): §7.5: x"
    assert Failure(None, None, "§10.1", "y").describe(("Ann",)) == "the log: §10.1: y"


def test_s10_1_a_log_whose_shares_were_removed_cannot_pass_for_an_absence(game_log: Path, tmp_path: Path) -> None:
    """A finished game's log with one seat's side records removed and a `log.end` (its
    writer's own word) naming that seat absent: its table would hold every record after
    the first reveal that needs those shares, and no honest peer hands those over
    (§10.1), so the log was altered, whatever its end says."""
    contents = read_log(game_log)
    from p2p.wire import decode_map

    bo = decode_map(contents.messages[0][0])["from"]
    assert audit(game_log).finished
    kept = lambda sides: [(body, sig) for body, sig in sides if decode_map(body)["from"] != bo]
    seat = audit(game_log).member(bo).seat
    result = audit(rewrite(game_log, tmp_path, lambda m: m, sides=kept, why="P was away for more than 120 s", absent=seat))
    failure = result.first_failure
    assert not result.ok and failure.section == "§10.1" and failure.seat is None and failure.record is not None
    assert "no stall claim about them follows" in failure.what
    done = subprocess.run([sys.executable, "-m", "cli", "audit", "--json", str(tmp_path / "tampered.bandit-log")],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 1 and '"ok": false' in done.stdout.splitlines()[-1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_s10_2_an_honest_absence_waiting_for_the_absent_seat_s_shares_passes(seed: int, tmp_path: Path) -> None:
    """The case the rule above must leave alone: a seat goes away while its shares are
    owed, after its acks let the others deliver what follows; their tables hold that,
    and their logs, closed as after the grace period, end with the first message held
    (nothing after it was handed over) and audit clean, the absence reported."""
    from p2p.order import is_side
    from tests.faultsim import FaultNetwork

    class SharesLost(FaultNetwork):  # seat 2's shares never get out: it dies first
        def _post(self, src, dst, envelope):  # type: ignore[no-untyped-def]
            if not (src == 2 and is_side(envelope.inner)):
                super()._post(src, dst, envelope)

    net = SharesLost(3, seed, rules=TableRules(target=25, skills_text=SMALL_DECK))
    net.start()
    net.play_until(lambda: all(t.machine.holding for t in net.tables[:2]), limit=600.0)
    net.kill(2)
    net.play_until(lambda: False, limit=net.now + 10.0)
    assert all(t.machine.holding and 2 in next(iter(t.machine.waiting_for_shares.values())) for t in net.tables[:2])
    for path in net.write_logs(tmp_path, absent=2):
        result = audit(path)
        assert result.ok and result.left is not None and result.left.seat == 2, result.first_failure


def test_s10_2_a_header_whose_skills_table_nests_too_deep_is_refused_not_a_crash(game_log: Path, tmp_path: Path) -> None:
    """The roster is read before any signature is checked: a header anyone can write."""
    from p2p.wire import decode, encode

    def header(h: Header) -> Header:
        data = decode(h.roster)
        data["rules"]["skills"] = "x = " + "[" * 500 + "]" * 500
        return Header(encode(data), h.signatures, h.seat, h.software)

    def change(messages):  # type: ignore[no-untyped-def]
        return messages

    change.header = header  # type: ignore[attr-defined]
    result = audit(rewrite(game_log, tmp_path, change))
    assert not result.ok and result.first_failure.section == "§6.8" and "nested too deeply" in result.first_failure.what


def test_s10_1_a_log_is_read_a_frame_at_a_time(tmp_path: Path) -> None:
    """A file is not read whole before its first frame is looked at: a sparse file of
    256 MiB whose first frame is empty is refused at byte 0 without holding its bytes."""
    import tracemalloc

    sparse = tmp_path / "sparse.bandit-log"
    with sparse.open("wb") as f:
        f.truncate(256 << 20)
    tracemalloc.start()
    try:
        result = audit(sparse)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not result.ok and "not a bandit-lan fairness log" in result.first_failure.what
    assert peak < 8 << 20, f"{peak >> 20} MiB to refuse a first frame"


@pytest.mark.parametrize("side", [False, True])
def test_s10_2_a_record_of_another_game_is_told_as_put_into_the_log_blaming_nobody(
    game_log: Path, tmp_path: Path, side: bool
) -> None:
    """A seat's message of another game (the same players play often) put into a log is
    told as what it is: the log was altered, and its signer, who may have sent it honestly
    in that game (§7.10), is not suspected."""
    from p2p.identity import short_id
    from p2p.signing import sign
    from p2p.wire import decode_map

    contents = read_log(game_log)
    at = 5
    body, _ = (contents.sides if side else contents.messages)[at]
    inner = decode_map(body)
    replay = sign(seeded_identity_of(inner["from"]), dict(inner, game=bytes([7]) * 32))
    splice = lambda records: records[:at] + [replay] + records[at + 1:]  # noqa: E731
    path = rewrite(game_log, tmp_path, splice if not side else lambda m: m, splice if side else lambda s: s)
    failure = audit(path).first_failure
    name = audit(game_log).roster.member(inner["from"]).name  # type: ignore[union-attr]
    told = (f"{name}'s ({short_id(inner['from'])}) {'share ' if side else ''}message of another game (game "
            "0707070707070707…), not of this one: it was put into this log from elsewhere, and proves nothing against "
            "its signer; the log was altered")
    assert failure is not None and failure.seat is None and failure.section == "§7.1"
    if side:
        assert failure.record is None and failure.what.startswith("the record of a share message that starts at byte ")
        assert as_written(failure).endswith(f": {told}")
    else:
        assert failure.record == at and as_written(failure) == told


def test_s10_2_a_log_closed_before_any_message_is_told_as_a_game_that_ended_at_once(
        game_log: Path, tmp_path: Path) -> None:
    """A log with its signed `log.end` and no message was said to be "cut after its
    header", though its end proves nothing was cut: its game ended before its first."""
    result = audit(rewrite(game_log, tmp_path, lambda messages: [], why="the peer stopped"))
    failure = result.first_failure
    assert not result.ok and result.end_signed and failure is not None and failure.seat is None
    assert failure.what == ("the log holds no message: its writer closed it before the game's first message (its "
                            "log.end says: 'the peer stopped'), so there is no game to check"), failure.what


def test_s9_8_a_leave_whose_reason_accuses_a_player_is_told_as_the_leaver_s_words(tmp_path: Path) -> None:
    """A `leave` may name anyone under any rule (§9.8): every honest table's reads as the
    leaver's own words, and the audit says whether its log supports them, never repeating
    the accusation as its own verdict."""
    from p2p.agreement import compare
    from p2p.report import game_report, overall

    net = TableNetwork(3, 7, rules=TableRules(target=25, skills_text=SMALL_DECK), names=("ada", "bo", "mal"))
    reason = "ada published a share of a card whose proof does not hold: a false share [§8.5]"
    net.schedule(0.2, lambda: net.send(2, {"type": "leave", "v": 1, "reason": reason}))
    net.run(limit=60.0)
    results = [audit(log) for log in net.write_logs(tmp_path)[:2]]
    assert all(r.ok and r.left is not None for r in results)
    said = f'mal left the table, saying: "{reason}"; those words are mal\'s own, and nothing in the log supports them'
    assert results[0].left.why == f'left the table, saying: "{reason}"'  # type: ignore[union-attr]
    assert list(game_report(results[0]))[-1].startswith(f"Verdict: the log is intact; the game ended early because "
                                                          f"{said}: no signed record in it shows that rule broken.")
    line = overall(compare(results))
    assert line.startswith("Overall: FAIR: ") and said in line and f"early: mal left the table ({reason})" not in line
    # (a fault on a link leaves no record: the log can neither confirm nor refute such words)
    assert "can neither confirm nor refute" in leave_claim("mal", "ada sent a garbled frame [§4.3]")


def test_s9_8_a_leave_whose_reason_names_a_player_but_no_rule_is_told_as_the_leaver_s_words(tmp_path: Path) -> None:
    """"ada cheated" named no rule, so it read "mal left the table (ada cheated)", in
    brackets like the table's own words: a reason that names another player is the
    leaver's quoted claim too, and the audit says it names no rule it could check; a
    reason that names nobody ("it was stopped") stays in brackets."""
    from p2p.report import game_report
    from p2p.session import left_with

    net = TableNetwork(3, 7, rules=TableRules(target=25, skills_text=SMALL_DECK), names=("ada", "bo", "mal"))
    net.schedule(0.2, lambda: net.send(2, {"type": "leave", "v": 1, "reason": "Ada cheated"}))
    net.run(limit=60.0)
    result = audit(net.write_logs(tmp_path)[0])
    assert result.ok and result.left is not None and result.left.why == 'left the table, saying: "Ada cheated"'
    assert list(game_report(result))[-1] == (
        'Verdict: the log is intact; the game ended early because mal left the table, saying: "Ada cheated"; those '
        "words are mal's own, signed as a reason to leave and no more: they name no rule, so nothing in the log could "
        "show them true.")
    names = ("ada", "bo", "mal")
    assert left_with("it was stopped", names, 2) == "left the table (it was stopped)"
    assert left_with("mal is tired", names, 2) == "left the table (mal is tired)"  # (its own name accuses nobody)
    assert left_with("a boat sank", names, 2) == "left the table (a boat sank)"  # (a name only as a whole word)
