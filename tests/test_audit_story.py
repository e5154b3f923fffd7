"""§10.2: the audit's story of a game a cheat stopped, on the honest players' real logs
(`tests.cheat_runs` stages each cheat): a void round is told as void, with the challenge
or the failed opening that made it so, at its record; what stands of the score is said in
a sentence, and `--json` says the same; a verdict starts with a plain sentence, the one
the table's own note and screen gave (§11.2); a violation before a round's deal is told
under that round; a fault on a link (§4) is told by whose word it stopped the table; the
other logs' notes of one event are told once."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from p2p.audit import audit
from p2p.log import read_log
from p2p.plain import CHECKS, SECTIONS, broke, verdict
from p2p.report import game_report
from tests.cheat_runs import MEMORY, run_live_frame, run_table


# The tests share what a module fixture plays: one worker plays it and runs them all
pytestmark = pytest.mark.xdist_group("audit_story")


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The folder of each staged cheat's logs (seat0, seat1: honest; seat2: the cheat's)."""
    root = tmp_path_factory.mktemp("cheats")
    for name in ("commitment", "false-challenge", "duplicate-card", "withheld-done", "replay-earlier-round",
                 "other-digest", "withheld-opening", "bad-proof"):
        make, sections, policy = MEMORY[name]
        _, judged = run_table(make(), sections, policy, root / name)
        assert judged.ok, judged.explain()
    return {p.name: p for p in root.iterdir()}


def report(log: Path, *others: Path) -> list[str]:
    return list(game_report(audit(log), others=[audit(p) for p in (log, *others)] if others else ()))


def round_lines(lines: list[str], number: int) -> list[str]:
    start = lines.index(f"Round {number}")
    return lines[start + 1:lines.index("", start)]


def test_s8_7_a_round_played_out_whose_opening_fails_is_told_void_not_cut_short(staged: dict[str, Path]) -> None:
    """Round 1 was played to its end and P2's opening does not open its commitment: the
    round is void (not "cut short … never shown"), its scores do not count, and the line
    of record 42 tells who cheated, in plain words, as the verdict does."""
    lines = report(staged["commitment"] / "seat0.bandit-log")
    told = round_lines(lines, 1)
    assert re.fullmatch(r"  Round 1 was played to its end \(record \d+\), but its scores do not count: its shuffles were "
                        r"shown, and record 42 shows who cheated \(told there\)\. A card .* stays unknown otherwise\.",
                        told[0]), told[0]
    assert not any("cut short" in line or "never shown" in line for line in lines)
    assert told[-1] == ("  turn 11, record 42: P2 (seat 3) showed a shuffle other than the one they had committed to: "
                        "they could have arranged the deck [§8.7, record 42]. The game stops here (§9.9).")
    assert "Round 1 does not count; the game has no winner." in lines


def test_s9_11_a_round_whose_opening_was_withheld_is_told_so(staged: dict[str, Path]) -> None:
    """P2 never showed how it shuffled after round 1 (its opening): the round's scores do
    not count because not every seat had shown it when the game stopped (not because the
    log stops), and the verdict says in a player's words that P2 withheld it."""
    lines = report(staged["withheld-opening"] / "seat0.bandit-log")
    assert round_lines(lines, 1)[0].startswith(
        "  Round 1 was played to its end (record 39), but its scores do not count: not every seat had shown how it "
        "shuffled when the game stopped (§9.7). ")
    assert lines[-1].startswith("Verdict: NOT VERIFIED. P2 (seat 3) withheld how they shuffled, which every seat shows "
                                "at the round's end, so the table could not go on [§9.7, record 43]. First violation: "
                                ), lines[-1]


@pytest.mark.parametrize("name, challenger, at, opened", [
    ("false-challenge", "P2", 16, "every seat showed how it shuffled, and every card checks out, so each is named, and "
                                  "record 20"),
])
def test_s9_10_a_challenge_is_told_where_it_happened_and_voids_its_round(
        staged: dict[str, Path], name: str, challenger: str, at: int, opened: str) -> None:
    """The §9.10 challenge is told at its record, before the moves it made void; the round
    is told void by that challenge, its shuffles shown, never "cut short … never shown"."""
    lines = report(staged[name] / "seat0.bandit-log")
    told = round_lines(lines, 1)
    assert told[0].startswith(f"  Round 1 is void (§9.10): {challenger} challenged it at record {at}: {opened} "
                              "shows who cheated (told there). Its scores do not count."), told[0]
    challenge = next(i for i, line in enumerate(told) if f"record {at}: {challenger} challenged round 1" in line)
    void = next(i for i, line in enumerate(told) if "did not count (§9.10: round 1 is void)" in line)
    assert challenge < void
    assert not any("cut short" in line or "never shown" in line for line in lines)


def test_s9_10_a_void_round_whose_openings_hold_names_every_card(staged: dict[str, Path]) -> None:
    """P2's challenge was false: every shuffle was shown and every card checks out, so the
    cards only one player saw are named from the openings, none left unknown."""
    lines = report(staged["false-challenge"] / "seat0.bandit-log")
    assert "  before the first turn: (private) P0 saw their bottom cards: a 16 [card 20] and a -2 [card 25]." in lines
    assert not any("unknown to the audit" in line for line in lines)


def test_s8_7_the_story_says_how_each_seat_shuffled_was_shown_never_that_it_opened(staged: dict[str, Path]) -> None:
    """A player does not know what opening a shuffle means (§8.7): the report says that a
    seat showed how it shuffled, that a round's shuffles were shown and checked or not,
    and that a card nobody can name is unknown, never "opened" or "unopened"; only the
    technical account after the plain words, and the words a log's writer wrote (quoted),
    keep the protocol's term."""
    for name, folder in staged.items():
        for line in report(folder / "seat0.bandit-log"):
            if line.startswith("Fairness log: "):  # (the file's name)
                continue
            said = re.sub(r'"[^"]*"', "", line.split(" First violation: ")[0].split(" In detail: ")[0])
            assert not re.search(r"(?i)\b(?:un)?open(?:ed|ing|ings|s)?\b", said), (name, line)


def test_s10_2_the_record_a_verdict_names_is_on_a_line_of_the_story(staged: dict[str, Path]) -> None:
    """"record 47" in a verdict can be found in the story above it."""
    for name in ("commitment", "false-challenge", "replay-earlier-round", "duplicate-card", "bad-proof"):
        lines = report(staged[name] / "seat0.bandit-log")
        record = audit(staged[name] / "seat0.bandit-log").first_failure.record  # type: ignore[union-attr]
        assert record is not None
        story = lines[:lines.index(next(line for line in lines if line.startswith("The game stopped")))]
        assert any(f", record {record + 1}: " in line for line in story), (name, record)


@pytest.mark.parametrize("name, stands", [
    ("withheld-done", "The totals after round 2 stand (P0 4, P1 -2, P2 38); the game has no winner."),
    ("replay-earlier-round", "Round 2 does not count; the totals after round 1 stand (P0 -2, P1 -14, P2 8); the game "
                             "has no winner."),
    ("commitment", "Round 1 does not count; the game has no winner."),
])
def test_s10_2_what_stands_of_a_stopped_game_is_said_alike_in_words_and_json(
        staged: dict[str, Path], name: str, stands: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A game stopped by a cheat has no winner, even one stopped after its last round
    (P2 withheld its end of game): the report says what stands, and `--json` names no
    winner and says the same sentence."""
    log = staged[name] / "seat0.bandit-log"
    assert stands in report(log)
    assert main(["audit", "--json", str(log)]) == 1
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["winners"] == [] and out["finished"] is False and out["stands"] == stands


@pytest.mark.parametrize("name, record, plain", [
    ("duplicate-card", 12, "P2 (seat 3) sent a shuffled deck they could not prove holds exactly the cards they were "
                           "given (a card changed, copied or invented) [§8.4, record 12]."),
    ("bad-proof", 2, "P2 (seat 3) gave a proof of their deck key that does not hold [§8.3, record 2]."),
])
def test_s9_9_a_violation_before_the_first_deal_is_told_under_round_1_as_one_in_play_is(
        staged: dict[str, Path], name: str, record: int, plain: str, capsys: pytest.CaptureFixture[str]) -> None:
    """P2's forged shuffle step (stopped on receipt, §8.4) or false key proof (§8.3) stops
    the game before round 1 is dealt: the story had no line for it, only the line on how
    the game ended, and `stands` said no round was played. Round 1 is told, never dealt,
    with the violation at its record in the verdict's plain words, as in play; `--json`
    says what stands as for a violation in play."""
    log = staged[name] / "seat0.bandit-log"
    lines = report(log)
    assert round_lines(lines, 1) == [
        "  Round 1 was never dealt: the game stopped while its deck was being made ready, so no card of it was seen, "
        "and it does not count.",
        f"  before the deal, record {record}: {plain} The game stops here (§9.9)."], lines
    assert "Round 1 does not count; the game has no winner." in lines
    assert main(["audit", "--json", str(log)]) == 1
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["stands"] == "Round 1 does not count; the game has no winner."
    assert out["first_violation"]["record"] == record - 1 and out["first_violation"]["plain"] == plain


def test_s9_9_a_violation_before_a_later_round_s_deal_is_told_under_that_round(tmp_path: Path) -> None:
    """P2 withholds its shuffle step of round 2 (§9.3, §9.11) after round 1 counted: the
    stall was told nowhere in the story (round 1's ended with its scores), and what stands
    did not say round 2 does not count."""
    from p2p.policy import Response
    from tests.malicious import CheatingTable, Withhold

    class SecondShuffle(Withhold):
        def content(self, net: CheatingTable, payload: dict[str, Any]) -> dict[str, Any] | None:
            return super().content(net, payload) if payload.get("round") == 2 else payload

    _, judged = run_table(SecondShuffle("shuffle", "shuffle step of round 2"), ("§9.3",), Response.ABORT, tmp_path)
    assert judged.ok, judged.explain()
    lines = report(tmp_path / "seat0.bandit-log")
    assert round_lines(lines, 1)[-1].startswith("  Every seat showed how it shuffled, and each shuffle was re-run")
    told = round_lines(lines, 2)
    assert told[0].startswith("  Round 2 was never dealt: ") and len(told) == 2, told
    assert re.fullmatch(r"  before the deal, record \d+: P2 \(seat 3\) withheld their turn to shuffle the deck, so the "
                        r"table could not go on \[§9\.3, record \d+\]\. The game stops here \(§9\.9\)\.",
                        told[1]), told[1]
    assert any(line.startswith("Round 2 does not count; the totals after round 1 stand (") for line in lines), lines


def test_s10_2_a_verdict_starts_in_plain_words_before_its_check(staged: dict[str, Path]) -> None:
    """The verdict says who did what in a player's words, the rule and record in brackets;
    the check's own name and account come after it, for experts."""
    verdict = report(staged["duplicate-card"] / "seat0.bandit-log")[-1]
    plain, detail = verdict.split(" First violation: ")
    assert plain == ("Verdict: NOT VERIFIED. P2 (seat 3) sent a shuffled deck they could not prove holds exactly the "
                     "cards they were given (a card changed, copied or invented) [§8.4, record 12].")
    assert detail.startswith("record 12 by P2 (seat 3): §8.4: shuffle-proof: ")
    assert not re.search(r"[a-z]+-[a-z]+:", plain)


def test_s8_every_check_of_the_card_protocol_has_plain_words() -> None:
    """Each check the card protocol can fail a peer's message on (§8) is in the one table
    the report tells verdicts by, so no verdict starts with a check's own name."""
    raised = set()
    for source in (Path(__file__).parent.parent / "p2p" / "deck").glob("*.py"):
        raised |= set(re.findall(r"(?:ProtocolViolation|InvalidProof|InvalidPoint|CommitmentMismatch|ShuffleMismatch|"
                                 r"CardMismatch|MalformedMessage)\(\s*[^,()]+,\s*\"([a-z-]+)\"", source.read_text()))
    assert {"chaum-pedersen", "not-a-reencryption", "shuffle-commitment", "wrong-kind", "seal", "schnorr",
            "not-owed"} <= raised
    assert raised - CHECKS.keys() == set()


def test_s9_7_a_state_that_differs_is_told_against_the_agreed_order_not_ours(staged: dict[str, Path]) -> None:
    """An audit has no state of its own: P2's state at the round's end differs from the
    one the agreed order gives, not "from ours"."""
    lines = report(staged["other-digest"] / "seat0.bandit-log")
    assert lines[-1].startswith("Verdict: NOT VERIFIED. P2 (seat 3) ended the round in another game state than the "
                                "agreed order gives [§9.7, record 42]."), lines[-1]
    assert lines[-1].endswith("its engine state at the end of the round differs from the one the agreed order gives")
    assert not any("ours" in line for line in lines)


@pytest.mark.parametrize("name, section", [("forged-signature", "§4.5"), ("garbled-frame", "§4.3")])
async def test_s4_a_fault_on_a_link_is_told_by_whose_word_it_stopped_the_table(
        name: str, section: str, tmp_path: Path) -> None:
    """Bot 2's forged or garbled frame stopped the table: an honest log's verdict names
    Bot 2 and the rule by its writer's word (its note, and its signed log.end, which the
    verdict calls the reason its program signed as it closed the log), and says such a
    fault leaves no signed proof in the log, so nobody is blamed."""
    judged = await run_live_frame(name, tmp_path)
    assert judged.ok, judged.explain()
    log = tmp_path / "seat1.bandit-log"
    result = audit(log)
    culprit = next(m for m in result.roster.members if m.name == "Bot 2")  # type: ignore[union-attr]
    # (§11.2: the table's own line and note said it in other words than the audit's table of them)
    told = f"Bot 2 {SECTIONS[section]} [{section}]"
    assert judged.named.startswith(f"{told}; the game stops. In detail: {section}: "), judged.named
    assert any(note.text.startswith(f"Bot 2 (seat {culprit.seat + 1}) {SECTIONS[section]} [{section}]. In detail: ")
               for note in read_log(log).notes), read_log(log).notes
    assert result.first_failure is not None and result.first_failure.seat is None
    lines = report(log)
    assert lines[-1].startswith(f"Verdict: NOT VERIFIED. The table stopped because of Bot 2 (seat {culprit.seat + 1}) "
                                f"under {section}: "), lines[-1]
    assert (", by the word of the log's writer, Ann (a note in its log, and the reason its program signed as it "
            "closed the log). Such a fault happens on a link") in lines[-1], lines[-1]
    assert "so the log holds no signed proof of it and blames nobody [§10.2]." in lines[-1]
    assert (f"The log stops before the end of the game: Ann's table stopped because of Bot 2 under {section}, by its "
            "writer's word: the verdict below says more.") in lines
    assert not any(re.search(r":\s+\(|:$", line) for line in lines if "messages: " in line), lines  # (no empty reason)


@pytest.mark.parametrize("name", ["commitment", "false-challenge", "duplicate-card", "withheld-done",
                                  "replay-earlier-round", "other-digest", "withheld-opening", "bad-proof"])
def test_s11_2_the_table_notes_a_violation_in_the_plain_words_of_the_audit_s_verdict(
        staged: dict[str, Path], name: str) -> None:
    """Each honest seat that stopped P2 noted it in words of its own ("P2 (seat 3): §8.4:
    shuffle-proof: …"), not the plain sentence the audit's verdict gives for it: the note
    now starts with that sentence, the rule in brackets, and gives the check's account after."""
    for log in (staged[name] / "seat0.bandit-log", staged[name] / "seat1.bandit-log"):
        result = audit(log)
        plain = verdict(result)
        (note,) = [n for n in read_log(log).notes if n.text.endswith("(the game stops)")]
        said, _, detail = note.text.partition(" In detail: ")
        assert said.split(" [")[0] == plain.split(" [")[0] and said.endswith(f" [{note.section}]."), (said, plain)
        assert detail.startswith(f"{note.section}: ") and result.first_failure is not None
        assert result.first_failure.section == note.section


@pytest.mark.parametrize("section, what, words", [
    ("§9.2", "a second key for this game", "gave a second deck key"),
    ("§9.4", "a share for need 7, which is not waiting for shares", "sent a share of a card that was not being "
                                                                   "turned up"),
    ("§9.4", "'snap' is not a side message of the table", "sent beside the agreed order a message that is not a "
                                                          "share message, the only kind that travels there"),
    ("§9.3", "a shuffle step for a chain the table did not start", "sent a shuffle step for a shuffle the table did "
                                                                  "not start"),
    ("§9.3", "seat 1 stopped waiting for seat 2's shuffle step (§9.11), and at a table of two nothing tells which of "
             "them is right", "withheld their turn to shuffle the deck, or said falsely that the other had, so the "
                              "table could not go on"),
    ("§9", "'x' is not a table message", "sent a message that is not one of the table's"),
    ("§4.2", "empty frame (length 0)", "sent an empty frame"),
    ("§7.2", "seq 90: 64 of its messages already wait for its seq 20", "sent more of their messages ahead of one "
                                                                       "still missing than a table keeps"),
    ("§7.2", "seq 9: with it, 8656296 bytes of its messages would already wait here, more than the 8388608 honest "
             "play can need", "sent more of their messages than a table keeps waiting for its turn to take them"),
    ("§7.1", "message is for another game", "sent a message of another game"),
    ("§7.1", "heads must list the 2 other seats", "sent a message whose header is not of the form the order needs"),
    ("§7.1", "lamport must be an integer in 0..2^62", "sent a message whose header is not of the form the order needs"),
    ("R7", "the engine refused reveal 5: no card", None),
])
def test_s11_2_a_rule_broken_in_several_ways_is_told_in_the_words_of_its_way(
        section: str, what: str, words: str | None) -> None:
    """The table of plain words, now on the table's screen too, told each of these by its
    rule alone, and wrongly ("did not give their deck key" for a second key, "withheld
    their share" for a share nobody waited for, "sent a message that does not belong to
    the round under way" for a shuffle step withheld at a table of two); where it has no
    words for a rule, it says so (None), and the screen keeps the table's own account."""
    assert broke(section, what) == words


def test_s10_3_an_event_the_other_logs_note_alike_is_told_once(staged: dict[str, Path]) -> None:
    """Each log notes the same refusals and halt: told once each, with the logs noting them."""
    folder = staged["duplicate-card"]
    lines = report(folder / "seat1.bandit-log", folder / "seat0.bandit-log", folder / "seat2.bandit-log")
    notes = [line for line in lines if "§9.10: round 1 is void (refused" in line or "(the game stops)" in line]
    events = [re.sub(r"^.*messages in the agreed order: ", "", line).split(" (also noted by")[0] for line in notes]
    assert len(events) == len(set(events)), notes
    assert any("(also noted by P0's log)" in line for line in notes), notes


def test_s10_2_a_finished_game_whose_log_was_changed_after_it_has_no_winner_by_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The replay reaches the game's end, but the log's end no longer verifies: the game
    over line is told as the log's claim (it said "the lowest total wins: P0" above "the
    game has no winner"), and what stands says none of the score can be held to, as
    `--json` does, with no winner."""
    from p2p.roster import TableRules
    from tests.tablesim import TableNetwork
    from tests.test_table_games import SMALL_DECK

    net = TableNetwork(3, 7, rules=TableRules(target=25, skills_text=SMALL_DECK))
    net.run()
    log = net.write_logs(tmp_path)[0]
    data = bytearray(log.read_bytes())
    data[-3] ^= 1  # (in the log.end's signature)
    log.write_bytes(bytes(data))
    result = audit(log)
    assert result.altered and result.machine is not None and result.machine.finished
    altered = "The log was changed or damaged, so none of its score can be held to; the game has no winner."
    lines = list(game_report(result))
    assert altered in lines
    over = lines[lines.index(altered) - 1]
    assert over.startswith("As this log tells it, the game was over after round "), over
    assert not any(line.startswith("Game over") for line in lines)
    assert main(["audit", "--json", str(log)]) == 1
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["winners"] == [] and out["stands"] == altered


def test_s10_2_a_finished_log_cut_before_its_end_names_no_winner(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Cut before its `log.end`, a finished game's log fails §10.1: `--json` said
    `winners: ["P0"]` and the report "the lowest total wins", though only a log that holds
    as a whole names a winner (§10.2)."""
    from p2p.log import LOG_LIMITS
    from p2p.roster import TableRules
    from p2p.wire import split_frames
    from tests.tablesim import TableNetwork
    from tests.test_table_games import SMALL_DECK

    net = TableNetwork(3, 7, rules=TableRules(target=25, skills_text=SMALL_DECK))
    net.run()
    log = net.write_logs(tmp_path)[0]
    data = log.read_bytes()
    log.write_bytes(data[:[at for at, _ in split_frames(data, LOG_LIMITS)][-1]])
    result = audit(log)
    assert result.finished and not result.ok and result.winners == []
    lines = list(game_report(result))
    assert any(line.startswith("As this log tells it, the game was over after round ") for line in lines), lines
    assert main(["audit", "--json", str(log)]) == 1
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["winners"] == []
