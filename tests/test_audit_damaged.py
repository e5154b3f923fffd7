"""§10.3: a log whose own audit finds its file altered or damaged (a record dropped,
repeated or moved, records cut off under a kept end, a byte of its end or a record
changed, a frame's length changed, its header changed), given first beside logs that
hold, is set aside as damaged and the game is told from them; a log cut short with no
end, or torn, is a prefix that agrees; a writer's own message signed again is its
writer's lie, named (§7.10)."""

from __future__ import annotations

import json
import re
import struct
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from cli.main import main
from p2p.agreement import compare
from p2p.audit import audit, writer_signed_it
from p2p.plain import verdict
from p2p.log import LOG_LIMITS, read_log
from p2p.report import comparison_report, game_report, told_from
from p2p.signing import sign
from p2p.wire import decode_map, encode_frame, split_frames
from tests.tablesim import TableNetwork
from tests.test_audit_agreement import finished_table
from tests.test_audit_tamper import rewrite

RECORD = 40  # the `log.msg` record (from 0) the damage is done at
Frames = list[bytes]


# The tests share what a module fixture plays: one worker plays it and runs them all
pytestmark = pytest.mark.xdist_group("audit_damaged")


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[TableNetwork, list[Path]]:
    return finished_table(tmp_path_factory, 130, ("Ann", "Bo", "Cy"))


def edited(original: Path, path: Path, change: Callable[[Frames, list[int]], Frames]) -> Path:
    """A copy of `original` whose frames (each its bytes, length included) went through
    `change`, given them and which of them are `log.msg` records: what anyone (a disk, an
    editor) can do to a file, nothing signed again."""
    data = original.read_bytes()
    starts = [at for at, _ in split_frames(data, LOG_LIMITS)]
    frames = [data[a:b] for a, b in zip(starts, [*starts[1:], len(data)])]
    records = [starts.index(at) for at in read_log(original).message_at]
    path.write_bytes(b"".join(change(frames, records)))
    return path


def _moved(frames: Frames, records: list[int]) -> Frames:
    one, other = records[RECORD], records[RECORD + 1]
    frames[one], frames[other] = frames[other], frames[one]
    return frames


def _flipped(frame: bytes, at: int) -> bytes:
    changed = bytearray(frame)
    changed[at] ^= 1
    return bytes(changed)


def _lengthened(frame: bytes) -> bytes:
    (length,) = struct.unpack(">I", frame[:4])
    return struct.pack(">I", length + 1) + frame[4:]


def _header_of_seat(frame: bytes, seat: int) -> bytes:
    header = decode_map(frame[4:], LOG_LIMITS)
    return encode_frame(dict(header, seat=seat), LOG_LIMITS)


DAMAGE: dict[str, Callable[[Frames, list[int]], Frames]] = {
    "a record dropped": lambda f, r: f[:r[RECORD]] + f[r[RECORD] + 1:],
    "a record repeated": lambda f, r: f[:r[RECORD] + 1] + f[r[RECORD]:],
    "two records moved": _moved,
    "records cut off under its end": lambda f, r: f[:r[60]] + f[-1:],
    "a byte of its end changed": lambda f, r: f[:-1] + [_flipped(f[-1], len(f[-1]) - 2)],
    "a byte of a record's signature changed": lambda f, r: f[:r[RECORD]]
    + [_flipped(f[r[RECORD]], f[r[RECORD]].index(b"\xa3sig\xc4\x40") + 15)] + f[r[RECORD] + 1:],
    "a byte of a record's name changed": lambda f, r: f[:r[RECORD]] + [_flipped(f[r[RECORD]], -10)]
    + f[r[RECORD] + 1:],  # ("log.msg" read "mog.msg": a frame that is not a record)
    "a frame's length changed": lambda f, r: f[:r[RECORD]] + [_lengthened(f[r[RECORD]])] + f[r[RECORD] + 1:],
    "its header naming another writer": lambda f, r: [_header_of_seat(f[0], 2)] + f[1:],
    "a record after its end": lambda f, r: f + [f[r[RECORD]]],
    "zeros after its end": lambda f, r: f + [bytes(16)],  # (§10.1: a closed log is not torn; nothing follows its end)
}


@pytest.mark.parametrize("damage", [*DAMAGE, "a record dropped, closed again by its writer"])
def test_s10_3_a_log_its_own_audit_finds_altered_is_set_aside_and_the_game_told_from_the_others(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, damage: str) -> None:
    """Bo's log damaged, given first: it hid the game the others hold (told from it, cut
    short at the damage, and "the logs do not tell the same game") where its copy of a
    record still verified; now it is set aside as a flipped byte's log is (§10.3)."""
    _, logs = table
    if damage in DAMAGE:
        bad = edited(logs[1], tmp_path / "bad.bandit-log", DAMAGE[damage])
    else:  # (its writer signs the end over what it left: no honest peer writes that either)
        bad = rewrite(logs[1], tmp_path, lambda m: m[:RECORD] + m[RECORD + 1:]).rename(tmp_path / "bad.bandit-log")
    results = [audit(bad), audit(logs[0]), audit(logs[2])]
    assert results[0].altered and not results[1].altered and not results[2].altered, results[0].first_failure
    agreement = compare(results)
    assert agreement.damaged == (results[0],), agreement.parting
    assert agreement.parting is not None and agreement.parting.seat is None
    assert agreement.agree and told_from(results, agreement.damaged) is results[1]
    records = len(results[1].contents.messages)  # type: ignore[union-attr]
    assert agreement.summary().endswith(f" The other 2 logs tell the same game: {records} messages in the same order.")
    named = "Bo's log (bad.bandit-log)" if results[0].writer is not None else "bad.bandit-log"
    signed = damage not in DAMAGE  # (its writer's key signed its end over it as it is: it is false, §10.2)
    assert results[0].first_failure.signed_by == (1 if signed else None), results[0].first_failure
    said = "is false" if signed else "is damaged"
    assert agreement.parting.what.startswith(f"{named} {said} (see its verdict): "), agreement.parting.what
    assert list(comparison_report(agreement))[-1] == (
        f"Overall: NOT VERIFIED: the 2 {'other' if signed else 'undamaged'} logs hold every check and tell the same "
        "game, which Cy won; but " + (f"{named} is false, signed as it is by Bo's key, which no honest program does." if signed else
           f"{named} is damaged, and a damaged log cannot be verified."))


@pytest.mark.parametrize("first", [True, False])
def test_s10_3_a_log_with_two_records_of_one_stamp_swapped_by_its_writer_is_set_aside(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, first: bool) -> None:
    """Bo swaps two records of one stamp in its own log and signs its end again, at every
    such pair: its own audit finds the agreed order broken (§7.4), blaming no player
    (its log is false, signed by Bo's key, §10.2), even
    where the record it put first seems to break a rule before the tie-break breaks; so
    beside the others' logs, given before or after them, it is set aside as damaged and
    the game is told from an honest log (it was told as Bo's, blaming a player)."""
    _, logs = table
    others = [audit(logs[0]), audit(logs[2])]
    heads = [decode_map(body) for body, _ in others[0].contents.messages]  # type: ignore[union-attr]
    ties = [i for i in range(len(heads) - 1)
            if heads[i]["lamport"] == heads[i + 1]["lamport"] and heads[i]["from"] != heads[i + 1]["from"]]
    assert len(ties) > 5
    for i in ties:
        bad = audit(rewrite(logs[1], tmp_path, lambda m: m[:i] + [m[i + 1], m[i]] + m[i + 2:]))
        failure = bad.first_failure
        assert failure is not None and failure.seat is None and failure.section == "§7.4" and bad.altered, failure
        results = [bad, *others] if first else [*others, bad]
        agreement = compare(results)
        assert agreement.damaged == (bad,) and agreement.agree, (i, agreement.parting)
        assert told_from(results, agreement.damaged) is others[0]
        assert agreement.parting is not None and agreement.parting.what.startswith(
            f"Bo's log (tampered.bandit-log) is false (see its verdict): its own audit finds the file altered at "
            f"record {i + 2} (§7.4) under a log.end that Bo's key signed over it as it is, and it parts from the "
            f"other logs at record {i + 1}: ")


def test_s10_3_a_dropped_record_is_told_where_the_log_parts_from_the_others(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    _, logs = table
    bad = audit(edited(logs[1], tmp_path / "bad.bandit-log", DAMAGE["a record dropped"]))
    failure = bad.first_failure
    assert failure is not None and failure.section == "§7.2" and failure.record == RECORD
    parting = compare([bad, audit(logs[0]), audit(logs[2])]).parting
    assert parting is not None and parting.record == RECORD
    full = audit(logs[0]).contents.messages  # type: ignore[union-attr]
    who = {m.peer_id: m.name for m in bad.roster.members}  # type: ignore[union-attr]

    def about(index: int) -> str:
        inner = decode_map(full[index][0])
        return f"{who[inner['from']]}'s message {inner['seq']} ({inner['type']})"

    assert parting.what == (f"Bo's log (bad.bandit-log) is damaged (see its verdict): its own audit finds the file "
                            f"altered at record {RECORD + 1} (§7.2: nobody is blamed), and it parts from the other "
                            f"logs at record {RECORD + 1}: it holds {about(RECORD + 1)} there, the other logs "
                            f"{about(RECORD)}")


def test_s10_3_the_report_of_a_log_with_a_record_dropped_given_first_tells_the_game_the_others_hold(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, logs = table
    bad = edited(logs[1], tmp_path / "dropped.bandit-log", DAMAGE["a record dropped"])
    given = [str(bad), str(logs[0]), str(logs[2])]
    assert main(["audit", *given]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("dropped.bandit-log is damaged (see its own verdict with the logs compared below): the game "
                        "is told from seat0.bandit-log, the first readable log that is not damaged.")
    assert lines[2] == f"Fairness log: {logs[0]}"
    assert not any("cut short" in line or "unknown to the audit" in line for line in lines), lines
    assert lines[-1].startswith("Overall: NOT VERIFIED: the 2 undamaged logs hold every check and tell the same game")
    assert main(["audit", "--json", *given]) == 1
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["told"] == str(logs[0]) and out["agree"] is True and out["parting"] is None
    assert out["damaged"] == [{"path": str(bad), "writer": 1, "peer": "Bo"}]
    assert out["finished"] is True and out["winners"]


@pytest.mark.parametrize("cut", ["after a record, its end gone", "torn in a record"])
def test_s10_3_a_log_cut_short_with_no_end_is_not_damaged_and_agrees(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, cut: str) -> None:
    """Nothing tells a log cut after a record from one whose peer stopped there, nor a torn
    one from a crash while writing (§10.1): a prefix, not damage."""
    _, logs = table
    tail: Callable[[bytes], list[bytes]] = (lambda frame: []) if cut.startswith("after") else (lambda f: [f[:20]])
    bad = audit(edited(logs[1], tmp_path / "cut.bandit-log", lambda f, r: f[:r[60]] + tail(f[r[60]])))
    assert not bad.ok and not bad.altered
    agreement = compare([bad, audit(logs[0]), audit(logs[2])])
    assert agreement.ok and not agreement.damaged, agreement.parting
    assert "Bo's ends after 60: " in agreement.summary()


def bo_lies(table: tuple[TableNetwork, list[Path]], folder: Path) -> Path:
    """Bo's log with one of his own messages after `RECORD` signed again by him, changed."""
    net, logs = table
    messages = audit(logs[1]).contents.messages  # type: ignore[union-attr]
    bo = net.peers[0].orderer.seats[1]
    index = next(i for i in range(RECORD, len(messages)) if decode_map(messages[i][0])["from"] == bo)
    inner = decode_map(messages[index][0])
    lie = sign(net.peers[1].identity, dict(inner, lamport=inner["lamport"] + 1))
    return rewrite(logs[1], folder, lambda m: m[:index] + [lie] + m[index + 1:])


def test_s10_3_a_writer_s_own_message_signed_again_is_its_lie_named_not_damage(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """Bo signs one of its own messages again, changed, and its end over the log: its own
    audit finds the log altered (its chain breaks), but the others' logs prove what Bo
    did, which names Bo (§7.10) before any log is set aside."""
    _, logs = table
    results = [audit(bo_lies(table, tmp_path)), audit(logs[0])]
    assert results[0].altered
    agreement = compare([*results, audit(logs[2])])
    assert agreement.parting is not None and agreement.parting.section == "§7.10" and agreement.parting.seat == 1
    assert not agreement.damaged


def test_s10_3_the_game_is_told_from_an_honest_log_when_the_liar_s_is_given_first(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bo signs one of his own messages again, changed, in his log, given first: the
    comparison names him (§7.10), but the game was told from his log, his account of a
    game he lied in. It is told from the first log that is not his, and says why."""
    _, logs = table
    liar = bo_lies(table, tmp_path).rename(tmp_path / "bo.bandit-log")
    given = [str(liar), str(logs[0]), str(logs[2])]
    assert main(["audit", *given]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("bo.bandit-log is Bo's (see its own verdict with the logs compared below): the game is told "
                        "from seat0.bandit-log, the longest log that holds every check.")
    assert lines[2] == f"Fairness log: {logs[0]}"
    assert any(re.match(r"The logs do not tell the same game: §7\.10: Bo \(seat 2\) signed two different messages "
                        r"as its \w+ message to the table \(content message \d+\)", line) for line in lines), lines[-5:]
    assert main(["audit", "--json", *given]) == 1
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["told"] == str(logs[0]) and out["parting"]["seat"] == 1 and out["parting"]["section"] == "§7.10"
    assert out["game_id"] == audit(logs[0]).game_id.hex() and out["ok"] is False


def test_s10_3_a_damaged_copy_of_a_seat_s_log_is_set_aside_not_told_as_its_second_log(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """Bo's log and a copy of it with a record dropped: the copy is damaged, not a second
    log its writer signed (§10.3), and the others agree."""
    _, logs = table
    results = [audit(edited(logs[1], tmp_path / "bad.bandit-log", DAMAGE["a record dropped"])), audit(logs[1]),
               audit(logs[0])]
    agreement = compare(results)
    assert agreement.damaged == (results[0],) and agreement.agree, agreement.parting
    assert "two logs of seat 2" not in agreement.summary()


CUT = {  # (how the records are cut, in its `log.msg` records; the end its writer signs over what is left)
    "a record dropped from the middle": lambda m: m[:RECORD] + m[RECORD + 1:],
    "records dropped from the middle": lambda m: m[:RECORD] + m[RECORD + 5:],
    "a record repeated": lambda m: m[:RECORD + 1] + m[RECORD:],
}


@pytest.mark.parametrize("cut", CUT)
def test_s10_2_a_log_cut_under_an_end_its_writer_signed_names_its_writer_one_cut_by_anybody_blames_nobody(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, cut: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Bo's log with records cut from it and its end signed over what is left, by Bo's
    key: its end covers the SHA-256 of every byte before it (§10.1), and no honest program
    signs a log it did not write so (a crash or a full disk leaves no end), so the verdict
    names Bo as the one whose log is false (it said "changed or damaged, nobody is
    blamed"), blaming no move of Bo's; the same records cut by anybody, the end kept,
    fail the end's signature and blame nobody, and so do bytes after a signed end, which
    it does not cover (but they do not clear the writer of what it does cover)."""
    _, logs = table
    signed = audit(rewrite(logs[1], tmp_path, CUT[cut]))
    failure = signed.first_failure
    assert failure is not None and failure.altered and failure.signed_by == 1 and failure.seat is None, failure
    assert failure.what.endswith(f"; {writer_signed_it('Bo')}") and "nobody is blamed" not in failure.what
    assert verdict(signed).startswith("Bo's log is false: it is not as a player's program writes a log, yet Bo's key "
                                      "signed its end over it as it is, so Bo's program or key made it so; nothing in "
                                      "it can be held against anyone else [§7."), verdict(signed)
    assert ("The log is false, signed as it is by Bo's key, so none of its score can be held to; the game has no "
            "winner.") in list(game_report(signed))
    assert main(["audit", "--json", str(tmp_path / "tampered.bandit-log")]) == 1  # (whose it is, for a program too)
    said = json.loads(capsys.readouterr().out.splitlines()[-1])["first_violation"]
    assert said["signed_by"] == {"seat": 1, "peer": "Bo"} and said["seat"] is None, said
    agreement = compare([signed, audit(logs[0]), audit(logs[2])])
    assert agreement.damaged == (signed,) and agreement.agree and agreement.proof is None
    assert list(comparison_report(agreement))[-1].startswith("Overall: NOT VERIFIED: the 2 other logs hold every check")
    assert list(comparison_report(agreement))[-1].endswith(
        "but Bo's log (tampered.bandit-log) is false, signed as it is by Bo's key, which no honest program does.")
    # by anybody: the frames cut, the end kept (its signature fails), or bytes after a signed end
    kept = Counter(CUT[cut](list(range(len(read_log(logs[1]).messages)))))  # (how often each record is left)
    anybody = edited(logs[1], tmp_path / "cut.bandit-log", lambda f, r: [
        frame for at, frame in enumerate(f) for _ in range(kept[r.index(at)] if at in r else 1)])
    after = tmp_path / "after.bandit-log"  # (an honest log, bytes after its end: its signature does not cover them)
    after.write_bytes(logs[1].read_bytes() + bytes(16))
    for path in (anybody, after):
        result = audit(path)
        failure = result.first_failure
        assert failure is not None and failure.altered and failure.signed_by is None, (path, failure)
        assert verdict(result).startswith("The log file was changed or damaged after its writer wrote it, so nothing "
                                          "in it can be held against anyone and nobody is blamed"), verdict(result)
        agreement = compare([result, audit(logs[0]), audit(logs[2])])
        assert list(comparison_report(agreement))[-1].endswith(
            f"but Bo's log ({path.name}) is damaged, and a damaged log cannot be verified.")
        assert main(["audit", "--json", str(path)]) == 1
        assert json.loads(capsys.readouterr().out.splitlines()[-1])["first_violation"]["signed_by"] is None
    # the bytes after an end are anybody's, but they do not take back what Bo's key signed before it
    after.write_bytes(tmp_path.joinpath("tampered.bandit-log").read_bytes() + bytes(16))
    assert audit(after).first_failure.signed_by == 1  # type: ignore[union-attr]


def test_s10_3_a_log_its_writer_cut_short_under_a_signed_absence_is_false_and_its_writer_s(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """The attack: Bo cuts his log in the middle of the game and signs an end saying Cy
    was away. Alone it reads as an early end; beside the others, Bo's own later messages
    in their logs show records were removed, and as Bo's key signed the end over the cut
    log, the log is false and Bo's (it said "damaged … nobody is blamed"). The same cut
    under an end that does not verify (a byte of it changed) is damage, blaming nobody."""
    _, logs = table
    why = "Cy was away past the grace period"
    cut = audit(rewrite(logs[1], tmp_path, lambda m: m[:60], why=why, absent=2))
    assert cut.ok and cut.left is not None and cut.signed_as_is  # (alone, an early end is all one log shows)
    others = [audit(logs[0]), audit(logs[2])]
    agreement = compare([cut, *others])
    parting = agreement.parting
    assert parting is not None and parting.seat is None and agreement.damaged == (cut,) and agreement.rest.ok
    assert re.search(r"but Bo signed (done|an? [\w.]+ of round \d+), Ann's log \(seat0\.bandit-log\) at record \d+: ",
                     parting.what), parting.what
    assert parting.what.endswith(f", so records were removed from its log, {writer_signed_it('Bo')}"), parting.what
    assert list(comparison_report(agreement))[-1] == (
        "Overall: NOT VERIFIED: the 2 other logs hold every check and tell the same game, which Cy won; but "
        "Bo's log (tampered.bandit-log) is false, signed as it is by Bo's key, which no honest program does.")
    # its end changed after: the signature fails, and whoever cut it is not told
    path = tmp_path / "tampered.bandit-log"
    data = bytearray(path.read_bytes())
    data[-3] ^= 1  # (a letter of its `why`)
    path.write_bytes(bytes(data))
    damaged = audit(path)
    assert damaged.altered and damaged.first_failure.signed_by is None and not damaged.signed_as_is
    agreement = compare([damaged, *others])
    assert agreement.damaged == (damaged,) and "nobody is blamed" in agreement.parting.what
    assert list(comparison_report(agreement))[-1].endswith(
        "but Bo's log (tampered.bandit-log) is damaged, and a damaged log cannot be verified.")
