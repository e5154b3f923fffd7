"""What `play`, `host` and `join` print when a game ends, and their exit status."""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

import pytest
import trio
import trio.testing

from cli.game import in_seat_order, report
from p2p.peer import GameSummary


def summary(*, finished: bool, why: str, left: bool = False, rounds: int = 2) -> GameSummary:
    return GameSummary(bytes(32), ("Ana", "Bo"), rounds, {"Ana": 12, "Bo": 40}, ["Ana"] if finished else [],
                       Path("seat0.bandit-log"), finished, why, left=left)


def test_a_finished_game_prints_the_standings_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert report(summary(finished=True, why="the game ended"), argparse.Namespace(json=False)) == 0
    out = capsys.readouterr().out
    assert "Game over after 2 rounds" in out and "Ana" in out and "winner" in out


def test_R1_the_standings_line_up_names_of_wide_characters(capsys: pytest.CaptureFixture[str]) -> None:
    """A name with an emoji or a CJK character takes more terminal cells than characters:
    the totals still stand in one column (they stood one cell right per wide character)."""
    from cli.tui.canvas import text_width

    names = ("Zoë🎲", "山田", "bo")
    ended = GameSummary(bytes(32), names, 2, dict(zip(names, (50, 31, 12))), ["bo"], Path("seat0.bandit-log"), True,
                        "the game ended")
    assert report(ended, argparse.Namespace(json=False)) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  ") and line.split()[0] in names]
    assert len(rows) == 3 and len({text_width(row.split(" winner")[0].rstrip()) for row in rows}) == 1, rows


def test_leaving_the_table_on_purpose_is_not_a_failure(capsys: pytest.CaptureFixture[str]) -> None:
    assert report(summary(finished=False, why="you left the table", left=True), argparse.Namespace(json=False)) == 0
    printed = capsys.readouterr()
    assert "You left the table after 2 rounds." in printed.out and printed.err == ""
    assert report(summary(finished=False, why="you left the table", left=True, rounds=0),
                  argparse.Namespace(json=False)) == 0
    assert "You left the table before the first round ended." in capsys.readouterr().out  # (not "after 0 rounds")


def test_s9_8_a_game_another_player_left_ends_there_and_is_not_a_failure(capsys: pytest.CaptureFixture[str]) -> None:
    """Another player's goodbye ends the game at the same record in every log (§9.8): as
    with this seat's own leaving, nothing failed; the JSON line names who left."""
    ended = GameSummary(bytes(32), ("Ana", "bo"), 1, {"Ana": 12, "bo": 40}, [], Path("seat0.bandit-log"), False,
                        "bo left the table (it was stopped)", departed="bo")
    assert report(ended, argparse.Namespace(json=False)) == 0
    printed = capsys.readouterr()  # (a name as its player wrote it, even at the start of the line)
    assert printed.out.startswith("bo left the table (it was stopped); the game ended after 1 round.\n") and not printed.err
    assert report(ended, argparse.Namespace(json=True)) == 0
    line = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert line["departed"] == "bo" and line["left"] is False and line["finished"] is False


def test_a_game_that_stopped_says_why_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    """The line says the game ended and why, as the final screen does ("Game ended: …"):
    a reason that itself says "stopped" reads it once."""
    stopped = summary(finished=False, why="Bo is gone (no word for 30 s)")
    assert report(stopped, argparse.Namespace(json=False)) == 1
    assert "bandit-lan: the game ended: Bo is gone (no word for 30 s)\n" in capsys.readouterr().err
    why = ("your program was stopped for 33 s, longer than the table's grace period (15 s): the others have "
           "ended the game, naming you away")
    assert report(summary(finished=False, why=why), argparse.Namespace(json=False)) == 1
    assert f"bandit-lan: the game ended: {why}\n" in capsys.readouterr().err


def test_the_json_line_says_whether_this_seat_left(capsys: pytest.CaptureFixture[str]) -> None:
    assert report(summary(finished=False, why="you left the table", left=True), argparse.Namespace(json=True)) == 0
    line = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert line["left"] is True and line["finished"] is False and line["totals"] == {"Ana": 12, "Bo": 40}


def test_s10_3_a_table_of_bots_says_how_to_audit_every_seat_s_log_together(capsys: pytest.CaptureFixture[str],
                                                                          tmp_path: Path) -> None:
    folder = tmp_path / "my logs"
    logs = [folder / f"0a1b2c3d4e5f-seat{n}.bandit-log" for n in (1, 2, 3)]
    done = GameSummary(bytes(32), ("Ana", "Bo", "Cy"), 2, {"Ana": 12, "Bo": 40, "Cy": 50}, ["Ana"], logs[0], True,
                       "the game ended")
    assert report(done, argparse.Namespace(json=False), logs) == 0
    out = capsys.readouterr().out
    assert f"(check it with: bandit-lan audit '{logs[0]}')" in out  # (a path with a space, quoted to be pasted)
    assert f"Every seat's log is here; check them together: bandit-lan audit '{folder}'/0a1b2c3d4e5f-seat*" in out
    assert report(done, argparse.Namespace(json=False), logs[:2]) == 0  # (a person joined: their log is theirs)
    out = capsys.readouterr().out
    assert "Every seat's" not in out and "Your bots' logs are here too; check them together with yours" in out
    assert report(done, argparse.Namespace(json=False), [logs[0], tmp_path / "elsewhere.bandit-log"]) == 0
    assert f"bandit-lan audit '{logs[0]}' {tmp_path / 'elsewhere.bandit-log'}" in capsys.readouterr().out
    assert report(done, argparse.Namespace(json=False)) == 0  # one log: nothing to compare
    assert "together" not in capsys.readouterr().out


def test_s10_3_the_bots_logs_are_known_where_they_will_be_as_the_game_begins(tmp_path: Path) -> None:
    """The game-end screen of `play` and `host --bots` names the bots' logs beside the
    seat's own (`play_seat`'s `beside`): each bot writes `<game>-seat<N>.bandit-log` in the
    folder it was given; a person's seat (here Cy's) keeps its log on its own machine."""
    from types import SimpleNamespace

    from cli.game import bot_logs_beside, log_path_for

    game = bytes(range(32))
    logs = bot_logs_beside(tmp_path / "000102030405-seat1.bandit-log", game, ("Ana", "Bo (bot)", "Cy", "Ada (bot)"))
    assert logs == [tmp_path / f"000102030405-seat{n}.bandit-log" for n in (2, 4)]
    seat = SimpleNamespace(game_id=game, seat=1)
    assert logs[0] == log_path_for(seat, None, None, tmp_path)  # (as the bot in seat 2 names its log)


async def test_s9_8_waiting_for_bots_that_cannot_end_their_game_is_said_and_bounded(
        autojump_clock: trio.testing.MockClock, capsys: pytest.CaptureFixture[str]) -> None:
    """After our game, the bots get `BOT_WAIT` seconds to end theirs (a leave that a seat
    away cannot let be ordered keeps them waiting): past a moment the player is told what
    the blank terminal waits for, and after the limit each bot still running is named."""
    from cli.bots import BOT_WAIT, BotSeats

    bots = BotSeats(["Ada"], done=[None])
    start = trio.current_time()
    assert await bots.logs_after(Path("own.bandit-log")) == [Path("own.bandit-log")]
    assert trio.current_time() - start == pytest.approx(BOT_WAIT)
    err = capsys.readouterr().err
    assert "waiting for the bots to end their game (at most 29 s more)" in err
    assert "bot Ada did not finish in time" in err


async def test_s6_a_lobby_s_own_error_reaches_the_command_as_itself_beside_its_bots() -> None:
    """`seat_with_bots` runs the lobby beside the watch on the bots: an error of the lobby
    (a host's `ProtocolError`, an `OSError`) comes out as itself, which the command
    explains, not wrapped in a group that would end it with a traceback."""
    from cli.bots import BotSeats, seat_with_bots
    from p2p.errors import ProtocolError

    async def failing_lobby() -> None:
        raise ProtocolError("§6.2", "the front door broke")

    with pytest.raises(ProtocolError, match="the front door broke"):
        await seat_with_bots(BotSeats(["Ada"], done=[None]), failing_lobby)

    async def lobby() -> str:
        return "seated"

    bots = BotSeats(["Ada"], done=[None])
    assert await seat_with_bots(bots, lobby) == "seated"
    bots.ended(0, subprocess.CompletedProcess(["bot"], 1, b"", b"too late"))  # seated: its game's end, not a loss
    assert bots.lost.statistics().current_buffer_used == 0


@pytest.mark.parametrize("command", ["play", "host", "join"])
def test_every_game_command_s_help_gives_its_exit_statuses(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "exit status: 0 when the game ended where every seat's log ends" in help_text
    assert all(f"; {code} " in help_text for code in (1, 2, 130))


def test_s6_6_the_headless_lobby_lines_up_names_of_wide_characters(tmp_path: Path) -> None:
    """The seats a headless host or joiner prints: fingerprints in one column whatever
    terminal cells the names take (a CJK name took two cells a character)."""
    from cli.lobby_common import roster_lines
    from cli.tui.canvas import text_width
    from p2p.roster import Member, Roster, TableRules
    from transport_support import make_identities

    ids = make_identities(tmp_path, 3)
    names = ("山田太郎", "Zoë🎲", "bo")
    members = tuple(Member(i, name, ident.certificate, bytes([i]) * 32) for i, (name, ident) in enumerate(zip(names, ids)))
    lines = roster_lines(Roster("Kitchen", bytes(32), 3, members, rules=TableRules()), ids[1].peer_id)
    columns = {text_width(line.split(ident.certificate.short)[0]) for line, ident in zip(lines, ids)}
    assert len(lines) == 3 and len(columns) == 1, lines


def test_R1_a_game_not_played_out_gives_the_totals_of_the_rounds_that_count(capsys: pytest.CaptureFixture[str]) -> None:
    """A game ended early (a player left, or was away too long) names no winner, but the
    line-mode player still reads the totals of its rounds that count, not only in the
    scrollback; a game ended before any round counted has none to give."""
    for ended in (summary(finished=False, why="you left the table", left=True),
                  GameSummary(bytes(32), ("Ana", "Bo"), 2, {"Ana": 12, "Bo": 40}, [], Path("seat0.bandit-log"), False,
                              "Bo left the table (it was stopped)", departed="Bo"),
                  summary(finished=False, why="Bo did not come back within 10 s")):
        report(ended, argparse.Namespace(json=False))
        lines = capsys.readouterr().out.splitlines()
        at = lines.index("Totals of the 2 rounds that count (the game was not played out, so nobody won):")
        assert lines[at + 1].split() == ["Ana", "12"] and lines[at + 2].split() == ["Bo", "40"], lines
    report(summary(finished=False, why="you left the table", left=True, rounds=0), argparse.Namespace(json=False))
    assert "Totals" not in capsys.readouterr().out
    report(summary(finished=False, why="you left the table", left=True, rounds=1), argparse.Namespace(json=False))
    assert "Totals of the one round that counts (the game was not played out, so nobody won):" in (
        capsys.readouterr().out.splitlines())  # (not "the 1 round that count")


def test_join_help_tells_bot_from_headless() -> None:
    """`--bot` and `--headless` both play without the full screen: the help says which
    plays at a person's pace and which as fast as it can."""
    from cli.main import build_parser

    parser = build_parser()
    join = parser._subparsers._group_actions[0].choices["join"]  # type: ignore[union-attr]
    text = " ".join(join.format_help().split())
    assert "the normal bot plays this seat at a person's pace" in text and "as fast as it can" in text, text


async def test_s9_8_a_line_mode_seat_prints_its_own_cards_as_the_screen_shows_them_and_the_round_its_game_cut_short(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without the full screen a seat's output held no line on its own cards: only round
    ends and what went wrong. It prints what the table log tells of them, in its words
    ("You drew and discarded …"), with the faces the screen shows on the cards (its bottom
    cards, R4.3; its drawn card, once), and not the other players' moves on their own cards; a
    game left in a round under way ends with that round cut short, its shuffles never
    opened (§9.7, §9.8), as the full screen's game end says."""
    import re

    from cli.game import print_line, tell_cut_short
    from engine import Discard, Draw, Ready, SkipPower, legal_intents
    from engine.narrate import cut_short
    from tests.live_support import running, seat_live_table, until

    stack, peers = await seat_live_table(tmp_path, 2, on_line=print_line)  # (the first: moves when told)
    me = peers[0]

    async def play(intent) -> None:  # type: ignore[no-untyped-def]
        await until(lambda: intent in legal_intents(me.view()), me)
        me.submit(intent)

    async with stack:
        with trio.fail_after(60):
            async with running(peers):
                await play(Ready(me.me))
                await play(Draw(me.me))
                await play(Discard(me.me))
                await until(lambda: me.view().turn_seat != me.me or SkipPower(me.me) in legal_intents(me.view()), me)
                if SkipPower(me.me) in legal_intents(me.view()):
                    me.submit(SkipPower(me.me))
                await me.leave()  # (in round 1: its last turn waits for this seat, R8)
    tell_cut_short(me)
    printed = capsys.readouterr().out.splitlines()
    assert printed == [f"  {line.text}" for line in me.lines
                       if line.kind in ("round", "table", "warning", "error") or line.yours]
    card = r"an? -?\d+|an? \w+ Bandit \([+-]\d+\)"
    assert any(re.fullmatch(rf"  You saw your bottom cards: ({card}) and ({card})\.", line) for line in printed), printed
    assert sum(line.startswith("  You drew ") for line in printed) == 1, printed  # (the drawn card once)
    assert any(re.fullmatch(rf"  You drew and discarded ({card})( \(.*\))?\.", line) for line in printed), printed
    others = [line.text for line in me.lines if line.kind in ("turn", "power", "snap") and not line.yours]
    assert not any(text.startswith("You ") or " your " in text for text in others), others
    assert me.view().round == 1 and not me.reports
    assert printed[-1] == f"  {cut_short(1)}"


def test_R8_a_line_mode_seat_prints_each_move_once_every_bandit_call_and_its_own_turns(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A seat played without a screen printed its drawn card twice ("You drew a 16.",
    then "You drew and discarded a 16 (look & swap).") and never printed another
    player's Bandit announcement nor "Your turn.": its player could not tell when their
    turn came, nor that the round was ending (R8). Each is printed once, and another
    player's turn or move on their own cards is not."""
    from cli.game import print_line
    from engine import CallBandit, Discard, Draw, SkipPower
    from engine.narrate import Narrator
    from p2p.session import Line
    from tests.engine_support import ScriptedTable

    table = ScriptedTable(3, tableaux={0: [2, 2, 2, 2], 1: [4, 4, 4, 4], 2: [6, 6, 6, 6]}, discard=10,
                          draw=[0, 16, 0])
    bo = Narrator(("Ana", "Bo", "Cy"), 1, private_faces=True, turns=True)  # (as `TablePeer` makes it for line mode)

    def do(event) -> None:  # type: ignore[no-untyped-def]
        pending = [event]
        while pending:
            notes = table.game.apply(ev := pending.pop())
            for told in bo.narrate(table.game, ev, notes):
                print_line(Line(told.text, told.kind, told.seat, told.yours))  # type: ignore[arg-type]
            if (need := table.game.next_need) is not None:
                pending.append(table.oracle.answer(need))

    for event in (Draw(0), Discard(0), Draw(1), Discard(1), SkipPower(1), CallBandit(2)):
        do(event)
    assert capsys.readouterr().out.splitlines() == [
        "  Your turn.",
        "  You drew and discarded a 16 (look & swap).",
        "  You did not use the power.",
        "  Cy announced Bandit! This turn, then Ana and you play one final turn each.",
    ]


@pytest.mark.parametrize(("winners", "won"), [((0,), "Ana wins with 12 points"),
                                              ((0, 1), "Ana and Bo share the win with 12 points")])
def test_R1_who_won_is_said_in_the_same_words_on_screen_in_the_table_log_and_on_the_terminal(
        winners: tuple[int, ...], won: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The game-end screen's title, the table log's last line (which a line-mode seat
    prints) and what the terminal prints after the game each wrote who won in their own
    words: the table log's read "Ana and You share the win" where the screen's read
    "Ana and you", and the terminal named nobody. One sentence serves all three (said
    once to a seat in line mode, whose table log the terminal shows)."""
    from types import SimpleNamespace

    from cli.tui.round_view import game_title
    from engine import GameEnded
    from engine.narrate import Narrator

    names, totals = ("Ana", "Bo"), (12, 12 if len(winners) == 2 else 40)
    ended = GameSummary(bytes(32), names, 2, dict(zip(names, totals)), [names[s] for s in winners],
                        Path("seat0.bandit-log"), True, "the game ended")
    for me in (None, 0, 1):
        mine = won.replace("Ana wins", "You win").replace("Ana and", "You and") if me == 0 else \
            won.replace("and Bo", "and you") if me == 1 else won
        told = Narrator(names, me).game_over(GameEnded(winners, totals)).text
        assert told == f"Game over: {mine}.", told
        if me is not None:
            view = SimpleNamespace(totals=totals, winners=winners)
            model = SimpleNamespace(view=view, me=me, players=2, name=lambda s: names[s], ended=True, finished=True)
            assert game_title(model, ["You" if s == me else names[s] for s in range(2)]) == f"Game over — {mine}"
    assert report(ended, argparse.Namespace(json=False)) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"Game over after 2 rounds: {won}. Standings:"
    # (a seat in line mode has just printed the table log's "Game over: …" line: not twice)
    assert report(ended, argparse.Namespace(json=False, headless=True)) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Game over after 2 rounds. Standings:"


@pytest.mark.parametrize(("words", "name", "names", "said"), [
    ("Ann Lee was away for more than 120 s", "Ann", ("Ann", "Ann Lee"), "Ann Lee was away for more than 120 s"),
    ("Bo could not reach Ann Lee", "Ann", ("Bo", "Ann", "Ann Lee"), "Bo could not reach Ann Lee"),
    ("Ada (bot) ended the game: bot was away", "bot", ("Ada (bot)", "bot"), "Ada (bot) ended the game: you were away"),
    ("Ada (bot) ended the game: bot was away", "bot", ("Ada", "bot"), "Ada (bot) ended the game: you were away"),
    ("Bo could not reach Ann and Ann Lee; Ann's program", "Ann", ("Bo", "Ann", "Ann Lee"),
     "Bo could not reach you and Ann Lee; your program"),
])
def test_s11_3_a_log_s_words_say_you_only_where_they_name_this_player(
        words: str, name: str, names: tuple[str, ...], said: str) -> None:
    """"Ann Lee was away" read by Ann was "you Lee was away"; "(bot)" read by a player
    named bot was "(you)"."""
    from cli.game import to_you

    assert to_you(words, name, names) == said


def test_every_json_result_carries_the_keys_of_the_no_result_object_meaning_the_same(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A game's result lacked the `ok`, `error` and `status` that the object of no game
    carries: a script had to test keys before reading them. Every result has them: ok
    and no error for a game that ended where every log ends (exit 0), the fault for one
    a fault stopped (exit 1), the seat's going away for one that went (exit 130); its
    keys are the no-game object's."""
    from cli.result_line import no_result

    for ended, status, error in ((summary(finished=True, why="the game ended"), 0, None),
                                 (summary(finished=False, why="you left the table", left=True), 0, None),
                                 (summary(finished=False, why="Bo is gone (no word for 30 s)"), 1,
                                  "Bo is gone (no word for 30 s)"),
                                 (GameSummary(bytes(32), ("Ana", "Bo"), 1, {"Ana": 3, "Bo": 4}, [], Path("s.bandit-log"),
                                              False, "stopped", away="their terminal was closed"), 130,
                                  "your seat went away from the table (your terminal was closed)")):
        assert report(ended, argparse.Namespace(json=True)) == status
        line = json.loads(capsys.readouterr().out.splitlines()[-1])
        assert (line["ok"], line["error"], line["status"]) == (status == 0, error, status), line
        assert line.keys() == no_result(status).keys(), line.keys() ^ no_result(status).keys()


def test_json_logs_are_listed_in_seat_order_whatever_order_the_bots_finished_in(tmp_path: Path) -> None:
    """`play --json`'s "logs": seat 1's first (the bots' logs come as their processes end)."""
    logs = [tmp_path / f"0a1b2c3d4e5f-seat{n}.bandit-log" for n in (1, 3, 4, 2)]
    assert in_seat_order(logs) == sorted(logs)
    mine = tmp_path / "mine.bandit-log"  # (--log: named otherwise, kept after the others)
    assert in_seat_order([mine, logs[2], logs[0]]) == [logs[0], logs[2], mine]


def test_json_ends_with_a_result_object_when_no_game_was_played(tmp_path: Path) -> None:
    """`--json` promises the result on the last line of standard output: where no game
    came (no table found; a host interrupted in its lobby) that line is an object that
    says so, with the result's fields empty (it printed nothing, or `{"listening": …}`)."""
    from tests.cli_support import bandit, finish, interrupted_at

    lost = bandit("join", "NoSuchTable", "--json", "--headless", "--timeout", "1", "--state-dir", str(tmp_path / "j"),
                  stderr=subprocess.DEVNULL)
    status, out = finish(lost, [])
    last = json.loads(out.splitlines()[-1])
    assert status == 1 and last["ok"] is False and last["finished"] is False and last["log"] is None, out
    assert last["error"].startswith("no table named 'NoSuchTable' found on the LAN"), out
    status, out = interrupted_at(bandit("host", "--json", "--headless", "--no-discovery", "--bind", "127.0.0.1",
                                        "--state-dir", str(tmp_path / "h"), stderr=subprocess.DEVNULL), '"listening"')
    last = json.loads(out.splitlines()[-1])
    assert status == 130 and last["ok"] is False and last["status"] == 130 and "listening" not in last, out
