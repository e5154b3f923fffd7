"""The README against the program: the quick start is exactly two command lines (.ci/run
runs the second) and comes first, every option is named, the files are where it says,
and what it quotes is what the program prints."""

import argparse
import base64
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from cli.game import log_folder, log_path_for
from cli.main import build_parser
from cli.tables import render
from p2p.discovery import TableAd
from p2p.identity import default_state_dir
from p2p.journal import journal_path
from p2p.report import overall
from p2p.roster import PROTOCOL_VERSION

ROOT = Path(__file__).resolve().parent.parent


def quick_start_lines() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(?:sh|bash|console)?\n(.*?)```", section, re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_quick_start_has_exactly_two_command_lines() -> None:
    lines = quick_start_lines()
    assert len(lines) == 2
    assert "bandit-lan" in lines[0]
    assert "pytest" in lines[1] and "[test]" in lines[1]


def test_ci_runs_the_readme_test_line() -> None:
    # .ci/run prints the line it runs; stop it right there by asking bash to only echo.
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "README.md" in script
    probe = script.replace('exec bash -c "$line"', 'echo "$line"; exit 0')
    out = subprocess.run(["bash", "-c", probe], cwd=ROOT / ".ci", capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == quick_start_lines()[1]


def readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def sections() -> list[str]:
    return re.findall(r"^## (.+)$", readme(), re.M)


def test_quick_start_comes_first_and_how_to_play_before_the_benchmarks() -> None:
    names = sections()
    assert names[0] == "Quick start"
    assert names.index("How to play Bandit") < names.index("Playing in the terminal") < names.index("Benchmarks")


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def shown_options(command: argparse.ArgumentParser) -> set[str]:
    """The long options a command's --help lists."""
    return {name for action in command._actions if action.help != argparse.SUPPRESS
            for name in action.option_strings if name.startswith("--") and name != "--help"}


def test_every_option_of_every_command_is_named_in_the_readme() -> None:
    text = readme()
    missing = {f"{name} {option}" for name, command in commands().items() for option in shown_options(command)
               if not re.search(rf"(?<![\w-]){option}(?![\w-])", text)}
    assert not missing


def options_rows() -> list[tuple[list[str], str]]:
    """The rows of "Options of play, host and join": the options each names, and the row."""
    table = readme().split("| option | of | what it does |", 1)[1].split("\n\n", 1)[0]
    return [(re.findall(r"`(--[a-z-]+)", line.split("|")[1]), line) for line in table.strip().splitlines()[1:]]


def options_table() -> list[tuple[list[str], str]]:
    """The options table's rows: the options each names, and the commands that take them."""
    return [(options, line.split("|")[2].strip()) for options, line in options_rows()]


def test_the_options_table_names_the_commands_that_take_each_option() -> None:
    parsers = commands()
    for options, of in options_table():
        named = ["play", "host", "join"] if of == "all three" else re.findall(r"`(\w+)`", of)
        for option in options:
            takes = {name for name, command in parsers.items() if option in shown_options(command)}
            assert set(named) == takes & {"play", "host", "join", *named}, option


def test_the_readme_says_where_identities_and_logs_are_kept(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    if sys.platform != "linux":
        pytest.skip("the README names the Linux place")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    home = tmp_path / ".local" / "share" / "bandit-lan"
    assert default_state_dir() == home
    assert log_folder(None, None) == home / "logs"
    assert journal_path(home, bytes(32)).parent == home / "games"
    text = " ".join(readme().split())
    assert "`~/.local/share/bandit-lan` on Linux" in text
    assert "(in `logs/`, one `<game>-seat<N>.bandit-log` a game)" in text
    assert "unfinished games (in `games/`)" in text
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_state_dir() == tmp_path / "data" / "bandit-lan"
    assert "`$XDG_DATA_HOME/bandit-lan`" in text
    for name in ("play", "host", "join"):  # (and each command's --help says the same)
        helps = {a.option_strings[0]: a.help for a in commands()[name]._actions if a.option_strings}
        assert "~/.local/share/bandit-lan on Linux" in helps["--state-dir"]
        assert "logs/ in the --state-dir" in helps["--log-dir"]


def test_a_log_is_named_by_the_first_twelve_digits_of_its_game() -> None:
    seated = SimpleNamespace(game_id=bytes(range(32)), seat=2)
    path = log_path_for(seated, Path("state"), None)  # type: ignore[arg-type]
    assert path == Path("state") / "logs" / "000102030405-seat3.bandit-log"
    assert "every seat's log is named by its first twelve digits" in " ".join(readme().split())


def test_the_readme_quotes_the_overall_verdict_as_the_audit_prints_it() -> None:
    logs = [SimpleNamespace(left=None, winners=["Ada"]) for _ in range(4)]
    line = overall(SimpleNamespace(logs=logs, verified=True, away=None, told=logs[0], twice=(), compared=(),  # type: ignore[arg-type]
                                   proof=None))
    assert f'"{line}"' in " ".join(readme().split())


def test_s10_2_the_readme_says_the_audit_s_json_counts_seats_from_0_as_it_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The report says "written by seat 1 (Ada)" and `--json` `"writer": 0` for one log:
    the JSON counts seats (and records) from 0, as the wire does, with each seat's name
    beside it, and tools read it so; the README says so, with that very pair."""
    import json

    from cli.main import main
    from p2p.roster import TableRules
    from tests.tablesim import TableNetwork
    from tests.test_table_games import SMALL_DECK

    net = TableNetwork(3, 130, rules=TableRules(target=25, skills_text=SMALL_DECK), names=("Ada", "Bo", "Cy"))
    net.run()
    logs = [str(path) for path in net.write_logs(tmp_path)]
    assert main(["audit", logs[0]]) == 0
    assert "written by seat 1 (Ada)" in capsys.readouterr().out
    assert main(["audit", "--json", *logs]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[-1])["logs"][0]
    assert (first["writer"], first["peer"]) == (0, "Ada")
    assert ('in it, as on the wire, seats and records count from 0, each seat with its player\'s name beside it '
            '(`"writer": 0, "peer": "Ada"` is the log of seat 1, Ada\'s; `"record": 40` is record 41), where the '
            'report counts both from 1.') in " ".join(readme().split())


def test_every_help_writes_a_range_with_a_dash() -> None:
    ranges = {action.help for command in commands().values() for action in command._actions
              if action.help and re.search(r"\d\.\.\d", action.help)}
    assert not ranges


def test_join_says_it_plays_the_game_as_the_readme_does() -> None:
    """The README: `host` and `join` play the game once everyone has sat down (not only
    print the seats, which is `--lobby-only`)."""
    assert "`host` and `join` (below) play the same game" in " ".join(readme().split())
    description = " ".join((commands()["join"].description or "").split())
    assert "play its game once the host starts it" in description
    assert "print the seats" not in description


def test_the_readme_shows_the_tables_listing_as_printed() -> None:
    def ad(table: str, host: str, seats: int, free: int, short: str, port: int, address: str,
           proto: int = PROTOCOL_VERSION, code: bool = False) -> TableAd:
        fingerprint = base64.b32decode(short.replace("-", "")) + bytes(22)
        return TableAd(table, host, seats, free, proto, fingerprint, port, (address,), code=code)

    ads = [ad("Friday", "alice", 4, 2, "NW77-F6HD-L3JV-RRPS", 41234, "192.168.1.20"),
           ad("Chess club", "dora", 3, 1, "Q4KD-7TXM-2BWE-JH5A", 40117, "192.168.1.31", code=True),
           ad("Old laptop", "eve", 6, 5, "C3PA-ZZ6R-BMVQ-TL2D", 39001, "192.168.1.40", proto=5)]
    block = readme().split("```text\nTABLE ", 1)[1].split("\n```", 1)[0]
    assert ("TABLE " + block).splitlines() == render(ads)
    assert "within 3 s (`--timeout S`" in readme()
    assert commands()["tables"].get_default("timeout") == 3.0


def test_the_defaults_the_options_table_names_are_the_commands() -> None:
    rows = {options[0]: line for options, line in options_rows()}
    parsers = commands()

    def default(command: str, dest: str) -> object:
        return parsers[command].get_default(dest)

    assert "(default 100)" in rows["--target"] and default("play", "target") == default("host", "target") == 100
    assert "(default 120 s)" in rows["--grace"] and default("play", "grace") == default("host", "grace") == 120
    assert "(default 60 s)" in rows["--turn-seconds"] and default("host", "turn_seconds") == 60
    assert "2–6 (default 4)" in rows["--seats"] and default("host", "seats") == 4
    assert "at `play` 1–5 (default 3)" in rows["--bots"] and default("play", "bots") == 3
    assert "(default 0)" in rows["--bots"] and default("host", "bots") == 0
    assert "default 5 s for `join`, 3 s for `tables`" in rows["--timeout"]
    assert default("join", "timeout") == 5 and default("tables", "timeout") == 3


def test_the_options_table_writes_each_option_its_metavar_and_its_range_as_help_does() -> None:
    """`--table TABLE`, `--target TARGET`: as every command taking it shows it; and every
    range a row gives (1–10,000) is the one its --help gives (1-10,000), and back."""
    parsers = commands()
    for options, of in options_table():
        row = next(line for named, line in options_rows() if named == options)
        named = ["play", "host", "join"] if of == "all three" else re.findall(r"`(\w+)`", of)
        takers = [parsers[name] for name in named]
        helps = [action.help or "" for command in takers for action in command._actions
                 if set(action.option_strings) & set(options)]
        for option, metavar in re.findall(r"`(--[a-z-]+) ([A-Z:]+)`", row.split("|")[1]):
            for command in takers:
                if option in shown_options(command):
                    assert f"[{option} {metavar}]" in " ".join(command.format_usage().split()), (option, command.prog)
        written = set(re.findall(r"\d[\d,]*–\d[\d,]*", row.split("|")[3]))
        helped = {r.replace("-", "–") for text in helps for r in re.findall(r"\d[\d,]*-\d[\d,]*", text)}
        assert written == helped, (options, written, helped)


def test_every_resume_help_speaks_to_the_player() -> None:
    """As the README's options table does: your seat, when your program stopped."""
    for name in ("play", "host", "join"):
        resume = next(a for a in commands()[name]._actions if "--resume" in a.option_strings)
        assert "you were playing when this program stopped (same --state-dir" in " ".join((resume.help or "").split())
