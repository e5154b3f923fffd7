"""§10.3: the Overall line over several logs of one game, for every mix of logs that are
fine, damaged (one copy of a record changed where the others' verify), failing their
own audit, cut short, or no log at all: true counts, grammatical, each log named once
with what is wrong with it, FAIR only when every log is fine."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from cli.audit import agreement_verdict
from cli.main import main
from p2p.agreement import Agreement, compare
from p2p.audit import AuditResult, audit
from p2p.log import LOG_LIMITS, read_log
from p2p.report import comparison_report
from p2p.roster import TableRules
from p2p.wire import split_frames
from tests.tablesim import TableNetwork
from tests.test_audit_tamper import rewrite
from tests.test_table_games import SMALL_DECK

NAMES = ("Ann", "Bo", "Cy", "Di", "Ed")
KINDS = ("fine", "damaged", "false", "cut", "not a log")
MIXES = [mix for n in range(2, 6) for mix in itertools.combinations_with_replacement(KINDS, n)]


class Logs:
    """Each seat's log of one finished game of five, made `fine`, `damaged`, … on demand
    (its own file, named after its writer), audited once."""

    def __init__(self, folder: Path) -> None:
        net = TableNetwork(5, 131, rules=TableRules(target=25, skills_text=SMALL_DECK), names=NAMES)
        net.run()
        assert all(t.machine.finished for t in net.tables)
        self.folder = folder
        self.written = net.write_logs(folder / "written")
        self.audited: dict[tuple[str, int], AuditResult] = {}

    def of(self, kind: str, seat: int) -> AuditResult:
        if (kind, seat) not in self.audited:
            self.audited[kind, seat] = audit(self._make(kind, seat))
        return self.audited[kind, seat]

    def _make(self, kind: str, seat: int) -> Path:
        folder = self.folder / kind.replace(" ", "-")
        folder.mkdir(exist_ok=True)
        path = folder / f"{NAMES[seat].lower()}.bandit-log"
        original = self.written[seat]
        data = bytearray(original.read_bytes())
        if kind == "damaged":  # (a bit of one signature, a different record in each seat's log)
            contents = read_log(original)
            index = 40 + 3 * seat
            data[data.index(contents.messages[index][1], contents.message_at[index]) + 10] ^= 1
        elif kind == "false":  # (every message, but an end its writer signed naming another seat absent: §10.2)
            other = (seat + 1) % len(NAMES)
            rewrite(original, folder, lambda m: m, why=f"{NAMES[other]} was away for more than 120 s",
                    absent=other).rename(path)
            return path
        elif kind == "cut":  # (its writer stopped half way: never closed)
            frames = [at for at, _ in split_frames(bytes(data), LOG_LIMITS)]
            data = data[:frames[len(frames) // 2]]
        elif kind == "not a log":
            data = bytearray(b"shopping list: eggs, milk\n")
        path.write_bytes(bytes(data))
        return path


# The tests share what a module fixture plays: one worker plays it and runs them all
pytestmark = pytest.mark.xdist_group("audit_overall")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Logs:
    return Logs(tmp_path_factory.mktemp("overall"))


def compared(logs: Logs, mix: tuple[str, ...]) -> tuple[Agreement, str]:
    agreement = compare([logs.of(kind, seat) for seat, kind in enumerate(mix)])
    return agreement, list(comparison_report(agreement))[-1]


@pytest.mark.parametrize("mix", MIXES, ids=["-".join(k.replace(" ", "") for k in mix) for mix in MIXES])
def test_s10_3_the_overall_line_tells_each_log_once_with_true_counts(logs: Logs, mix: tuple[str, ...]) -> None:
    agreement, line = compared(logs, mix)
    json = agreement_verdict(agreement)
    files = [f"{NAMES[seat].lower()}.bandit-log" for seat in range(len(mix))]
    fair = all(kind == "fine" for kind in mix)
    assert line.startswith("Overall: FAIR: " if fair else "Overall: NOT VERIFIED: "), line
    assert json["ok"] is fair and agreement.verified is fair
    damaged = [Path(d["path"]).name for d in json["damaged"]]  # type: ignore[index]  # (set aside: false ones too)
    assert all(mix[files.index(name)] in ("damaged", "false") for name in damaged), (damaged, mix)
    if "fine" in mix:  # (each damaged copy differs from a fine log's, which verifies; a false log is set aside beside it)
        assert damaged == [f for f, kind in zip(files, mix) if kind in ("damaged", "false")], damaged
    depth = 0
    for ch in line:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        assert depth in (0, 1), f"nested brackets: {line}"
    assert not re.search(r"\b1 (?:\w+ )?logs\b", line), line
    # (R1: the winner is the game's, said after it, never as if it described a log: "…, won by Cy")
    assert "won by" not in line and all(re.search(r"(the same game, which|tells a game that) Cy won$", clause)
                                        for clause in re.split(r"; |, but ", line.removesuffix(".")) if " won" in clause), line
    for number in re.findall(r"the (?:other )?(\d+) (?:readable |undamaged )?logs", line):
        readable = sum(kind != "not a log" for kind in mix)
        assert int(number) == readable - len(damaged), line
    if fair:
        return
    clauses = line.removeprefix("Overall: NOT VERIFIED: ").removesuffix(".").split("; ")
    for name, kind in zip(files, mix):
        assert line.count(name) <= 1, line
        if kind == "fine":
            continue
        said = [c for c in clauses if name in c]
        assert len(said) == 1, (name, line)
        if kind == "false":  # (set aside, or where every log is altered, told so among them)
            assert re.search(r"(is|are) false, signed as (it is|they are) by .+ key, which no honest program does$",
                             said[0]), line
        elif name in damaged or kind == "damaged":  # (its own audit finds it so, set aside or alone)
            assert re.search(r"(is|are) damaged, and a damaged log cannot be verified$", said[0]), line
        elif kind == "not a log":
            assert re.search(r"(is not a fairness log|are not fairness logs)$", said[0]), line
        else:
            assert re.search(r"(fails its own audit(: [^;]+)?|fail their own audits)$", said[0]), line
    if any(kind != "fine" for kind in mix if kind != "damaged") or not damaged:
        assert "undamaged logs hold every check" not in line, line


@pytest.mark.parametrize(("mix", "said"), [
    (("damaged", "damaged", "cut"),
     "Ann's log (ann.bandit-log) and Bo's log (bo.bandit-log) are damaged, and a damaged log cannot be verified; "
     "Cy's log (cy.bandit-log) fails its own audit."),
    (("damaged", "false"),
     "Ann's log (ann.bandit-log) is damaged, and a damaged log cannot be verified; Bo's log (bo.bandit-log) is false, "
     "signed as it is by Bo's key, which no honest program does."),
    (("false", "false"),
     "Ann's log (ann.bandit-log) and Bo's log (bo.bandit-log) are false, signed as they are by Ann's key and Bo's key, "
     "which no honest program does."),
    (("fine", "false"),
     "Ann's log (ann.bandit-log) holds every check and tells a game that Cy won; but Bo's log (bo.bandit-log) is "
     "false, signed as it is by Bo's key, which no honest program does."),
    (("fine", "damaged", "damaged", "not a log"),
     "Bo's log (bo.bandit-log) and Cy's log (cy.bandit-log) are damaged, and a damaged log cannot be verified; "
     "di.bandit-log is not a fairness log."),
    (("fine", "fine", "damaged"),
     "the 2 undamaged logs hold every check and tell the same game, which Cy won; but Cy's log (cy.bandit-log) is "
     "damaged, and a damaged log cannot be verified."),
    (("fine", "damaged", "damaged"),
     "Ann's log (ann.bandit-log) holds every check and tells a game that Cy won; but Bo's log (bo.bandit-log) and "
     "Cy's log (cy.bandit-log) are damaged, and a damaged log cannot be verified."),
    (("fine", "fine", "cut", "not a log", "not a log"),
     "Cy's log (cy.bandit-log) fails its own audit: it stops after 45 of the 84 messages in Ann's log; "
     "di.bandit-log and ed.bandit-log are not fairness logs; Ann's and Bo's logs hold every check and tell the same "
     "game, which Cy won."),
    (("cut", "not a log"),
     "Ann's log (ann.bandit-log) fails its own audit; bo.bandit-log is not a fairness log; the logs cannot be compared."),
])
def test_s10_3_the_overall_line_over_damaged_and_failing_logs(logs: Logs, mix: tuple[str, ...], said: str) -> None:
    assert compared(logs, mix)[1] == f"Overall: NOT VERIFIED: {said}", compared(logs, mix)[1]


def test_s10_3_the_game_is_told_from_the_first_log_that_can_be_read(
        logs: Logs, capsys: pytest.CaptureFixture[str]) -> None:
    """An empty file given first: the story, and the JSON's game, rounds, totals and
    winners, are those of the first log after it that can be read (they were of no game:
    `game_id` "", `rounds` 0), said so; the empty file still fails the whole."""
    empty = logs.folder / "empty.bandit-log"
    empty.write_bytes(b"")
    bo, cy = logs.of("fine", 1), logs.of("fine", 2)
    given = [str(empty), str(bo.path), str(cy.path)]
    assert main(["audit", "--json", *given]) == 1
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert (out["game_id"], out["rounds"], out["totals"], out["winners"]) == (
        bo.game_id.hex(), len(bo.rounds), bo.totals, bo.winners) and out["rounds"] > 0
    assert out["told"] == str(bo.path) and out["players"] == list(NAMES)
    assert out["ok"] is False and out["agree"] is True and out["logs"][0]["ok"] is False
    assert main(["audit", "--brief", *given]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("empty.bandit-log cannot be read as a log (see its own verdict with the logs compared "
                        "below): the game is told from bo.bandit-log, the first that can.")
    assert lines[2] == f"Fairness log: {bo.path}" and f"Game {bo.game_id.hex()[:16]}…" in lines[3]
    assert "  empty.bandit-log cannot be read as a log: the log: §10.1: the log is empty" in lines, lines
    assert lines[-1] == ("Overall: NOT VERIFIED: empty.bandit-log cannot be read as a log; Bo's and Cy's logs hold "
                         "every check and tell the same game, which Cy won."), lines[-1]


@pytest.mark.parametrize(("mix", "agree", "parting"), [
    (("fine", "fine", "damaged"), True, None),
    (("damaged", "fine", "fine"), True, None),
    (("fine", "damaged"), False, "fewer than two readable logs to compare"),
    (("fine", "fine", "damaged", "not a log"), True, None),
    (("fine", "fine"), True, None),
])
def test_s10_3_json_agree_is_over_the_logs_compared_the_damaged_set_aside(
        logs: Logs, mix: tuple[str, ...], agree: bool, parting: str | None) -> None:
    """`agree` and `parting` say how the logs left once the damaged are set aside
    (`damaged`) compare: a damaged log among logs that agree made `agree` false, and
    `parting` named the damage, which that log's own verdict says."""
    agreement, _line = compared(logs, mix)
    out = agreement_verdict(agreement)
    assert out["agree"] is agree, out
    assert (None if out["parting"] is None else out["parting"]["what"]) == parting, out  # type: ignore[index]
    assert len(out["damaged"]) == mix.count("damaged")  # type: ignore[arg-type]


def test_r1_a_win_shared_by_three_names_them_as_a_list() -> None:
    """Equal lowest totals share the win (R1): three of them read "Winners: Bo and Cy and
    Di"; they are listed as everywhere else ("Bo, Cy and Di")."""
    from types import SimpleNamespace

    from p2p.report import _verdict, overall

    shared = SimpleNamespace(ok=True, left=None, winners=["Bo", "Cy", "Di"])
    assert list(_verdict(shared))[-1] == "Verdict: FAIR. Every check holds. Winners: Bo, Cy and Di."  # type: ignore[arg-type]
    agreement = SimpleNamespace(logs=[shared, shared], verified=True, away=None, told=shared, twice=(),
                                compared=(), proof=None)
    assert overall(agreement).endswith("tell the same game. Winners: Bo, Cy and Di.")  # type: ignore[arg-type]


def test_s10_3_r1_the_overall_line_tells_how_the_game_ended_as_the_game_s() -> None:
    """"Ann's log holds every check, won by Di" read as if the log had won: what the logs
    that hold every check tell says who won the game, with a shared win (R1) and an early
    end, for one log and for several."""
    from types import SimpleNamespace

    from p2p.report import _held

    log = SimpleNamespace()
    won, shared = SimpleNamespace(left=None, winners=["Di"]), SimpleNamespace(left=None, winners=["Bo", "Cy"])
    early, unknown = SimpleNamespace(left=object(), winners=[]), SimpleNamespace(left=None, winners=[])
    one, two = [log], [log, log]
    assert _held(one, won, "Ann's log") == "Ann's log holds every check and tells a game that Di won"  # type: ignore[arg-type]
    assert _held(two, won, "Ann's and Bo's logs") == (  # type: ignore[arg-type]
        "Ann's and Bo's logs hold every check and tell the same game, which Di won")
    assert _held(one, shared, "Ann's log") == (  # type: ignore[arg-type]
        "Ann's log holds every check and tells a game whose win Bo and Cy shared")
    assert _held(two, shared, "the 2 undamaged logs") == (  # type: ignore[arg-type]
        "the 2 undamaged logs hold every check and tell the same game, whose win Bo and Cy shared")
    assert _held(one, early, "Ann's log") == "Ann's log holds every check and tells a game that ended early"  # type: ignore[arg-type]
    assert _held(two, early, "Ann's and Bo's logs") == (  # type: ignore[arg-type]
        "Ann's and Bo's logs hold every check and tell the same game, which ended early")
    assert _held(one, unknown, "Ann's log") == "Ann's log holds every check"  # type: ignore[arg-type]
