"""`bandit-lan simulate`: output, determinism, argument errors, and the stall guard."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main
from engine import DEFAULT_SKILLS, Draw, Discard, Phase, Prng, Ready, RoundStalled, SkipPower, simulate
from engine.bots import SnapDelay
from engine.bots import make_bot
from engine.simulator import Simulation

ROOT = Path(__file__).resolve().parent.parent


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["simulate", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_prints_a_readable_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--players", "4", "--games", "5")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Bandit: 5 games, 4 players, to 100 points, default deck, seed 0"
    header = next(line for line in lines if line.startswith("seat"))
    assert "win rate" in header and "mean total" in header
    at = lines.index(header)
    rows = lines[at + 2:at + 6]
    assert [row.split()[0] for row in rows] == ["1", "2", "3", "4"]  # (seats as players count them: the host is 1)
    assert all("normal" in r and "%" in r for r in rows)
    assert any(line.startswith("rounds per game:") for line in lines)
    assert lines[-1].startswith("speed: ") and lines[-1].endswith(" games/s")


def test_simulate_json_is_one_object_on_the_last_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--players", "3", "--games", "6", "--seed", "9", "--bots", "normal,random,random", "--json")
    assert code == 0
    data = json.loads(out.splitlines()[-1])
    assert data["players"] == 3 and data["games"] == 6 and data["seed"] == 9
    assert data["bots"] == ["normal", "random", "random"]
    assert len(data["win_rate"]) == 3 and abs(sum(data["win_rate"]) - 1) < 1e-6
    assert data["mean_rounds"] >= 1 and data["mean_turns_per_round"] > 0
    assert set(data["snaps"]) == {"attempted", "succeeded"}
    assert 0 <= data["snaps"]["succeeded"] <= data["snaps"]["attempted"]
    assert data["games_per_s"] > 0
    assert all(not line.startswith("{") for line in out.splitlines()[:-1])


def test_simulate_same_arguments_same_output_apart_from_speed(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--players", "5", "--games", "4", "--seed", "77", "--bots", "random", "--json")
    _, first, _ = run_cli(capsys, *args)
    _, second, _ = run_cli(capsys, *args)

    def without_speed(out: str) -> tuple[list[str], dict]:
        lines = out.splitlines()
        data = json.loads(lines[-1])
        data.pop("games_per_s")
        return [line for line in lines[:-1] if not line.startswith("speed:")], data

    assert without_speed(first) == without_speed(second)
    _, other, _ = run_cli(capsys, "--players", "5", "--games", "4", "--seed", "78", "--bots", "random", "--json")
    assert without_speed(other) != without_speed(first)


def test_simulate_summary_is_deterministic_and_splits_shared_wins() -> None:
    a = simulate(2, 30, seed=4, bots=("random",), target=20)
    assert a == simulate(2, 30, seed=4, bots=("random",), target=20)
    assert abs(sum(a.wins) - 30) < 1e-9
    assert a.to_json()["win_rate"] == [round(w / 30, 6) for w in a.wins]


@pytest.mark.parametrize(
    "args,message",
    [
        (("--players", "7"), "bandit-lan simulate: error: argument --players: 7 is not a number of players (2-6)"),
        (("--players", "1"), "argument --players: 1 is not a number of players (2-6)"),
        (("--games", "0"), "argument --games: 0 is not a count (1 or more)"),
        (("--target", "0"), "--target: 0 is not a target (1-10,000 points)"),
        (("--target", "1000000000000"), "--target: 1000000000000 is not a target (1-10,000 points)"),
        (("--bots", "normal,genius"), "unknown bot(s) 'genius'"),
        (("--bots", ","), "unknown bot(s) (none given)"),
        (("--bots", "normal,random"), "exactly 4 bots, not 2"),
        (("--players", "x"), "--players: 'x' is not a whole number"),
        (("--players", "\u0664"), "--players: '\u0664' is not a whole number"),  # (ASCII digits only)
        (("--skills", "/nonexistent/skills.toml"), "--skills: cannot read"),
    ],
)
def test_simulate_refuses_bad_arguments(capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(["simulate", *args])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_simulate_with_a_user_skills_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "box.toml"
    good.write_text(DEFAULT_SKILLS.to_toml().replace("count = 5", "count = 6"), encoding="utf-8")
    code, out, _ = run_cli(capsys, "--games", "2", "--skills", str(good))
    assert code == 0 and "custom deck of 56 cards" in out
    bad = tmp_path / "bad.toml"
    bad.write_text('[[card]]\nvalue = 1\ncount = 3\npower = "fly"\n', encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["simulate", "--skills", str(bad)])
    assert "unknown power 'fly'" in capsys.readouterr().err
    small = tmp_path / "small.toml"
    small.write_text("[[card]]\nvalue = 1\ncount = 20\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["simulate", "--players", "6", "--skills", str(small)])
    assert "6 players need at least 26" in capsys.readouterr().err


def test_readme_quick_start_command_runs_as_a_real_process() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "cli", "simulate", "--players", "4", "--games", "20"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    assert out.startswith("Bandit: 20 games, 4 players")
    assert "speed:" in out


class Stubborn:
    """Never calls Bandit: draws and discards forever (a broken bot)."""

    name = "stubborn"
    snap_delay = SnapDelay()

    def __init__(self) -> None:
        self.turns = 0

    def act(self, view, rng):  # type: ignore[no-untyped-def]
        self.turns += 1
        assert self.turns < 10_000, "the stall guard did not stop the round"
        if view.phase is Phase.PEEK:
            return Ready(view.seat)
        if view.phase is Phase.START:
            return Draw(view.seat)
        if view.phase is Phase.DRAWN:
            return Discard(view.seat)
        return SkipPower(view.seat)

    def snap(self, view, rng):  # type: ignore[no-untyped-def]
        return None


def test_simulate_names_a_seat_in_its_errors_as_players_count_seats(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that draws before the first turn stops the run; the error named the first
    seat "seat 0" (and the bot's move by its fields, "Draw(seat=0)"), where the table
    below it and every screen count seats from 1."""
    from types import MappingProxyType

    import cli.simulate
    import engine.bots

    class Eager(Stubborn):
        name = "eager"

        def act(self, view, rng):  # type: ignore[no-untyped-def]
            return Draw(view.seat)

    bots = MappingProxyType({**engine.bots.BOTS, "eager": Eager})
    monkeypatch.setattr(engine.bots, "BOTS", bots)
    monkeypatch.setattr(cli.simulate, "BOTS", bots)
    code, out, err = run_cli(capsys, "--players", "2", "--games", "1", "--bots", "eager")
    assert (code, out) == (1, "")
    assert err == "bandit-lan simulate: R4: seat 1: bot 'eager' answered Draw, not Ready, before the first turn\n"


def test_simulator_stops_a_round_that_never_ends() -> None:
    sim = Simulation([Stubborn(), Stubborn()], Prng(1), max_turns_per_round=300)
    with pytest.raises(RoundStalled) as info:
        sim.play()
    assert info.value.rule == "R8" and "passed 300 turns" in str(info.value)
    assert sim.game.turns_in_round == 301


def test_r1_a_deck_whose_totals_never_reach_the_target_ends_with_an_error_not_a_hang() -> None:
    """R1 ends a game when a total reaches the target; with negative cards the totals
    drift away from it and `simulate` ran for ever. A game past MAX_ROUNDS_PER_GAME
    rounds is an error that says why."""
    from engine.errors import EngineError
    from engine.simulator import MAX_ROUNDS_PER_GAME
    from engine.skills import load_skills

    negative = load_skills("[[card]]\nvalue = -3\ncount = 40\n")
    with pytest.raises(EngineError, match=f"passed {MAX_ROUNDS_PER_GAME} rounds without a total reaching 100"):
        simulate(2, 1, 0, ["normal"], negative, 100)


def test_a_skills_file_is_read_no_further_than_any_skills_table_could_go(capsys: pytest.CaptureFixture[str]) -> None:
    """--skills /dev/zero (or any huge file) was read until memory ran out."""
    with pytest.raises(SystemExit) as info:
        main(["simulate", "--skills", "/dev/zero"])
    assert info.value.code == 2 and "/dev/zero is larger than 64 KiB: not a skills table" in capsys.readouterr().err


def test_r2_a_skills_table_writes_back_as_toml_that_reads_to_an_equal_table() -> None:
    """Card names may hold any character a TOML string can: a newline was written raw,
    which no TOML reader takes."""
    from engine.skills import Skills, load_skills

    table = load_skills('[[card]]\nname = "red\\nBandit \\"x\\" \\\\ \\u007f"\nvalue = 1\ncount = 40\n')
    assert load_skills(table.to_toml()) == table
    assert isinstance(table, Skills)


def test_the_simulator_asks_for_snaps_on_the_live_driver_s_schedule() -> None:
    """design.md: the simulator drives the same bots as a live seat. A live seat asks its
    bot once per (top card, turn); the simulator asked only when the top changed, so
    after a discard with a power (the turn passes when the power is used, the top
    stays) a bot that learned of a match was never asked. Every turn that begins on the
    top the last one left now opens a snap window, as it does live."""
    from engine.phases import TURN_PHASES

    windows: set[tuple[int, int]] = set()
    seen: list[tuple[int, int, object, bool]] = []  # (round, turn, top, in a turn) after each event

    class Watched(Simulation):
        def snap_window(self) -> None:
            windows.add((self.game.round, self.game.turn))
            super().snap_window()

    sim = Watched([make_bot("normal"), make_bot("normal")], Prng(3), target=100)
    sim.observer = lambda event, notes: seen.append(
        (sim.game.round, sim.game.turn, sim.game.discard_top(), sim.game.phase in TURN_PHASES))
    sim.play()
    same_top_new_turn = [(r, t) for (r0, t0, top0, _), (r, t, top, turning) in zip(seen, seen[1:])
                         if turning and r == r0 and t != t0 and top == top0 and top is not None]
    assert same_top_new_turn and all(key in windows for key in same_top_new_turn)
