"""§10.3: the overall verdict over several logs of one game says what the logs prove: the
seat whose signed messages broke a rule first, whichever log is given first and however
its writer cut it; the game as the logs that agree tell it, with the odd log named; words
in a log that nothing signed supports, said to be its writer's alone; and logs of two
games, or one log given twice, said so."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import p2p.agreement as agreement_module
from cli.audit import agreement_verdict
from cli.main import main
from p2p.agreement import compare
from p2p.audit import audit
from p2p.log import LOG_LIMITS, FairnessLog, LogContents, read_log
from p2p.report import comparison_report, game_report
from p2p.roster import TableRules, parse_canonical
from p2p.wire import decode_map, encode, split_frames
from tests.cheat_runs import CHEATER, MEMORY, run_table
from tests.tablesim import TableNetwork
from tests.test_audit_tamper import rewrite, writer_of
from tests.test_table_games import SMALL_DECK

NAMES = ("Ann", "Bo", "Cy", "Di")


def staged(name: str, folder: Path) -> list[Path]:
    """The 3 logs of a table where seat `CHEATER` (P2) runs the cheat `name` of §11.2."""
    make, sections, policy = MEMORY[name]
    run_table(make(), sections, policy, folder)
    return [folder / f"seat{seat}.bandit-log" for seat in range(3)]


def audited(capsys: pytest.CaptureFixture[str], *logs: Path) -> tuple[list[str], dict[str, object]]:
    """The report's lines and the `--json` object of `bandit-lan audit` on `logs`."""
    main(["audit", "--brief", *map(str, logs)])
    lines = capsys.readouterr().out.splitlines()
    main(["audit", "--json", *map(str, logs)])
    return lines, json.loads(capsys.readouterr().out.splitlines()[-1])


@pytest.mark.parametrize(("cheat", "said"), [
    ("commitment", "P2 (seat 3) broke §8.7 at record 42 (signed proof in P0's, P1's and P2's logs)."),
    ("wrong-share", "P2 (seat 3) broke §8.5 at record 12 (signed proof in P0's, P1's and P2's logs)."),
    ("equivocation", "P2 (seat 3) broke §7.2 (signed proof kept as evidence in P0's and P1's logs); "),
    ("side-equivocation", "P2 (seat 3) signed two different messages as its first share message (a share message "
                          "carries a player's shares of cards being revealed, and travels beside the agreed order): "),
    ("unseen-heads", "P2 or P0 (seats 3 or 1) broke §7.5 at record 13 (signed proof in P0's, P1's and P2's logs; "
                     "nothing tells which of them)."),
])
def test_s10_3_the_overall_line_names_the_seat_the_logs_prove_broke_a_rule_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], cheat: str, said: str) -> None:
    """Every log holds the proof, so every log fails its own audit: the line said only
    that ("P0's log …, P1's log … and P2's log … fail their own audits"), which reads as
    every log being bad; it names the proven seat, and `first_violation` is that proof."""
    logs = staged(cheat, tmp_path)
    lines, out = audited(capsys, *logs)
    assert lines[-1].startswith(f"Overall: NOT VERIFIED: {said}"), lines[-1]
    assert "fail their own audits" not in lines[-1] and "P0's log (seat0.bandit-log) fails" not in lines[-1]
    violation = out["first_violation"]
    assert isinstance(violation, dict) and out["ok"] is False
    assert violation["seat"] == CHEATER or (violation["seat"] is None and "P2" in violation["suspects"]), violation
    assert out["told"] != str(logs[CHEATER])  # (the story is an honest seat's)


def test_s10_3_a_cheater_s_log_cut_before_its_violation_does_not_hide_the_proof_the_others_hold(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """P2 cuts its log before its opening that does not open (record 42) and signs an end
    naming P0 away: alone it holds. Given first beside the others, the game was told as
    P2's, with no violation in the JSON; the honest logs' proof wins."""
    logs = staged("commitment", tmp_path)
    cut = tmp_path / "cut" / "seat2.bandit-log"
    cut.parent.mkdir()
    rewrite(logs[2], cut.parent, lambda m: m[:40], why="P0 was away for more than 120 s", absent=0).rename(cut)
    alone = audit(cut)
    assert alone.ok and alone.left is not None and alone.records == 40
    lines, out = audited(capsys, cut, logs[0], logs[1])
    assert lines[0].startswith("seat2.bandit-log is P2's (see its own verdict with the logs compared below): the game "
                               "is told from seat0.bandit-log, the longest log not written by P2"), lines[0]
    assert lines[2] == f"Fairness log: {logs[0]}"
    assert ("All 3 logs tell the same game: 42 messages in the same order (P2's ends after 40: it was closed early, "
            "before record 42, the proof against P2).") in lines
    assert lines[-1] == ("Overall: NOT VERIFIED: P2 (seat 3) broke §8.7 at record 42 (signed proof in P0's and P1's "
                         "logs); P2's log stops before that proof, after 40 messages."), lines[-1]
    assert out["told"] == str(logs[0])
    assert out["first_violation"]["seat"] == 2 and out["first_violation"]["record"] == 41  # type: ignore[index]
    assert out["first_violation"]["holders"] == [str(logs[0]), str(logs[1])]  # type: ignore[index]


# The tests share what a module fixture plays: one worker plays it and runs them all
pytestmark = pytest.mark.xdist_group("audit_proven")


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The 4 logs of a finished game (Ann wins), named after their writers."""
    net = TableNetwork(4, 144, rules=TableRules(target=25, skills_text=SMALL_DECK), names=NAMES)
    net.run()
    assert all(t.machine.finished for t in net.tables)
    folder = tmp_path_factory.mktemp("game")
    return [path.rename(folder / f"{NAMES[seat].lower()}.bandit-log")
            for seat, path in enumerate(net.write_logs(folder))]


def ann_s(game: list[Path], folder: Path, make: Callable[[Path, Path], object]) -> list[Path]:
    """Ann's log as `make(original, path)` writes it, given first, then the others'."""
    folder.mkdir(exist_ok=True)
    ann = folder / "ann.bandit-log"
    make(game[0], ann)
    return [ann, *game[1:]]


def resigned(change: Callable[[list[tuple[bytes, bytes]]], list[tuple[bytes, bytes]]], **end: object
             ) -> Callable[[Path, Path], object]:
    """A log's writer writing it again with its records through `change`, closed with `end`."""
    return lambda original, path: rewrite(original, path.parent, change, **end).rename(path)  # type: ignore[arg-type]


def no_done(messages: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    return [(body, sig) for body, sig in messages if decode_map(body).get("type") != "done"]


GAME_OVER = "Game over after round 3 (R1): Cy (32) and Di (38) reached the target of 25; the lowest total wins: Ann, with 12."


@pytest.mark.parametrize(("how", "make", "said"), [
    ("her 4 done dropped", resigned(no_done),
     "Ann's log (ann.bandit-log) fails its own audit: it stops after 163 of the 167 messages in Bo's log, where its "
     "end says \"the game ended\"; Bo's, Cy's and Di's logs hold every check and tell the same game, which Ann won."),
    ("an end naming Bo away", resigned(lambda m: m, why="Bo was away for more than 120 s", absent=1),
     "the 3 other logs hold every check and tell the same game, which Ann won; but Ann's log (ann.bandit-log) is "
     "false, signed as it is by Ann's key, which no honest program does."),
])
def test_s10_3_a_log_that_fails_given_first_does_not_hide_the_game_the_others_agree_on(
        game: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str,
        make: Callable[[Path, Path], object], said: str) -> None:
    """The game was told from the first log given, Ann's: no "Game over" line, and an
    overall line that named her log and nothing of the game the other 3 hold."""
    logs = ann_s(game, tmp_path / "ann", make)
    main(["audit", *map(str, logs)])
    lines = capsys.readouterr().out.splitlines()
    told = ("fails its own audit (see its own verdict with the logs compared below): the game is told from "
            "bo.bandit-log, the longest log that holds every check." if how == "her 4 done dropped" else
            "is false (see its own verdict with the logs compared below): the game is told from bo.bandit-log, the "
            "first readable log that is not damaged.")  # (its end no table writes, signed by her key: set aside)
    assert lines[0] == f"ann.bandit-log {told}", lines[0]
    assert lines[2] == f"Fairness log: {logs[1]}" and GAME_OVER in lines
    assert lines[-1] == f"Overall: NOT VERIFIED: {said}", lines[-1]


def test_s10_3_a_log_whose_header_was_changed_is_damaged_beside_the_others_not_of_another_game(
        game: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Ann plays to 99 in her header, signed again by her: its game id is not the others'.
    That read "these are not logs of one game"; her log is damaged, and the others agree."""
    def header(h):  # type: ignore[no-untyped-def]
        roster = decode_map(h.roster, tree=False)
        roster["rules"] = {**roster["rules"], "target": 99}
        return type(h)(encode(roster), h.signatures, h.seat, h.software)

    def same(messages):  # type: ignore[no-untyped-def]
        return messages

    same.header = header  # type: ignore[attr-defined]
    logs = ann_s(game, tmp_path / "ann", resigned(same))
    main(["audit", *map(str, logs)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == f"Fairness log: {logs[1]}" and GAME_OVER in lines
    assert any(line.startswith("Ann's log (ann.bandit-log) is damaged (see its verdict): its own audit finds the file "
                               "altered (§6.6: nobody is blamed), and it is not of game ") for line in lines), lines
    assert lines[-1] == ("Overall: NOT VERIFIED: the 3 undamaged logs hold every check and tell the same game, which "
                         "Ann won; but Ann's log (ann.bandit-log) is damaged, and a damaged log cannot be verified."), lines[-1]


def copied(extra: Callable[[FairnessLog, LogContents], None]) -> Callable[[Path, Path], None]:
    """A log's writer writing it again as it was, `extra` added before its end."""
    def make(original: Path, path: Path) -> None:
        contents = read_log(original)
        log = FairnessLog.create(path, contents.header, writer_of(contents.header))
        for side, body, sig in contents.records():
            log._write({"type": "log.side" if side else "log.msg", "v": 1, "body": body, "sig": sig})
        extra(log, contents)
        log.close(contents.ended or "the game ended")
    return make


def bo_id(contents: LogContents) -> bytes:
    return parse_canonical(contents.header.roster).members[1].peer_id


def forged_evidence(log: FairnessLog, contents: LogContents) -> None:
    body, sig = contents.messages[10]
    log._write({"type": "log.evidence", "v": 1, "section": "§7.2", "peer": bo_id(contents),
                "items": [{"body": body, "sig": bytes(64)}, {"body": body[:-1] + bytes([body[-1] ^ 1]), "sig": sig}]})


@pytest.mark.parametrize(("how", "make", "said"), [
    ("a note", copied(lambda log, c: log.note("Bo broke the rules: a false share", peer=bo_id(c), section="§8.5")),
     "Ann's log names Bo under §8.5 in a note: those words are Ann's alone, unsigned, and nothing in the logs "
     "supports them."),
    ("a note of a link fault", copied(lambda log, c: log.note("a message whose signature is not theirs",
                                                            peer=bo_id(c), section="§4.5")),
     "Ann's log names Bo under §4.5 in a note, unsigned: the logs can neither confirm nor refute it."),
    ("a note of a replay", copied(lambda log, c: log.note("a message of another game", peer=bo_id(c), section="§7.1")),
     "Ann's log names Bo under §7.1 in a note, unsigned: the logs can neither confirm nor refute it."),
    ("a note of a certificate refused", copied(lambda log, c: log.note("link to Bo closed: certificate does not parse",
                                                                      peer=bo_id(c), section="§3.1")),
     "Ann's log names Bo under §3.1 in a note, unsigned: the logs can neither confirm nor refute it."),
    ("an end", resigned(lambda m: m, why="Bo broke the rules (§8.5)"),
     "Ann's log ends saying \"Bo broke the rules (§8.5)\": those words are Ann's alone, and nothing in the logs "
     "supports them: every record checks and the game finished."),
    ("forged evidence", copied(forged_evidence),
     "Ann's log keeps evidence against Bo under §7.2 that does not verify as Bo's: it proves nothing."),
])
def test_s10_3_words_against_a_player_that_nothing_signed_supports_are_said_to_be_their_writer_s(
        game: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str,
        make: Callable[[Path, Path], object], said: str) -> None:
    """Ann accuses Bo in words of her own beside a FAIR game: a reader was left to weigh
    them against the verdict, and forged evidence was passed over without a word. A note
    of a fault no signed message can show (on a link, §3–§6: a certificate refused at
    TLS, a frame; a replay, §7.1) may be true: it was told as a lie all the same."""
    logs = ann_s(game, tmp_path / "ann", make)
    assert audit(logs[0]).ok
    assert main(["audit", "--brief", *map(str, logs)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == f"Overall: FAIR: all 4 logs hold every check and tell the same game. Winner: Ann. {said}", last
    assert not any("under" in line for line in comparison_report(compare([audit(p) for p in game])))


@pytest.mark.parametrize("text", [
    'Bo closed the link saying: "§8.5: you sent a false share" (its own words, in an error frame, §4.6)',
    "link to Bo closed: §8.5: the peer reported: you sent a false share (peer BOBO-1234)",  # (as older logs noted it)
])
def test_4_6_an_error_frame_noted_is_told_as_the_claim_of_its_sender_and_accuses_nobody(
        game: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    """Bo closed his link to Ann with an ``error`` frame naming §8.5: the audit said "Ann's
    log names Bo under §8.5 in a note: those words are Ann's alone…", when the words, and
    the accusation (of Ann), were Bo's. It tells the note as Bo's claim, and no accusation
    of Ann's."""
    section = "§4.6" if text.startswith("Bo") else "§8.5"
    logs = ann_s(game, tmp_path / "ann", copied(lambda log, c: log.note(text, peer=bo_id(c), section=section)))
    assert main(["audit", *map(str, logs)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "Overall: FAIR: all 4 logs hold every check and tell the same game. Winner: Ann.", out[-1]
    told = 'Bo closed the link saying: "§8.5: you sent a false share" (its own words, in an error frame, §4.6)'
    assert any(line.endswith(f": {told}") for line in out), out


def test_s10_3_one_log_given_twice_is_said_so_in_the_overall_line(
        game: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    """Bo's log given twice beside Ann's: 2 logs, not "all 3 logs"."""
    assert main(["audit", "--brief", str(game[0]), str(game[1]), str(game[1])]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "Overall: FAIR: both logs hold every check and tell the same game. Winner: Ann. The log of seat 2 (Bo), "
        "bo.bandit-log, is given twice."), "given twice"
    assert main(["audit", "--brief", str(game[1]), str(game[1])]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "Overall: FAIR: Bo's log (bo.bandit-log) holds every check. The log of seat 2 (Bo), bo.bandit-log, is given "
        "twice.")


def test_s10_3_logs_of_two_games_are_each_audited_with_their_own_game(
        game: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`audit logs/*.bandit-log` over two games: each game's logs are audited together, a
    report (and an Overall line) a game, then one line over all; status 0 only if every
    game verifies. `--json`: one object, a verdict a game."""
    other = TableNetwork(3, 124, rules=TableRules(target=25, skills_text=SMALL_DECK))
    other.run()
    stranger = Path(shutil.copy(other.write_logs(tmp_path)[0], tmp_path / "other.bandit-log"))
    assert main(["audit", "--brief", str(game[0]), str(stranger), str(game[1])]) == 0
    out = capsys.readouterr().out.splitlines()
    told_apart = [line for line in out if line.startswith(("Overall", "Verdict", "Game "))]
    assert told_apart == [  # (a game of one log ends with that log's verdict)
        f"Game {audit(game[0]).game_id.hex()[:16]}…, written by seat 1 (Ann)", "Verdict: FAIR. Every check holds. Winner: Ann.",
        "Overall: FAIR: both logs hold every check and tell the same game. Winner: Ann.",
        f"Game {audit(stranger).game_id.hex()[:16]}…, written by seat 1 (P0)", "Verdict: FAIR. Every check holds. Winner: P1.",
        "Overall, all 2 games: FAIR: each game's logs hold every check."], out
    assert out[-1] == told_apart[-1]
    assert main(["audit", "--json", str(game[0]), str(stranger), str(game[1])]) == 0
    told = json.loads(capsys.readouterr().out.splitlines()[-1])
    ours, theirs = audit(game[0]).game_id.hex(), audit(stranger).game_id.hex()
    assert told["ok"] and [g["game_id"] for g in told["games"]] == [ours, theirs]
    assert [g["ok"] for g in told["games"]] == [True, True] and len(told["games"][0]["logs"]) == 2
    torn = tmp_path / "torn.bandit-log"  # (its last frame cut: that game does not verify)
    torn.write_bytes(stranger.read_bytes()[:-7])
    assert main(["audit", "--brief", str(game[0]), str(game[1]), str(torn)]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == (f"Overall, 2 games: NOT VERIFIED: game {theirs[:16]}… does not verify (see above)."), last
    assert main(["audit", "--json", str(game[0]), str(game[1])]) == 0  # (one game: the object as ever)
    assert "games" not in json.loads(capsys.readouterr().out.splitlines()[-1])


def test_s10_2_the_report_counts_one_signed_message_in_the_singular(game: list[Path]) -> None:
    result = audit(game[0])
    assert f"Records: {result.records} signed messages checked." in list(game_report(result, brief=True))
    result.records = 1
    assert "Records: 1 signed message checked." in list(game_report(result, brief=True))


def test_s10_3_a_log_cut_under_an_end_naming_a_seat_away_is_set_aside_and_the_others_give_the_result(
        game: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Ann cuts her log in the last round and signs an end naming Bo away: alone it holds.
    Her `done` in the others' logs gives her away; that read "the logs do not tell the
    same game", told as hers, with neither her log nor the winner named; then "damaged,
    nobody is blamed", though her key signed that end over the cut log: it is false, hers
    (§10.2)."""
    logs = ann_s(game, tmp_path / "ann", resigned(lambda m: m[:155], why="Bo was away for more than 120 s", absent=1))
    assert audit(logs[0]).ok
    main(["audit", *map(str, logs)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == f"Fairness log: {logs[1]}" and GAME_OVER in lines
    assert any(line.startswith("Ann's log (ann.bandit-log) ends after 155 messages, closed early") for line in lines)
    assert lines[-1] == ("Overall: NOT VERIFIED: the 3 other logs hold every check and tell the same game, which "
                         "Ann won; but Ann's log (ann.bandit-log) is false, signed as it is by Ann's key, which no "
                         "honest program does."), lines[-1]
    assert any(line.startswith("Ann's log (ann.bandit-log) ends after 155 messages, closed early") and
               "so records were removed from its log, yet its log.end verifies under Ann's key, over every byte before "
               "it, so Ann's key signed this log as it is" in line and
               "the log is false, made so by Ann's program or with Ann's key. The other 3 logs " in line
               for line in lines), lines


def test_s10_3_json_first_violation_is_the_told_log_s_own_where_nothing_is_proven(
        game: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two logs cut before the end (never closed): no seat is proven, and the object's
    `first_violation` stays that of the log it is of (the longer: its game is told)."""
    cut = []
    for seat, keep in ((0, 60), (1, 90)):
        frames = [at for at, _ in split_frames(game[seat].read_bytes(), LOG_LIMITS)]
        cut.append(tmp_path / game[seat].name)
        cut[-1].write_bytes(game[seat].read_bytes()[:frames[keep]])
    assert main(["audit", "--json", *map(str, cut)]) == 1
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    own = audit(cut[1]).first_failure
    assert out["told"] == str(cut[1]) and own is not None
    plain = out["first_violation"].pop("plain")
    assert plain.startswith("The log stops before the game ended"), plain
    assert out["first_violation"] == {"record": own.record, "seat": None, "section": own.section, "what": own.what,
                                      "peer": None, "suspects": [], "signed_by": None}, out["first_violation"]


def test_s10_3_an_end_that_names_a_bot_player_on_a_fair_game_is_said_to_be_its_writer_s_word(tmp_path: Path) -> None:
    """A player's name may end in a bracket ("Bo (bot)"): an end naming it, with no rule
    cited, is found all the same."""
    net = TableNetwork(3, 104, rules=TableRules(target=25, skills_text=SMALL_DECK), names=("Ann", "Bo (bot)", "Cy"))
    net.run()
    logs = net.write_logs(tmp_path)
    ann = rewrite(logs[0], tmp_path, lambda m: m, why="Bo (bot) cheated")
    agreement = compare([audit(ann), audit(logs[1]), audit(logs[2])])
    assert agreement.verified
    assert list(comparison_report(agreement))[-1].endswith(
        " Ann's log ends saying \"Bo (bot) cheated\": those words are Ann's alone, and nothing in the logs supports "
        "them: every record checks and the game finished.")


@pytest.mark.parametrize(("cheat", "plain"), [
    ("wrong-share", "P2 (seat 3) published a share of a card whose proof does not hold: a false share, which could "
                    "show a wrong card [§8.5, record 12]."),
    ("side-equivocation", "P2 (seat 3) signed two different messages as its first share message (a share message "
                          "carries a player's shares of cards being revealed, and travels beside the agreed order): "
                          "P0's log (seat0.bandit-log) in the record that starts at byte "),
])
def test_s10_3_json_first_violation_proven_by_the_logs_has_its_plain_sentence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], cheat: str, plain: str) -> None:
    """§10.2 promises `plain` in every `first_violation`: the proof the logs hold together
    had none (the first holder's sentence; for two signed messages no log holds alone,
    the parting's)."""
    logs = staged(cheat, tmp_path)
    main(["audit", "--json", *map(str, logs)])
    violation = json.loads(capsys.readouterr().out.splitlines()[-1])["first_violation"]
    assert "holders" in violation and violation["plain"].startswith(plain), violation
    assert violation["plain"].endswith("]."), violation


def test_s10_3_the_proof_against_a_seat_is_found_once_however_often_it_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The overall line, the summary, the log the story is told from and `--json` each
    read `Agreement.proof`, which was found anew at every read: it is found once, and
    every read gets that one proof."""
    agreement = compare([audit(p) for p in staged("commitment", tmp_path)])
    found: list[object] = []
    real = agreement_module.told_with
    monkeypatch.setattr(agreement_module, "told_with", lambda *args: found.append(args) or real(*args))
    first = agreement.proof
    lines = list(comparison_report(agreement))
    out = agreement_verdict(agreement)
    assert agreement.told is not None and agreement.proof is first and len(found) == 1
    assert first is not None and first.seat == CHEATER and lines[-1].startswith("Overall: NOT VERIFIED: P2 (seat 3) ")
    assert out["first_violation"]["seat"] == CHEATER  # type: ignore[index]
