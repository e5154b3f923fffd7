"""§10.1: the writer signs its log's header and its end, so that nobody can pass one
seat's log off as another's or change a closed log; the audit verifies both (§10.2)
and shows what the end says. A seat that resumes (§11.3) signs its end over both runs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from p2p.agreement import compare
from p2p.audit import audit
from p2p.log import LOG_LIMITS, FairnessLog, Header, LogError, read_log
from p2p.report import comparison_report, game_report
from p2p.wire import decode_map, encode_frame, split_frames
from tests.tablesim import TableNetwork
from tests.test_audit_agreement import finished_table
from vectors_support import fixed_identity, protocol_vectors


# The tests share what a module fixture plays: one worker plays it and runs them all
pytestmark = pytest.mark.xdist_group("log_signed")


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[TableNetwork, list[Path]]:
    return finished_table(tmp_path_factory, 321, ("Ann", "Bo", "Ada"))


def frames_of(path: Path) -> list[dict[str, Any]]:
    """Every frame of a log, decoded (u32 length, then msgpack: what anyone can edit)."""
    return [decode_map(payload, LOG_LIMITS) for _, payload in split_frames(path.read_bytes(), LOG_LIMITS)]


def write_frames(path: Path, frames: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(encode_frame(frame, LOG_LIMITS) for frame in frames))
    return path


def test_s10_1_a_header_changed_to_name_another_seat_names_no_writer(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Ann's log with its header's `seat` set to Ada's: the header's signature is Ann's,
    not Ada's, so the log says nothing in Ada's name and fails (it read "written by seat 3
    (Ada)", "Verdict: FAIR"); beside the others' logs, no two are labelled Ada's."""
    _, logs = table
    frames = frames_of(logs[0])
    assert frames[0]["type"] == "log.header" and frames[0]["seat"] == 0
    frames[0]["seat"] = 2
    forged = write_frames(tmp_path / "hdr_seat.log", frames)
    result = audit(forged)
    failure = result.first_failure
    assert result.writer is None and failure is not None and failure.record is None and failure.seat is None
    assert failure.section == "§10.1" and failure.what.startswith(
        "the log.header names seat 3 (Ada) as its writer, but its signature does not verify under Ada's key")
    first = next(line for line in game_report(result) if line.startswith("Game "))
    assert first.endswith("written by a writer it does not prove (its header's signature fails)")
    assert main(["audit", str(forged), str(logs[1]), str(logs[2])]) == 1
    told = capsys.readouterr().out
    assert sum(", written by Ada:" in line for line in told.splitlines()) == 1, told
    assert "hdr_seat.log, written by a writer it does not prove: " in told and "NOT VERIFIED" in told


def test_s10_3_a_file_that_is_no_log_beside_one_log_cannot_be_compared(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file that is no log given with one good log: nothing to compare, and the summary
    says so rather than that the logs disagree (exit 1, as the file fails)."""
    _, logs = table
    notes = tmp_path / "notes.txt"
    notes.write_text("Ann won the second game.\n")
    assert main(["audit", str(logs[0]), str(notes)]) == 1
    told = capsys.readouterr().out
    assert "The logs cannot be compared: §10.3: fewer than two readable logs to compare" in told
    assert "do not tell the same game" not in told


@pytest.mark.parametrize("edit", [
    {"absent": 2, "why": "a player was away for more than 120 s"},
    {"why": "ok\x1b[2J\nVerdict: FAIR. Every check holds."},
])
def test_s10_1_an_edited_log_end_fails_and_is_shown_safely(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        edit: dict[str, Any]) -> None:
    """The end record rewritten in a finished log (it was accepted, and never shown): its
    writer's signature no longer holds, the audit fails naming the end, and the report
    and `--json` give what the end now says, a control character shown as its code."""
    _, logs = table
    frames = frames_of(logs[1])
    assert frames[-1]["type"] == "log.end"
    frames[-1].update(edit)
    edited = write_frames(tmp_path / "end.bandit-log", frames)
    result = audit(edited)
    failure = result.first_failure
    assert failure is not None and failure.record is None and failure.seat is None and failure.section == "§10.1"
    assert "the log.end's signature does not verify under its writer's key (Bo, seat 2)" in failure.what
    assert result.end_signed is False
    report = list(game_report(result))
    assert [line for line in report if line.startswith("Verdict")] == [report[-1]]
    assert any(line.startswith("As this log tells it, the game was over after round ") for line in report)  # (replayed)
    assert report[-1].startswith("Verdict: NOT VERIFIED") and not any("\x1b" in line or "\n" in line for line in report)
    shown = next(line for line in report if line.startswith("This log ends with a closing record that does not carry "
                                                            "Bo's signature (that signature covers every byte before "
                                                            "it: a change anywhere"))
    if "absent" in edit:
        assert shown.endswith(': "a player was away for more than 120 s"; absent: seat 3 (Ada)')
    else:
        assert shown.endswith(': "ok\\x1b[2J\\x0aVerdict: FAIR. Every check holds."')
    assert main(["audit", "--json", str(edited)]) == 1
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["ok"] is False and out["end"] == {
        "why": edit["why"], "absent": {"seat": 2, "peer": "Ada"} if "absent" in edit else None, "left": None,
        "leave": False, "signed": False}


@pytest.mark.parametrize("which", ["end", "header"])
def test_s10_1_a_frame_encoded_again_with_the_same_values_fails(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, which: str) -> None:
    """The writer signs its header and end over encodings the reader re-derives, so a
    frame encoded again with its values unchanged (`v` as a 16-bit integer) would still
    verify and pass for the writer's own file: every frame must be canonical (§4.3), and
    such a log fails, at that frame's byte."""
    _, logs = table
    data = logs[1].read_bytes()
    frames = list(split_frames(data, LOG_LIMITS))
    offset, payload = frames[-1] if which == "end" else frames[0]
    assert payload is not None and b"\xa1v\x02" in payload  # ("v": 2, the shortest form)
    longer = payload.replace(b"\xa1v\x02", b"\xa1v\xcd\x00\x02", 1)
    assert decode_map(longer, LOG_LIMITS) == decode_map(payload, LOG_LIMITS)
    edited = tmp_path / f"{which}.bandit-log"
    edited.write_bytes(data[:offset] + len(longer).to_bytes(4, "big") + longer + data[offset + 4 + len(payload):])
    with pytest.raises(LogError) as info:
        read_log(edited)
    assert str(info.value).startswith(f"§10.1: frame at byte {offset}: not in its canonical encoding (§4.3)")
    failure = audit(edited).first_failure
    assert failure is not None and failure.section == "§10.1", failure
    told = (f"the file was changed or damaged in the frame that starts at byte {offset}: not in its canonical "
            "encoding (§4.3), so not as its writer wrote it; it and everything" if which == "end" else
            "the file was changed or damaged in the log's header, in its first frame, which starts at byte 0 (or the "
            "file is not a fairness log): it cannot be read as a log.header (not in its canonical encoding (§4.3)")
    assert failure.what.startswith(told), failure.what
    assert audit(logs[1]).ok


def test_s10_1_a_log_cut_short_under_its_end_fails(table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """Records removed from before a kept end: the end signs everything before it, so the
    log does not pass for one its writer closed there."""
    _, logs = table
    frames = frames_of(logs[1])
    cut = write_frames(tmp_path / "cut.bandit-log", frames[:len(frames) // 2] + frames[-1:])
    failure = audit(cut).first_failure
    assert failure is not None and failure.section == "§10.1" and failure.record is None
    assert "the log.end's signature does not verify" in failure.what


def test_s10_2_the_report_and_json_give_the_end_as_its_writer_signed_it(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.test_audit_tamper import rewrite

    _, logs = table
    report = list(game_report(audit(logs[0])))
    assert 'Ann\'s program closed this log and signed it: "the game ended"' in report
    why = "Ada was away for more than 120 s; round 2 is void"
    absent = rewrite(logs[0], tmp_path, lambda m: m[:60], why=why, absent=2)
    result = audit(absent)
    assert result.ok and result.end_signed is True
    assert f'Ann\'s program closed this log and signed it: "{why}"; absent: seat 3 (Ada)' in game_report(result, brief=True)
    assert main(["audit", "--json", str(absent)]) == 0
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["end"] == {"why": why, "absent": {"seat": 2, "peer": "Ada"}, "left": None, "leave": False, "signed": True}


def test_s11_3_a_resumed_log_is_signed_at_its_close_over_both_runs(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """A seat that crashed mid-write goes on in the same file (its torn frame cut off) and
    signs its end, at the close, over every record of both runs: the log audits clean.
    Another identity cannot go on with it. Its note of the resume counts the log's records
    replayed, which the report splits into what each count holds: the messages in the
    agreed order the note comes after, and share messages (§11.3)."""
    net, logs = table
    contents = read_log(logs[1])
    records = list(contents.records())
    half = len(records) // 2

    def crashed(path: Path) -> Path:
        log = FairnessLog.create(path, contents.header, net.peers[1].identity)
        for side, body, sig in records[:half]:
            log._write({"type": "log.side" if side else "log.msg", "v": 1, "body": body, "sig": sig})
        log.drop()
        side, body, sig = records[half]
        frame = encode_frame({"type": "log.side" if side else "log.msg", "v": 1, "body": body, "sig": sig}, LOG_LIMITS)
        with path.open("ab") as out:
            out.write(frame[:len(frame) // 2])  # (killed while writing)
        return path

    def resumed(path: Path, identity: Any) -> Path:
        log, back = FairnessLog.reopen(path, identity)
        assert list(back.records()) == records[:half] and not back.torn
        log.note(f"resumed after a restart: {half} records replayed from this log in 3 ms")
        for side, body, sig in records[half:]:
            log._write({"type": "log.side" if side else "log.msg", "v": 1, "body": body, "sig": sig})
        log.close("the game ended")
        return path

    result = audit(resumed(crashed(tmp_path / "bo.bandit-log"), net.peers[1].identity))
    assert result.ok and result.finished and result.end_signed is True and result.writer == 1, result.first_failure
    ordered = sum(not side for side, _, _ in records[:half])
    assert 0 < ordered < half
    assert (f"  after {ordered} messages in the agreed order: resumed after a restart: {half} records replayed from "
            f"this log ({ordered} messages in the agreed order and {half - ordered} share messages) in 3 ms"
            ) in game_report(result), list(game_report(result))
    with pytest.raises(LogError, match="only its writer goes on with it"):
        resumed(crashed(tmp_path / "bo-again.bandit-log"), net.peers[2].identity)


def test_s10_1_log_signature_vector(tmp_path: Path) -> None:
    """protocol.md's `log` vector: bob's log (seat 1 of the roster vector) with no records,
    closed "the game ended", signed byte for byte as written there."""
    vectors = protocol_vectors()
    v, roster = vectors["log"], vectors["roster"]
    assert v["writer"] == ('identity-b, seat 1 of the roster vector (its signatures roster_sig_a, roster_sig_b), '
                           'software "bandit-lan (test)"')
    assert v["records"] == 'none: the header, then the end with why "the game ended"'
    bob = fixed_identity(2, tmp_path / "b")
    header = Header(bytes.fromhex(roster["roster"]),
                    (bytes.fromhex(roster["roster_sig_a"]), bytes.fromhex(roster["roster_sig_b"])), 1, "bandit-lan (test)")
    path = tmp_path / "bob.bandit-log"
    FairnessLog.create(path, header, bob).close("the game ended")
    data = path.read_bytes()
    end_at = [offset for offset, _ in split_frames(data, LOG_LIMITS)][-1]
    contents = read_log(path)
    assert contents.header_signature[1] == bytes.fromhex(v["header_sig"])
    assert hashlib.sha256(data[:end_at]).digest() == bytes.fromhex(v["end_before"])
    assert data[end_at:] == bytes.fromhex(v["end_frame"])
    assert contents.end_signature is not None and contents.end_signature[1] == bytes.fromhex(v["end_sig"])
    result = audit(path)
    assert result.writer == 1 and result.end_signed is True
    what = result.first_failure.what  # type: ignore[union-attr]
    assert "the log holds no message: its writer closed it before the game's first message (its log.end says: " in what, what


def test_s10_3_a_log_passed_off_as_another_seat_s_is_given_away_by_that_seat_s_log(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """Ada signs Ann's log again as her own: alone it reads well (the records are the
    game's), but beside Ada's own log there are two logs of seat 3 (Ada)."""
    from dataclasses import replace

    from tests.test_audit_tamper import rewrite

    _, logs = table

    def same(messages):  # type: ignore[no-untyped-def]
        return messages

    same.header = lambda header: replace(header, seat=2)  # type: ignore[attr-defined]
    passed_off = audit(rewrite(logs[0], tmp_path, same))
    assert passed_off.ok and passed_off.writer == 2
    agreement = compare([passed_off, audit(logs[1]), audit(logs[2])])
    parting = agreement.parting
    assert parting is not None and parting.section == "§10.3" and parting.seat is None
    assert parting.what.startswith("two logs of seat 3 (Ada): tampered.bandit-log and seat2.bandit-log differ")
    told = list(comparison_report(agreement))
    assert "The logs do not tell the same game: §10.3: two logs of seat 3 (Ada)" in told[-3]
    assert told[-1] == "Overall: NOT VERIFIED: the logs do not tell the same game."


def test_s10_3_the_report_ends_with_one_overall_verdict_that_the_exit_status_follows(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Several logs: each one's own verdict comes first (an intact one's says FAIR), the
    comparison next; the last line is the verdict over them all, and the exit status is
    that verdict's: FAIR only if every log holds and they agree."""
    _, logs = table
    assert main(["audit", *map(str, logs)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("Overall: FAIR: all 3 logs hold every check and tell "
                                                                "the same game. Winner")
    frames = frames_of(logs[1])
    record = next(frame for frame in frames if frame["type"] == "log.msg")
    record["sig"] = bytes(64)  # (one record's signature changed: Bo's log fails, and parts from Ann's)
    changed = write_frames(tmp_path / "changed.bandit-log", frames)
    assert main(["audit", str(logs[0]), str(changed)]) == 1
    told = capsys.readouterr().out.splitlines()
    assert told[-1] == ("Overall: NOT VERIFIED: Ann's log (seat0.bandit-log) holds every check and tells a game that "
                        "Ann won; but Bo's log (changed.bandit-log) is damaged, and a damaged log cannot be verified."), told[-1]
    assert any(line.startswith("Verdict: FAIR") for line in told)  # (Ann's own, told first)
    frames = frames_of(logs[1])
    one, other = [i for i, frame in enumerate(frames) if frame["type"] == "log.msg"][40:42]
    frames[one], frames[other] = frames[other], frames[one]  # (two signed records in another order: Bo's chain
    assert main(["audit", str(logs[0]), str(write_frames(tmp_path / "swapped.bandit-log", frames))]) == 1  # breaks)
    told = capsys.readouterr().out.splitlines()
    assert told[-1] == ("Overall: NOT VERIFIED: Ann's log (seat0.bandit-log) holds every check and tells a game that "
                        "Ann won; but Bo's log (swapped.bandit-log) is damaged, and a damaged log cannot be verified."), told[-1]
    short = write_frames(tmp_path / "short.bandit-log", frames_of(logs[1])[:40])  # (agrees, but was never closed)
    assert main(["audit", str(logs[0]), str(short)]) == 1
    told = capsys.readouterr().out.splitlines()
    assert told[-1] == ("Overall: NOT VERIFIED: Bo's log (short.bandit-log) fails its own audit: it stops after 23 of "
                        "the 222 messages in Ann's log; Ann's log holds every check and tells a game that Ann won."), told[-1]
    assert "Both logs tell the same game" in told[-3]


def test_s10_3_one_log_given_twice_is_said_so(table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    import shutil

    _, logs = table
    twice = compare([audit(logs[0]), audit(logs[1]), audit(logs[1])])
    assert twice.ok and "the log of seat 2 (Bo), seat1.bandit-log, is given twice" in twice.summary()
    copy = Path(shutil.copy(logs[1], tmp_path / "copy.bandit-log"))
    copied = compare([audit(logs[1]), audit(copy)])
    assert copied.ok and "seat1.bandit-log and copy.bandit-log are one log of seat 2 (Bo), given twice" in copied.summary()


@pytest.mark.parametrize("how", ["at a record boundary", "torn mid-record"])
def test_s10_3_a_log_never_closed_is_not_called_closed_early(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, how: str) -> None:
    """Beside the others' logs, a log with no end says what its own verdict says (never
    closed, or cut short), not "it was closed early"."""
    _, logs = table
    data = logs[0].read_bytes()
    offsets = [offset for offset, _ in split_frames(data, LOG_LIMITS)]
    cut = offsets[len(offsets) // 2] + (7 if how == "torn mid-record" else 0)
    short = tmp_path / "short.bandit-log"
    short.write_bytes(data[:cut])
    own = audit(short)
    held = len(own.contents.messages)  # type: ignore[union-attr]
    summary = compare([own, audit(logs[1]), audit(logs[2])]).summary()
    assert "closed early" not in summary and own.first_failure is not None
    if how == "torn mid-record":
        ending = (f"its last record, from byte {offsets[len(offsets) // 2]} on, was cut short: its peer stopped while "
                  "writing it, or the file was cut there")
        assert own.first_failure.what == "the log's" + ending.removeprefix("its")
    else:
        ending = ("it was never closed: its game is still being played, or its peer stopped (it may resume, §11.3), "
                  "or the records after this point were cut off")
        assert ending in own.first_failure.what
    assert f"(Ann's ends after {held}: {ending})" in summary, summary


def test_s10_3_the_overall_verdict_of_logs_of_a_game_that_ended_early_is_a_fair_one() -> None:
    """Logs that hold every check and agree on a game a player left end with "Overall:
    FAIR: …" as every verified set does (it read "Overall: both logs are intact …", which
    a script looking for the two forms README gives missed)."""
    from types import SimpleNamespace

    from p2p.report import overall

    log = SimpleNamespace(left=SimpleNamespace(told="Bo left the table (the player chose to leave)"), winners=())
    agreement = SimpleNamespace(logs=[log, log], verified=True, parting=None, away=None, told=log,
                                twice=(), compared=(), proof=None)
    assert overall(agreement) == ("Overall: FAIR: both logs hold every check and tell the same game, which ended early: "  # type: ignore[arg-type]
                                  "Bo left the table (the player chose to leave).")


@pytest.mark.parametrize(("count", "pad"), [(2, 100), (2, 1_047_000), (3, 800_000)])
def test_s10_1_evidence_too_large_for_a_record_leaves_a_note_the_report_shows(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, count: int, pad: int) -> None:
    """Bo's signed messages that prove a §7.3 violation, each near 1 MiB: three are more
    than a log record holds. The log was left without them and without a word; now a note
    about Bo says the evidence was too large to keep, with its section, and the report
    shows it. Evidence that fits is kept whole, also where it comes within 4 KiB of the
    record's limit (it was dropped then)."""
    from p2p.signing import signed_message

    net, logs = table
    contents = read_log(logs[0])
    bo = net.peers[1].identity
    proof = [signed_message(bo, {"type": "note", "v": 1, "from": bo.peer_id, "game": net.peers[0].orderer.game,
                                 "seq": 5 + n, "pad": bytes([n]) * pad}) for n in range(count)]
    path = tmp_path / "ann.bandit-log"
    log = FairnessLog.create(path, contents.header, net.peers[0].identity)
    for body, sig in contents.sides:
        log._write({"type": "log.side", "v": 1, "body": body, "sig": sig})  # noqa: SLF001
    for body, sig in contents.messages[:20]:
        log._write({"type": "log.msg", "v": 1, "body": body, "sig": sig})  # noqa: SLF001
    log.evidence("§7.3", bo.peer_id, proof)
    log.close("stopped")
    kept = read_log(path)
    if count == 2:
        assert [[body for body, _ in e.items] for e in kept.evidence] == [[m.body for m in proof]] and not kept.notes
        return
    assert kept.evidence == []
    (note,) = kept.notes
    assert (note.peer, note.section, note.index) == (bo.peer_id, "§7.3", 20)
    assert note.text.startswith("§7.3: the evidence of this violation (3 signed messages, "), note.text
    assert note.text.endswith("): it is not kept, so the audit cannot check the claim"), note.text
    report = list(game_report(audit(path)))
    assert f"  after 20 messages in the agreed order: {note.text} (about Bo)" in report, report
