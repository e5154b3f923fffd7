"""§5, §6 with separate `bandit-lan` processes on this machine (mDNS on loopback only)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from functools import partial
from pathlib import Path

import pytest

from p2p.identity import short_id
from cli_support import bandit, finish, kill_all, kill_job, one_game, read_until

LO = ("--interface", "127.0.0.1")

pytestmark = pytest.mark.xdist_group("mdns")  # one worker runs the mDNS tests, one at a time (pyproject.toml)


def test_host_tables_and_two_joiners_as_processes(tmp_path: Path) -> None:
    seen: list[str] = []
    host = bandit("host", "--table", "Attic", "--name", "alice", "--seats", "3", "--bind", "127.0.0.1",
                  "--state-dir", str(tmp_path / "h"), "--lobby-only", *LO)
    procs = [host]
    try:
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", seen).group(1)
        fp = read_until(host, r"Your fingerprint: (\S+)", seen).group(1)
        read_until(host, r"1 of 3 seats taken", seen)
        listing = bandit("tables", "--json", "--timeout", "4", *LO)
        procs.append(listing)
        rc, out = finish(listing, [])
        tables = [t for t in json.loads(out.strip().splitlines()[-1]) if t["table"] == "Attic"]
        assert rc == 0 and tables and tables[0]["host"] == "alice" and tables[0]["free"] == 2
        assert f"{tables[0]['address']}:{tables[0]['port']}" == where
        by_name = bandit("join", "Attic", "--name", "bob", "--state-dir", str(tmp_path / "b"), "--lobby-only", *LO)
        by_addr = bandit("join", "--peer", where, "--fingerprint", fp, "--name", "carol",
                         "--state-dir", str(tmp_path / "c"), "--lobby-only")
        procs += [by_name, by_addr]
        results = [finish(p, seen if p is host else [], 40) for p in (by_name, by_addr, host)]
    finally:
        kill_all(procs)
    one_game(results)
    assert "Host fingerprint " + fp + " verified." in results[1][1]
    # (by name, no --fingerprint: checked only against what the host announced on the LAN, which anyone can)
    assert f"Host fingerprint {fp} (as announced on the LAN, which anyone on it could fake; compare it with the " \
           "host's screen)." in results[0][1] and "verified" not in results[0][1], results[0][1]
    for name in ("alice", "bob", "carol"):
        assert name in results[2][1]


def test_s6_6_a_lobby_check_at_a_real_table_says_why_it_goes(tmp_path: Path) -> None:
    """`join --lobby-only` at a table that meant to play takes its seat,
    signs, and goes, and the others' game ended "(leaving the table)". It still goes (that
    is the check), but the others read why."""
    seen: list[str] = []
    host = bandit("host", "--table", "Den", "--name", "alice", "--seats", "2", "--bind", "127.0.0.1",
                  "--no-discovery", "--state-dir", str(tmp_path / "h"), "--headless", "--bot", "--target", "20")
    procs = [host]
    try:
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", seen).group(1)
        check = bandit("join", "--peer", where, "--name", "carl", "--state-dir", str(tmp_path / "c"), "--lobby-only")
        procs.append(check)
        results = [finish(p, seen if p is host else [], 40) for p in (check, host)]
    finally:
        kill_all(procs)
    assert results[0][0] == 0
    assert "carl left before the game began (only checking the lobby: --lobby-only)" in results[1][1], results[1][1]


@pytest.mark.parametrize("typed", ["Enter", "bytes that are not text", "the terminal hung up"])
def test_s6_6_each_enter_at_a_host_on_a_terminal_asks_to_start(tmp_path: Path, typed: str) -> None:
    """`host --lobby-only` on a terminal (its input a pty): Enter alone at the table says
    a game needs two players; Enter again once bob sat down starts the game with the two
    of them (the first Enter used to be the only one heard: the game never started).
    Bytes that are not text, then Enter, are an Enter all the same; a terminal that hangs
    up leaves the lobby running, and the table starts when full (either used to crash the
    host: its reader of the terminal raised in a trio system task)."""
    seen: list[str] = []
    terminal, its_side = os.openpty()
    host = bandit("host", "--table", "Porch", "--name", "alice", "--seats", "3", "--bind", "127.0.0.1",
                  "--no-discovery", "--state-dir", str(tmp_path / "h"), "--lobby-only", stdin=its_side,
                  env={"PYTHONIOENCODING": "utf-8:strict"})  # (as under a UTF-8 locale; the C locale forgives)
    os.close(its_side)
    procs = [host]

    def join(name: str) -> None:
        procs.append(bandit("join", "--peer", where, "--name", name, "--state-dir", str(tmp_path / name), "--lobby-only"))

    try:
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", seen).group(1)
        read_until(host, r"Press Enter to start", seen)
        if typed == "the terminal hung up":
            os.close(terminal)
            terminal = -1
            join("bob")
            read_until(host, r"2 of 3 seats taken", seen)
            join("carol")  # (full: the table starts)
        else:
            os.write(terminal, b"\xff\n" if typed == "bytes that are not text" else b"\n")
            read_until(host, r"A game needs at least two players", seen)
            join("bob")
            read_until(host, r"2 of 3 seats taken", seen)
            os.write(terminal, b"\n")
        results = [finish(p, seen if p is host else [], 40) for p in (*procs[1:], host)]
    finally:
        kill_all(procs)
        if terminal >= 0:
            os.close(terminal)
    one_game(results)
    players = 3 if typed == "the terminal hung up" else 2
    assert f"Game ready at table \"Porch\": {players} players" in results[-1][1]


def test_an_enter_at_a_line_mode_host_during_its_game_only_says_how_to_leave(tmp_path: Path) -> None:
    """A line-mode host (`--headless` on a terminal, a bot playing its seat) whose other
    seat a bot fills at once waits for nobody: it does not ask for an Enter to start; an
    Enter once the game is on leaves nobody: it says that Enter does nothing now and that
    Ctrl-C leaves, and the game plays on to its end (the Enter is heard: no reader left
    over from the lobby swallows it)."""
    seen: list[str] = []
    terminal, its_side = os.openpty()
    host = bandit("host", "--table", "Loft", "--name", "alice", "--seats", "2", "--bots", "1", "--bind", "127.0.0.1",
                  "--no-discovery", "--state-dir", str(tmp_path / "h"), "--headless", "--target", "60",
                  stdin=its_side)  # (some 8 rounds: no round ends it at once, and the game is short)
    os.close(its_side)
    try:
        read_until(host, r"Round 1 is over", seen)
        assert "Press Enter" not in "".join(seen)
        os.write(terminal, b"\n")
        read_until(host, r"Enter does nothing now\. Ctrl-C leaves the table", seen)
        rc, out = finish(host, seen, 60)
    finally:
        kill_all([host])
        os.close(terminal)
    assert rc == 0 and "Game over after" in out, out


def test_a_line_mode_host_in_the_background_of_its_terminal_is_not_stopped_by_it(tmp_path: Path) -> None:
    """`bandit-lan host … &` at a shell: a job in the background may not read its terminal
    (the kernel stops it, SIGTTIN), so the host does not read Enters until it is in the
    foreground (its prompt says to bring it there first), and its table fills and starts
    (it is not stopped, its lobby frozen for everyone). The host runs in a process group
    of its own, which a failing run kills (not only the job's wrapper)."""
    seen: list[str] = []
    terminal, its_side = os.openpty()
    host = bandit("host", "--table", "Shed", "--name", "alice", "--seats", "2", "--bind", "127.0.0.1",
                  "--no-discovery", "--state-dir", str(tmp_path / "h"), "--lobby-only", stdin=its_side,
                  program=("tests.background_job", "cli"))
    os.close(its_side)
    procs = [host]
    job: int | None = None
    try:
        job = int(read_until(host, r"^background job (\d+)$", seen).group(1))
        stop = partial(kill_job, job)
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", seen, kill=stop).group(1)
        read_until(host, r"Press Enter to start .* bring it to the foreground with fg first", seen, kill=stop)
        procs.append(bandit("join", "--peer", where, "--name", "bob", "--state-dir", str(tmp_path / "b"),
                            "--lobby-only"))
        results = [finish(p, seen if p is host else [], 40) for p in (procs[1], host)]
    finally:
        if job is not None:
            kill_job(job)
        kill_all(procs)
        os.close(terminal)
    one_game(results)


def test_a_json_host_on_a_terminal_says_what_its_keys_do_on_standard_error(tmp_path: Path) -> None:
    """`host --json` on a terminal: its standard output is for a script, so the Enter
    prompt and "A game needs at least two players" go to standard error, where the person
    at the terminal reads them; standard output has the address and the result, each a
    JSON object."""
    seen: list[str] = []
    told: list[str] = []
    terminal, its_side = os.openpty()
    host = bandit("host", "--table", "Nook", "--name", "alice", "--seats", "2", "--bind", "127.0.0.1",
                  "--no-discovery", "--state-dir", str(tmp_path / "h"), "--lobby-only", "--json",
                  stdin=its_side, stderr=subprocess.PIPE)
    os.close(its_side)
    procs = [host]
    try:
        where = read_until(host, r'"listening": "(127\.0\.0\.1:\d+)"', seen).group(1)
        read_until(host, r"Press Enter to start", told, 30, errors=True)
        os.write(terminal, b"\n")
        read_until(host, r"A game needs at least two players", told, 30, errors=True)
        procs.append(bandit("join", "--peer", where, "--name", "bob", "--state-dir", str(tmp_path / "b"),
                            "--lobby-only"))
        rc, out = finish(host, seen, 40)
    finally:
        kill_all(procs)
        os.close(terminal)
    assert rc == 0
    listening, result = map(json.loads, out.strip().splitlines())
    assert listening["listening"] == where and result["players"] == ["alice", "bob"]
    assert (result["ok"], result["error"], result["status"]) == (True, None, 0), result  # (as every result object)


def test_host_json_prints_only_json_where_it_listens_first_and_its_result_last(tmp_path: Path) -> None:
    """`host --json | jq`: standard output holds one JSON object a line, where the table
    listens (and the host's fingerprint) first, for a script to tell its joiners, and the
    game's result last. The address was a line of text before the JSON, which no JSON
    reader takes."""
    host = bandit("host", "--headless", "--name", "alice", "--seats", "2", "--bots", "1", "--target", "20", "--json",
                  "--bind", "127.0.0.1", "--no-discovery", "--state-dir", str(tmp_path / "h"),
                  "--log-dir", str(tmp_path / "logs"), stderr=subprocess.PIPE)
    try:
        rc, out = finish(host, [], 120)
    finally:
        kill_all([host])
    lines = out.splitlines()
    objects = [json.loads(line) for line in lines]  # (every line: no text beside the JSON)
    assert rc == 0 and len(objects) == 2, out
    first, result = objects
    assert set(first) == {"listening", "fingerprint", "fingerprint_words"}
    assert re.fullmatch(r"127\.0\.0\.1:\d+", first["listening"]) and re.fullmatch(r"[0-9a-f]{64}", first["fingerprint"])
    assert first["fingerprint_words"] == short_id(bytes.fromhex(first["fingerprint"]))  # (as the screens show it)
    assert result["log"].endswith(".bandit-log") and len(result["logs"]) == 2


def test_wrong_fingerprint_and_unreachable_host_fail_clearly(tmp_path: Path) -> None:
    seen: list[str] = []
    host = bandit("host", "--headless", "--table", "Cellar", "--name", "alice", "--seats", "2", "--bind", "127.0.0.1",
                  "--no-discovery", "--state-dir", str(tmp_path / "h"))
    try:
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", seen).group(1)
        wrong = bandit("join", "--headless", "--peer", where, "--fingerprint", "AAAA-AAAA-AAAA-AAAA",
                       "--state-dir", str(tmp_path / "j"))
        rc, out = finish(wrong, [])
        assert rc == 1 and "fingerprint mismatch: expected AAAA-AAAA-AAAA-AAAA" in out
    finally:
        host.kill()
        host.wait()
    gone = bandit("join", "--headless", "--peer", where, "--state-dir", str(tmp_path / "j"))
    rc, out = finish(gone, [])
    assert rc == 1 and f"nothing answers at {where}; check the address and port on the host's screen" in out
    for name in ("a..b", "١٢"):  # (names no resolver takes: they raised from the resolver, a traceback)
        nameless = bandit("join", "--headless", "--peer", f"{name}:4000", "--state-dir", str(tmp_path / "j"))
        rc, out = finish(nameless, [])
        assert rc == 1 and f"{name} is not a host name or address" in out and "Traceback" not in out


@pytest.mark.parametrize("how", ["killed", "stopped"])
def test_s6_6_a_joiner_whose_host_process_is_killed_or_stopped_in_the_lobby_is_told_within_seconds(
        tmp_path: Path, how: str) -> None:
    """A host killed with SIGKILL: its link to the joiner drops without a goodbye, as on
    a Wi-Fi hiccup (or never comes, if the host died while dialling), but its table no
    longer answers the joiner's probe, so the joiner says so within seconds instead of
    waiting 30 s for a link that cannot come. A host stopped with SIGSTOP (Ctrl-Z, a
    laptop lid closed) keeps its link open, carrying nothing: the joiner hears no
    `lobby.beat` for 6 s, takes the link for lost, and its probe's handshake never comes
    (10 s), so it says the same, instead of waiting for good (§6.6)."""
    seen: list[str] = []
    host = bandit("host", "--table", "Shed", "--name", "alice", "--seats", "3", "--bind", "127.0.0.1",
                  "--no-discovery", "--state-dir", str(tmp_path / "h"), "--lobby-only")
    procs = [host]
    try:
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", seen).group(1)
        guest = bandit("join", "--peer", where, "--name", "bob", "--state-dir", str(tmp_path / "b"), "--lobby-only")
        procs.append(guest)
        read_until(host, r"2 of 3 seats taken", seen)
        joined: list[str] = []
        read_until(guest, r"2 of 3 seats taken", joined)
        if how == "killed":
            host.kill()
        else:
            os.kill(host.pid, signal.SIGSTOP)
        struck = time.monotonic()
        rc, out = finish(guest, joined, timeout=40)
        waited = time.monotonic() - struck
    finally:
        kill_all(procs)
    assert rc == 1 and f"at {where} no longer answers: it closed, or its program stopped" in out, out
    assert "bandit-lan tables" not in out and "§6.5" not in out, out  # (plain words, no section; joined by address)
    if how == "killed":
        assert waited < 10  # (not the 30 s a guest gives a redial)
    else:
        assert 6 <= waited < 25, waited  # (6 s of silence, then a handshake that times out after 10 s)


def test_host_json_or_quiet_tells_its_table_s_news_on_standard_error(capsys: pytest.CaptureFixture[str]) -> None:
    """What a host hears of its table while it waits (mDNS cannot run here, another table
    of its name): with --json or --quiet on standard error, standard output being JSON
    alone or the result alone; else on standard output, with the join command."""
    import argparse

    from cli.host import said_in_lines
    from cli.lobby_common import JoinHint

    news = JoinHint("bandit-lan join Pair --fingerprint abc", "Another table on this LAN is also called 'Pair'",
                    warning=True)
    said_in_lines(argparse.Namespace(quiet=False, json=True), news)
    said_in_lines(argparse.Namespace(quiet=False, json=True), "The table is not advertised on the LAN (no IPv4)")
    out, err = capsys.readouterr()
    assert (out, err) == ("", "Another table on this LAN is also called 'Pair'\n"
                              "The table is not advertised on the LAN (no IPv4)\n")
    said_in_lines(argparse.Namespace(quiet=True, json=False), news)
    assert capsys.readouterr() == ("", "Another table on this LAN is also called 'Pair'\n")
    said_in_lines(argparse.Namespace(quiet=False, json=False), news)
    assert capsys.readouterr().out == ("Another table on this LAN is also called 'Pair'\n"
                                       "Others join with: bandit-lan join Pair --fingerprint abc\n")


def test_s6_4_a_person_named_as_a_host_s_bot_is_refused_and_told_why(tmp_path: Path) -> None:
    """`host --bots 1` seats "Ada (bot)" (alice hosts): a person who joins as "Ada" is
    refused, whether the bot sat down yet or not, and reads why and what to do; the host
    reads whom it turned away. ("Ada (bot) cannot reach Ada" told nobody who was who.)"""
    seen: list[str] = []
    host = bandit("host", "--table", "Den", "--name", "alice", "--seats", "3", "--bots", "1", "--bind", "127.0.0.1",
                  "--no-discovery", "--state-dir", str(tmp_path / "h"), "--lobby-only")
    procs = [host]
    try:
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", seen).group(1)
        ada = bandit("join", "--peer", where, "--name", "Ada", "--state-dir", str(tmp_path / "a"), "--lobby-only")
        procs.append(ada)
        status, said = finish(ada, [], 40)
        read_until(host, r"Ada \(127\.0\.0\.1\) could not join under that name: 'Ada' shares its first word with "
                         r"'Ada \(bot\)', a bot at this table", seen)
    finally:
        kill_all(procs)
    assert status == 1 and ("bandit-lan: the host refused your name: 'Ada' shares its first word with 'Ada (bot)', a "
                            "bot at this table: a person and a bot must not, or nobody could tell them apart; pick "
                            "another name with --name") in said, said


def test_s5_1_s6_2_a_second_host_of_one_identity_is_told_and_joining_it_says_how(tmp_path: Path) -> None:
    """Two `host --table Friday` from one state directory: one identity, one instance name
    (§5.1), so the newer hides the older in the list, and nobody joins either from there
    (§6.2). The second host is told so as it starts, and the refused join says what to
    do (another --state-dir); neither said anything of it."""
    table, state, seen = f"Twin{os.getpid()}", str(tmp_path / "h"), []
    first = bandit("host", "--headless", "--table", table, "--bind", "127.0.0.1", "--state-dir", state, *LO)
    procs = [first]
    try:
        where = read_until(first, r"on (127\.0\.0\.1:\d+)", seen).group(1)
        read_until(first, "Others join with", seen)
        second = bandit("host", "--headless", "--table", table, "--bind", "127.0.0.1", "--state-dir", state, *LO)
        procs.append(second)
        said: list[str] = []
        read_until(second, f'Your identity already hosts a table named "{table}" on the LAN \\(at 127.0.0.1:{where.split(":")[1]}',
                   said, timeout=30)
        assert "To host a second table, start it with another --state-dir." in "".join(said), said
        joiner = bandit("join", "--peer", where, "--headless", "--state-dir", state)
        procs.append(joiner)
        status, out = finish(joiner, [])
        assert status == 1 and "§6.2" in out and "join with another --state-dir" in out, out
    finally:
        kill_all(procs)
