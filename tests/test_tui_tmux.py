"""The real `bandit-lan play` in tmux: a person (keystrokes) against three bot peers in
their own processes, through a whole round with a snap to the round-end screen, a
resize, and leaving with the log still valid (R4, R6, R8, R9).

The screen is read with `tmux capture-pane`; waiting is on the pane's output (streamed
by `tmux pipe-pane` into a FIFO), never on a fixed sleep.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from itertools import count
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_SERVERS = count()  # each session gets its own tmux server (a killed one may still be exiting)

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed: the terminal client is tested in tmux"),
]


class Tmux:
    """One detached tmux server and session running a command at a fixed size."""

    def __init__(self, root: Path, command: list[str], columns: int = 80, rows: int = 24) -> None:
        self.socket = f"bandit-lan-test-{os.getpid()}-{next(_SERVERS)}"
        self.fifo = root / "pane.fifo"
        os.mkfifo(self.fifo)
        # the pane stays after the command (`cat` holds it until the server is killed)
        shell = " ".join(_quote(c) for c in command) + "; status=$?; echo; echo EXITED $status; exec cat >/dev/null"
        self.tmux("new-session", "-d", "-s", "t", "-x", str(columns), "-y", str(rows), "-c", str(ROOT),
                  "-e", f"PYTHONPATH={ROOT}", "-e", "PYTHONUNBUFFERED=1", shell)
        self.tmux("set-option", "-t", "t", "status", "off")
        self.tmux("pipe-pane", "-o", "-t", "t", f"cat > {_quote(str(self.fifo))}")
        self._reader = os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK)

    def tmux(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, "-f", os.devnull, *args], capture_output=True, text=True)
        if out.returncode != 0:
            raise AssertionError(f"tmux {args[0]} failed ({out.returncode}): {out.stderr.strip()}")
        return out.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "t")

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.tmux("send-keys", "-t", "t", key)

    def wait_for(self, predicate: Callable[[str], bool], what: str, timeout: float = 60.0) -> str:
        """Wait until the pane shows what `predicate` accepts, waking on its output."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if predicate(text):
                return text
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"the screen never showed {what}; it shows:\n{text}")
            ready, _, _ = select.select([self._reader], [], [], min(left, 1.0))
            if ready:
                try:
                    os.read(self._reader, 1 << 16)
                except BlockingIOError:
                    pass

    def wait_text(self, *needles: str, timeout: float = 60.0) -> str:
        return self.wait_for(lambda t: all(n in t for n in needles), " and ".join(map(repr, needles)), timeout)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
        os.close(self._reader)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@contextmanager
def headless_host(root: Path, *options: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`bandit-lan host --headless` on 127.0.0.1 (`options`: seats, a code, …) beside the
    terminal under test: the process (its output, errors included, on `stdout`) and the
    address it listens on. Killed at the end."""
    host = subprocess.Popen([sys.executable, "-m", "cli", "host", "--headless", "--no-discovery", "--bind", "127.0.0.1",
                             "--state-dir", str(root / "host"), *options], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert host.stdout is not None
        where = next(m.group(1) for line in host.stdout if (m := re.search(r"on (127\.0\.0\.1:\d+)", line)))
        yield host, where
    finally:
        host.kill()
        host.wait()


def play_command(root: Path) -> list[str]:
    return [sys.executable, "-m", "cli", "play", "--bots", "3", "--name", "Ana", "--seed", "5",
            "--state-dir", str(root / "state"), "--log-dir", str(root / "logs")]


@pytest.fixture
def play(tmp_path: Path) -> Iterator[Tmux]:
    session = Tmux(tmp_path, play_command(tmp_path))
    try:
        yield session
    finally:
        session.close()


def my_rows(text: str) -> list[str]:
    """My tableau's two card rows (the screen's rows 11 and 12)."""
    rows = text.splitlines()
    return [rows[11].strip(), rows[12].strip()]


def values(row: str) -> dict[str, int]:
    """Slot key -> value of the cards of a tableau row whose value is shown."""
    return {key: int(value) for key, value in re.findall(r"([a-z])\[\s*(-?\d+)\]", row)}


def top_value(text: str) -> int | None:
    """The value on the discard pile (middle band of the table screen)."""
    rows = text.splitlines()
    column = rows[6].find("discard")
    found = re.match(r"\[\s*(-?\d+)\]", rows[7][column:]) if column >= 0 else None
    return int(found.group(1)) if found else None


def test_a_person_plays_a_round_with_a_snap_against_three_bot_peers(play: Tmux, tmp_path: Path) -> None:
    # R4: the two bottom cards, once; then ready
    text = play.wait_text("remember them", "Round 1")
    bottom = values(my_rows(text)[1])
    assert set(bottom) == {"a", "s"}, text
    play.keys("Enter")
    # R8: on my turn, announce Bandit at its very start, before anything else (R5)
    play.wait_text("Your turn: x draw", timeout=90)
    play.keys("b")
    text = play.wait_text("Bandit by you")
    # R6: then (the pile is quiet) snap a card: a bottom card that matches the top if any
    top = top_value(text)
    slot = next((k for k, v in bottom.items() if v == top), "q")
    for _ in range(3):  # a bot's snap may cover the pile between my two keys: the client cancels mine
        before = my_rows(play.screen())
        play.keys("Space", slot)
        after = play.wait_for(lambda t: my_rows(t) != before or "snap cancelled" in t, "the snap resolved")
        if my_rows(after) != before:
            break
        play.wait_for(lambda t: "snap cancelled" not in t, "the message gone", timeout=10)
    rows = my_rows(after)
    assert f"{slot} ··" in " ".join(rows) or "e[" in rows[0], after  # matched: slot emptied; else a penalty card
    # and play the turn (option A)
    play.wait_text("Your turn: x draw")
    play.keys("x")
    text = play.wait_text("You drew")
    play.keys("z")
    text = play.wait_for(lambda t: "z discard it" not in t, "the drawn card discarded")
    if "z skip" in text:
        play.keys("z")  # a power (R3): skip it
    # a resize is followed at once
    play.tmux("resize-window", "-t", "t", "-x", "100", "-y", "30")
    wide = play.wait_for(lambda t: len(t.splitlines()) >= 30 and t.splitlines()[29].startswith(" Space snap"),
                         "the help bar on the 30th row")
    assert any(len(row) > 80 for row in wide.splitlines())
    play.tmux("resize-window", "-t", "t", "-x", "80", "-y", "24")
    # R9: the two final turns, then every card face up, scores and the round's audit
    text = play.wait_text("Round 1 is over", "Audit of this round: ✓", timeout=120)
    assert "You announced Bandit with" in text
    assert re.search(r"You\s+(?:(?:\[\s*-?\d+\]|··)\s*)*\[\s*-?\d+\]", text), text  # (a slot a snap emptied: ··)
    # leaving asks first, then the log is closed valid
    play.keys("Enter")
    play.wait_for(lambda t: "Audit of this round" not in t, "the table again")
    play.keys("C-c")
    play.wait_text("Leave the table?")
    play.keys("y")
    text = play.wait_text("EXITED", timeout=60)
    assert re.search(r"You left the table after \d+ rounds?\.", text) and "EXITED 0" in text, text  # no failure
    # (said before the screen opened, as the bots were started: a blank terminal before)
    assert "Seating you and 3 bots at a table on 127.0.0.1 (game to" in text, text
    # every other seat's log holds the game up to my leave and audits as intact (§10.2)
    logs = sorted((tmp_path / "logs").glob("*.bandit-log"))
    assert len(logs) == 4, text
    for log in logs[1:]:
        audit = subprocess.run([sys.executable, "-m", "cli", "audit", "--brief", str(log)], cwd=ROOT,
                               env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
        assert audit.returncode == 0 and "Ana left the table" in audit.stdout, audit.stdout + audit.stderr


@pytest.mark.parametrize("answer", ["Enter", "n"])
def test_s11_3_after_a_crash_the_next_play_offers_the_game_its_bots_still_wait_in(
        play: Tmux, tmp_path: Path, answer: str) -> None:
    """The player's `play` is killed (a crash: no leave). Its bots wait for it (§11.3),
    so running `play` again first asks whether to go back to that game. Enter goes back:
    the log is replayed, the table reconnects and the game goes on. n leaves it at once
    (§9.8), so its bots end it now instead of waiting, and a new game starts. Either
    way, leaving then ends the game with every log intact."""
    play.wait_text("remember them", "Round 1")
    shell = play.tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip()
    pid = int(subprocess.run(["pgrep", "-P", shell, "-f", "cli play"], capture_output=True, text=True).stdout.split()[0])
    os.kill(pid, signal.SIGKILL)
    play.wait_text("EXITED 137")
    first_game = {log.name.split("-")[0] for log in (tmp_path / "logs").glob("*.bandit-log")}
    again_root = tmp_path / "again"
    again_root.mkdir()
    again = Tmux(again_root, play_command(tmp_path))
    try:
        text = again.wait_text("Go back to it? (n: leave it, then start a new one) [Y/n]")
        assert re.search(r"Your last game stopped \d+ s ago and its bots wait for you (1 min( \d+ s)?|2 min) more\.", text), text
        again.keys(answer, *(["Enter"] if answer != "Enter" else []))
        if answer == "Enter":
            again.wait_text("Resumed the game from your log", timeout=60)
            text = again.wait_text("Back at the table: reconnected to ", timeout=60)
            back = re.search(r"Back at the table: reconnected to (\w+) \(bot\), (\w+) \(bot\) and (\w+) \(bot\)\.",
                             " ".join(text.split()))
            assert back and set(back.groups()) == {"Ada", "Bo", "Cy"}, text  # (in seat order, which the lobby drew)
        else:
            again.wait_text("remember them", "Round 1", timeout=60)  # a new game, dealt
        again.keys("C-c")
        again.wait_text("Leave the table?")
        again.keys("y")
        text = again.wait_text("EXITED", timeout=60)
        assert "EXITED 0" in text, text
    finally:
        again.close()
        subprocess.run(["pkill", "-f", str(tmp_path / "state")], capture_output=True)  # (bots, if the test failed)
    logs = sorted((tmp_path / "logs").glob("*.bandit-log"))
    assert len(logs) == (4 if answer == "Enter" else 8)
    for log in logs:
        audit = subprocess.run([sys.executable, "-m", "cli", "audit", "--brief", str(log)], cwd=ROOT,
                               env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
        why = ("they chose not to go back to it" if answer == "n" and log.name.split("-")[0] in first_game
               else "the player chose to leave")
        assert audit.returncode == 0 and f"Ana left the table ({why})" in audit.stdout, audit.stdout + audit.stderr


def test_R4_s11_3_a_seat_killed_during_its_look_is_shown_what_is_left_of_it_when_taken_back(tmp_path: Path) -> None:
    """The player's `play` is killed 4 s or more into the look at the bottom cards; `play
    --resume` shows the cards again for what is left of R4.3's 10 s (its journal kept
    when the look began), not for 10 s anew, and counts it down."""
    command = [sys.executable, "-m", "cli", "play", "--bots", "1", "--name", "Ana", "--seed", "5",
               "--state-dir", str(tmp_path / "state"), "--log-dir", str(tmp_path / "logs")]
    first = Tmux(tmp_path, command)
    try:
        text = first.wait_for(lambda t: re.search(r"when done \(0:0[1-6]\)", t) is not None, "the look 4 s in")
        shell = first.tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip()
        pid = int(subprocess.run(["pgrep", "-P", shell, "-f", "cli play"], capture_output=True, text=True).stdout.split()[0])
        os.kill(pid, signal.SIGKILL)
        first.wait_text("EXITED 137")
        left = int(re.findall(r"when done \(0:0(\d)\)", first.screen())[-1])
    finally:
        first.close()
    again_root = tmp_path / "again"
    again_root.mkdir()
    again = Tmux(again_root, [sys.executable, "-m", "cli", "play", "--resume", "--state-dir", str(tmp_path / "state")])
    try:
        text = again.wait_text("remember them", "Round 1")
        shown = int(re.findall(r"when done \(0:(\d\d)\)", text)[0])
        assert shown <= min(left + 2, 9), text  # (the journal's last mark of life: at most 2 s before the kill)
        again.wait_for(lambda t: f"when done (0:{shown - 1:02d})" in t, "the look counted down", timeout=10)
        again.wait_for(lambda t: "remember them" not in t, "the look over", timeout=15)
        again.keys("C-c")
        again.wait_text("Leave the table?")
        again.keys("y")
        assert "EXITED 0" in again.wait_text("EXITED", timeout=60)
    finally:
        again.close()
        subprocess.run(["pkill", "-f", str(tmp_path / "state")], capture_output=True)  # (the bot, if the test failed)


def test_a_sure_snap_in_a_real_terminal_on_the_in_process_table(tmp_path: Path) -> None:
    """The client on `tests/tui_launcher.py` (an in-process table dealt so that your
    bottom-left card matches the first discard): Space, a — it matched (R6)."""
    command = [sys.executable, str(ROOT / "tests" / "tui_launcher.py"), "--snap-deal", "--think", "5"]
    screen = Tmux(tmp_path, command)
    try:
        text = screen.wait_text("remember them", "a[ 8] s[ 2]")
        assert top_value(text) == 8
        screen.keys("Space", "a")
        text = screen.wait_for(lambda t: "a ··" in my_rows(t)[1], "my bottom-left slot emptied")
        assert "You snapped an 8 from your bottom-left slot — it matched." in text
        screen.keys("C-c", "y")
        screen.wait_text("EXITED 0")
    finally:
        screen.close()


def test_why_a_join_on_a_terminal_failed_is_still_on_the_terminal_once_the_screen_closes(tmp_path: Path) -> None:
    """A person's `join` runs its lobby full screen: what it said on stderr as it failed
    (here: no table at that address) went away with the screen, leaving only an exit
    status. It is held while the screen is up, and said once it is closed."""
    with socket.socket() as unused:  # (a port nobody listens on)
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    command = [sys.executable, "-m", "cli", "join", "--peer", f"127.0.0.1:{port}", "--state-dir", str(tmp_path / "s")]
    screen = Tmux(tmp_path, command)
    try:
        text = screen.wait_text("EXITED 1")
        assert f"bandit-lan: nothing answers at 127.0.0.1:{port}" in text, text
    finally:
        screen.close()


def test_a_person_s_join_by_table_name_says_on_the_screen_that_it_looks_for_it(tmp_path: Path) -> None:
    """`join NAME` at a terminal looks for the table before the lobby screen: the screen
    that is up says so (before, the line was printed under it, lost, and the words
    printed after the game ran into it); what it found (nothing, here) is said once the
    screen closes."""
    command = [sys.executable, "-m", "cli", "join", "NoSuchTable", "--timeout", "2", "--name", "zed",
               "--state-dir", str(tmp_path / "s")]
    screen = Tmux(tmp_path, command)
    try:
        text = screen.wait_text("Joining 'NoSuchTable'", "Looking for it on the LAN…")
        text = screen.wait_text("EXITED 1")
        assert "Looking for" not in text, text
        assert "bandit-lan: no table named 'NoSuchTable' found on the LAN (looked for 2 s)" in text, text
    finally:
        screen.close()


def test_ctrl_c_while_a_person_s_join_looks_for_its_table_leaves_at_once(tmp_path: Path) -> None:
    """The screen that looks for the table by name offers "Ctrl-C leave": the key is read
    while the search runs (it was swallowed, the search ran its whole --timeout and then
    said no table was found, exit 1); it leaves at once, with the status of an interrupt."""
    command = [sys.executable, "-m", "cli", "join", "NoSuchTable", "--timeout", "120", "--name", "zed",
               "--state-dir", str(tmp_path / "s")]
    screen = Tmux(tmp_path, command)
    try:
        screen.wait_text("Looking for it on the LAN…", "Ctrl-C leave")
        screen.keys("C-c")
        text = screen.wait_text("EXITED", timeout=30)
        assert "EXITED 130" in text and "no table named" not in text, text
    finally:
        screen.close()


@pytest.mark.xdist_group("mdns")  # (announced on loopback, as the other mDNS tests do, one at a time)
def test_a_table_joined_by_name_shows_the_host_fingerprint_as_announced_not_verified(tmp_path: Path) -> None:
    """Found on the LAN without --fingerprint, the host's fingerprint was checked only
    against the host's own announcement, which anyone on the LAN can make: the join
    screen says so (it said "(verified)")."""
    table = f"Den{os.getpid()}"  # (a name of its own: other tables may be announced on loopback meanwhile)
    host = subprocess.Popen([sys.executable, "-m", "cli", "host", "--headless", "--table", table, "--seats", "3",
                             "--bind", "127.0.0.1", "--interface", "127.0.0.1", "--state-dir", str(tmp_path / "host")],
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    screen = None
    try:
        assert host.stdout is not None
        fingerprint = next(m.group(1) for line in host.stdout if (m := re.search(r"Your fingerprint: (\S+)", line)))
        screen = Tmux(tmp_path, [sys.executable, "-m", "cli", "join", table, "--interface", "127.0.0.1", "--name",
                                 "zed", "--state-dir", str(tmp_path / "s")], columns=160)
        text = " ".join(screen.wait_text("2 of 3").split())
        assert f"Host fingerprint {fingerprint} (as announced on the LAN, which anyone on it could fake; compare it " \
               "with the host's screen)." in text and "verified" not in text, text
    finally:
        if screen is not None:
            screen.close()
        host.kill()
        host.wait()


def test_play_says_on_the_screen_the_name_the_others_and_the_logs_know_you_by(tmp_path: Path) -> None:
    """The screen calls its player "You", the standings, --json and the logs by their
    name (the login name, without --name): the table log says which, first."""
    import getpass

    command = [sys.executable, "-m", "cli", "play", "--bots", "1", "--state-dir", str(tmp_path / "s")]
    screen = Tmux(tmp_path, command, columns=160)
    try:
        screen.wait_text(f"You play as {getpass.getuser()} (choose with --name).")
    finally:
        screen.close()


def test_join_target_is_kept_by_a_person_s_join_too(tmp_path: Path) -> None:
    """`join --target 50` leaves a table that plays to 100 on a terminal as it does
    headless (a person was seated at it), and before the seating is signed (after it,
    the host's game began and ended at once); the reason is on the terminal once the
    screen has closed, and the host still waits for players."""
    with headless_host(tmp_path, "--seats", "2") as (host, where):
        screen = Tmux(tmp_path, [sys.executable, "-m", "cli", "join", "--peer", where, "--target", "50", "--name", "Ana",
                                 "--state-dir", str(tmp_path / "guest")])
        try:
            text = screen.wait_text("EXITED 1")
            assert "bandit-lan: this table plays to 100, not 50; leaving before the seating is signed" in " ".join(
                text.split()), text  # (broken at a space to the pane's 80 columns)
            assert host.poll() is None  # (no game began: the host's lobby goes on)
        finally:
            screen.close()


@pytest.mark.parametrize("given", ["piped", "typed"])
def test_join_code_from_the_input_keeps_a_person_at_the_table(tmp_path: Path, given: str) -> None:
    """`join --code -` as the README shows it: the code piped in (`printf … | bandit-lan
    join …`), or typed at a prompt that does not show it. The person then plays full
    screen, their keys read from the terminal: the piped input used to seat a full-screen
    client with no keyboard, which left the table at once, ending the game for all."""
    with headless_host(tmp_path, "--seats", "2", "--code", "sesame") as (host, where), ExitStack() as closing:
        join = [sys.executable, "-m", "cli", "join", "--peer", where, "--code", "-", "--name", "Ana",
                "--state-dir", str(tmp_path / "guest"), "--log-dir", str(tmp_path / "logs")]
        command = ["sh", "-c", "printf 'sesame\\n' | " + " ".join(_quote(c) for c in join)] if given == "piped" else join
        screen = Tmux(tmp_path, command)
        closing.callback(screen.close)
        if given == "typed":
            screen.wait_text("Table code:")
            screen.keys("sesame")
            assert "sesame" not in screen.screen()
            screen.keys("Enter")
        text = screen.wait_text("remember them", "Round 1")  # (R4: the person's own bottom cards, full screen)
        assert "? help" in text.splitlines()[0], text  # (the table's status line: not a headless seat's output)
        # Ana filled the table, so the game began at once: the lobby's line about the host's
        # fingerprint (joined by address, trusted on first use) is the table log's first line.
        assert "trusted on first use; compare it with the host's screen" in " ".join(text.split()), text
        screen.keys("?")  # (a key read from the terminal, the input being the pipe)
        screen.wait_text("Space + your slot")
        screen.keys("Escape")
        screen.keys("C-c")
        screen.wait_text("Leave")
        screen.keys("y")
        text = screen.wait_text("EXITED 0")
        assert "You left the table" in text, text
        assert "trusted on first use; compare it with the host's screen" in " ".join(text.split()), text  # (broken at spaces)
        out, _ = host.communicate(timeout=30)
        assert "Ana left the table (the player chose to leave)" in out, out


@pytest.mark.parametrize("who", ["host", "guest"])
def test_leaving_the_lobby_on_purpose_says_so_and_is_no_failure(tmp_path: Path, who: str) -> None:
    """Ctrl-C, then yes, in the lobby: the host closes its table, a guest leaves it. Each
    is told so once the screen has closed, and the exit status is 0 (a choice, not a
    fault: it used to say nothing and exit 1)."""
    with ExitStack() as closing:
        if who == "host":
            command = [sys.executable, "-m", "cli", "host", "--seats", "3", "--no-discovery", "--bind", "127.0.0.1",
                       "--state-dir", str(tmp_path / "host")]
        else:
            _, where = closing.enter_context(headless_host(tmp_path, "--seats", "3"))
            command = [sys.executable, "-m", "cli", "join", "--peer", where, "--name", "Ana",
                       "--state-dir", str(tmp_path / "guest")]
        screen = Tmux(tmp_path, command)
        closing.callback(screen.close)
        screen.wait_text("1 of 3" if who == "host" else "2 of 3")
        screen.keys("C-c")
        screen.wait_text("Close the table?" if who == "host" else "Leave this table?")
        screen.keys("y")
        text = screen.wait_text("EXITED")
        said = "You closed the table before the game began." if who == "host" else "You left the table before the game began."
        assert said in text and "EXITED 0" in text, text


def test_giving_up_at_the_code_prompt_says_the_player_did_not_join(tmp_path: Path) -> None:
    """Esc at the join screen's code prompt: the player never sat, so not "You left the
    table before the game began" but that they did not join it."""
    with headless_host(tmp_path, "--seats", "3", "--code", "sesame") as (_, where), ExitStack() as closing:
        screen = Tmux(tmp_path, [sys.executable, "-m", "cli", "join", "--peer", where, "--name", "Ana",
                                 "--state-dir", str(tmp_path / "guest")])
        closing.callback(screen.close)
        screen.wait_text("Esc give up")
        screen.keys("Escape")
        text = screen.wait_text("EXITED")
        assert f"You did not join {where}." in text and "EXITED 0" in text and "You left" not in text, text


def test_a_typed_address_nobody_answers_at_is_said_on_the_picker_which_stays_up(tmp_path: Path) -> None:
    """The table picker: an address typed in (p) that nobody answers at is said on the
    picker, which stays up for another try, instead of ending the program; leaving the
    picker then joins nothing, and is no failure."""
    with socket.socket() as unused:  # (a port nobody listens on)
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    screen = Tmux(tmp_path, [sys.executable, "-m", "cli", "join", "--name", "Ana", "--state-dir", str(tmp_path / "s")])
    try:
        screen.wait_text("Tables on this network")
        screen.keys("p")
        for key in f"127.0.0.1:{port}":
            screen.keys(key)
        screen.keys("Enter")
        text = screen.wait_text(f"Nothing answers at 127.0.0.1:{port}")
        assert "Tables on this network" in text and "EXITED" not in text, text
        screen.keys("q")
        text = screen.wait_text("EXITED")
        assert "You joined no table." in text and "EXITED 0" in text, text
    finally:
        screen.close()


def test_a_person_is_at_the_keyboard_only_with_a_terminal_in_the_foreground(tmp_path: Path) -> None:
    """Who plays full screen (`at_a_terminal`): in the terminal's foreground, with its
    keys or input piped in (`printf … | bandit-lan join --code -`), yes; input from
    /dev/null or closed, output to a file, a terminal that cannot draw (`TERM=dumb`: it
    showed the screen's codes as text), or a job sent to the background, no: those play
    headless (a background job that opened the full screen was stopped by the terminal,
    holding up the table; output to a file drew the screen into it; a closed input was a
    traceback)."""
    probe = "import cli.lobby_common as c; print('PERSON', c.at_a_terminal())"
    q = _quote(sys.executable)
    run = f"{q} -c \"{probe}\""
    script = (f"printf 'x\\n' | {run}; {run}; {run} </dev/null; {run} >out.txt; cat out.txt; {run} <&-; "
              f"TERM=dumb {run}; set -m; printf 'x\\n' | {run} & wait; {run} & wait")
    screen = Tmux(tmp_path, ["sh", "-c", f"cd {_quote(str(tmp_path))} && {script}"])
    try:
        text = screen.wait_text("EXITED")
        assert re.findall(r"PERSON (\w+)", text) == ["True", "True", "False", "False", "False", "False", "False", "False"], text
    finally:
        screen.close()


def test_s11_3_the_offer_to_go_back_is_asked_at_the_terminal_when_the_input_is_a_pipe(tmp_path: Path) -> None:
    """`printf code | bandit-lan join --code -` with a game still waiting: the question
    whether to go back to it is asked at the terminal, whose answer counts (it read the
    pipe, found it ended, and the command gave up)."""
    probe = ("import sys; from cli.resume import ask_at_the_terminal as ask; sys.stdin.readline(); "
             "print('GOT', repr(ask('Go back to it? ')))")
    screen = Tmux(tmp_path, ["sh", "-c", f"printf 'sesame\\n' | {_quote(sys.executable)} -c \"{probe}\""])
    try:
        screen.wait_text("Go back to it?")
        screen.keys("n", "Enter")
        assert "GOT 'n'" in screen.wait_text("EXITED 0")
    finally:
        screen.close()


def test_s11_3_a_person_taking_back_a_seat_stopped_while_signing_sees_it_and_may_give_it_up(tmp_path: Path) -> None:
    """carol's process dies once her roster signature is out (`tests.deaf_signer`: she
    never reads bob's); alice and bob begin the game. Her `join --resume` at a terminal
    shows what it does while it signs again (it is as deaf to bob's signature, so it
    waits): before, one line printed under the full screen, cut off, for up to 30 s, and
    Ctrl-C did nothing. She gives the seat up (asked first): both others end at once
    naming her, she is told so once the screen closes, exit 0, and her journal goes."""
    from p2p.audit import audit
    from p2p.journal import unfinished_journals
    from tests.cli_support import bandit, finish, kill_all, read_until

    logs = tmp_path / "logs"
    common = ("--bind", "127.0.0.1", "--log-dir", str(logs))
    host = bandit("host", "--headless", "--table", "Porch", "--name", "alice", "--seats", "3", "--no-discovery",
                  "--state-dir", str(tmp_path / "a"), *common)
    procs = [host]
    session = None
    try:
        host_seen: list[str] = []
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", host_seen).group(1)
        carol = bandit("join", "--headless", "--peer", where, "--name", "carol", "--state-dir", str(tmp_path / "c"),
                       *common, program=("tests.deaf_signer", "2"))
        procs.append(carol)
        read_until(host, r"2 of 3 seats taken", host_seen)
        bob = bandit("join", "--headless", "--peer", where, "--name", "bob", "--state-dir", str(tmp_path / "b"),
                     *common)
        procs.append(bob)
        bob_seen: list[str] = []
        read_until(host, r"^game id ", host_seen)
        read_until(bob, r"^game id ", bob_seen)
        carol.send_signal(signal.SIGKILL)
        carol.wait()
        session = Tmux(tmp_path, [sys.executable, "-m", "tests.deaf_signer", "2", "join", "--resume", "--state-dir",
                                  str(tmp_path / "c"), *common], columns=100)
        text = session.wait_text("Taking your seat back", "as carol (seat 2)", "sign the seating again",
                                 "Ctrl-C give up this seat")
        session.keys("C-c")
        session.wait_text("Give up this seat?", "giving up ends their game")
        session.keys("y")
        text = session.wait_text("EXITED", timeout=30)
        assert "You gave up your seat before the game began; the other players were told." in text, text
        assert "EXITED 0" in text, text
        assert not unfinished_journals(tmp_path / "c")  # (nothing to go back to)
        for p, seen in ((host, host_seen), (bob, bob_seen)):
            rc, out = finish(p, seen, 30)  # (at once: not after the grace period)
            assert rc == 1 and "carol left before the game began (they gave up their seat)" in out, out
            ended = audit(Path(re.search(r"^Log: (\S+)", out, re.M).group(1)))  # type: ignore[union-attr]
            assert ended.ok and ended.left is not None and ended.left.seat == 1, ended.first_failure
    finally:
        kill_all(procs)
        if session is not None:
            session.close()


def test_s11_3_ctrl_z_suspends_the_client_and_fg_brings_its_screen_back(tmp_path: Path) -> None:
    """Ctrl-Z in the full-screen client (raw mode: the terminal sends no SIGTSTP) stops it
    as any terminal program, back at the shell with its screen put away; `fg` draws it
    again (the table counts the time it did not run against nobody, §11.3)."""
    screen = Tmux(tmp_path, ["bash", "--norc", "--noprofile", "-i"])
    try:
        screen.keys(f"PS1='$ ' {_quote(sys.executable)} tests/tui_launcher.py --players 2 --think 30", "Enter")
        screen.wait_text("remember them", "Round 1")
        screen.keys("?")  # (the client reads its keys: the terminal is in raw mode, so ^Z is a key, not a signal)
        screen.wait_text("Space + your slot")
        screen.keys("Escape", "C-z")
        text = screen.wait_text("Stopped", timeout=15)
        assert "remember them" not in text, text  # (the shell's own screen again)
        screen.keys("fg", "Enter")
        screen.wait_text("Round 1", "? help")
        screen.keys("?")  # (a key the client answers: it reads the terminal again, not only its old picture)
        screen.wait_text("Space + your slot")
        screen.keys("Escape", "C-c")
        screen.wait_text("Leave")
        screen.keys("y")
        screen.wait_for(lambda t: "? help" not in t, "the client gone")
        screen.keys("exit", "Enter")
        assert "EXITED 0" in screen.wait_text("EXITED")
    finally:
        screen.close()


def _playing_in_bash(tmp_path: Path) -> tuple[Tmux, str, int]:
    """`play` started at an interactive bash in tmux, up to its first round: the screen,
    the command line and the client's process id."""
    screen = Tmux(tmp_path, ["bash", "--norc", "--noprofile", "-i"])
    command = " ".join(_quote(c) for c in play_command(tmp_path))
    try:
        screen.keys(f"PS1='$ ' {command}", "Enter")
        screen.wait_text("remember them", "Round 1")
        found = subprocess.run(["pgrep", "-f", f"cli play .*{tmp_path}"], capture_output=True, text=True)
        return screen, command, int(found.stdout.split()[0])
    except BaseException:
        screen.close()
        subprocess.run(["pkill", "-f", str(tmp_path / "state")], capture_output=True)  # (its bots)
        raise


def test_s11_3_after_a_kill_in_a_shell_the_offer_is_asked_on_the_terminal_s_own_screen(tmp_path: Path) -> None:
    """`kill -9` of the client, then the same `play` again in the same
    interactive shell, which puts the line discipline back itself but not the screen: the
    offer to go back was asked on the dead table's screen, cursor hidden. The killed
    client's mark says its screen was left up; the offer is said on the terminal's own."""
    screen, command, pid = _playing_in_bash(tmp_path)
    try:
        os.kill(pid, signal.SIGKILL)
        screen.wait_text("Killed")
        screen.keys(command, "Enter")
        text = screen.wait_text("Go back to it?")
        assert "Your last game stopped" in text and "remember them" not in text, text
        shown = screen.tmux("display-message", "-p", "-t", "t", "#{alternate_on} #{cursor_flag}").strip()
        assert shown == "0 1", shown  # (off the alternate screen, the cursor shown)
        screen.keys("Enter")
        screen.wait_text("Round 1", "? help", timeout=60)
        screen.keys("C-c")
        screen.wait_text("Leave the table?")
        screen.keys("y")
        screen.wait_text("You left the table", timeout=60)
    finally:
        screen.close()
        subprocess.run(["pkill", "-f", str(tmp_path / "state")], capture_output=True)  # (bots, if the test failed)


@pytest.mark.parametrize("back", ["--resume", "offered"])
def test_s11_3_a_seat_taken_back_after_joining_by_address_shows_the_host_s_fingerprint_again(
        tmp_path: Path, back: str) -> None:
    """A person who joined by address (no --fingerprint) trusted the host's fingerprint on
    first use, and reads it as the table log's first line and again on leaving. Killed
    mid-game and taken back (`join --resume`, or the same `join` going back when offered),
    the seat shows that line again, in the same words: its journal keeps how it joined."""
    guest = ["--state-dir", str(tmp_path / "guest"), "--log-dir", str(tmp_path / "logs")]
    with headless_host(tmp_path, "--seats", "2") as (host, where), ExitStack() as closing:
        join = [sys.executable, "-m", "cli", "join", "--peer", where, "--name", "Ana", *guest]
        first = Tmux(tmp_path, join)
        closing.callback(first.close)
        text = " ".join(first.wait_text("remember them", "Round 1").split())
        said = re.search(r"\w+'s fingerprint is [A-Z0-9-]+: you joined by address, so it was trusted on first use; "
                         r"compare it with the host's screen \(or join with --fingerprint\)\.", text)
        assert said, text
        shell = first.tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip()
        pid = int(subprocess.run(["pgrep", "-P", shell, "-f", "cli join"], capture_output=True, text=True).stdout.split()[0])
        os.kill(pid, signal.SIGKILL)
        first.wait_text("EXITED 137")
        again_root = tmp_path / "again"
        again_root.mkdir()
        again = Tmux(again_root, [sys.executable, "-m", "cli", "join", "--resume", *guest] if back == "--resume"
                     else join)
        closing.callback(again.close)
        if back == "offered":
            again.wait_text("Go back to it?")
            again.keys("Enter")
        text = again.wait_text("Back at the table: reconnected to ")
        assert said.group(0) in " ".join(text.split()), text
        again.keys("C-c")
        again.wait_text("Leave the table?")
        again.keys("y")
        text = again.wait_text("EXITED", timeout=60)
        assert "EXITED 0" in text and "You left the table" in text, text
        assert said.group(0) in " ".join(text.split()), text  # (broken at spaces to the pane's width)


def test_join_code_from_the_input_is_left_unread_by_a_person_s_join_whose_table_is_not_found(tmp_path: Path) -> None:
    """`printf code | bandit-lan join NAME --code -` at a terminal: the screen looks for
    the table first, and the code is read only once it is found; here it is not, so the
    code is still in the pipe when the command ends."""
    join = [sys.executable, "-m", "cli", "join", "NoSuchTable", "--code", "-", "--timeout", "1", "--name", "zed",
            "--state-dir", str(tmp_path / "s")]
    script = f"printf 'sesame\\n' | {{ {' '.join(_quote(c) for c in join)}; echo \"REST [$(cat)]\"; }}"
    screen = Tmux(tmp_path, ["sh", "-c", script])
    try:
        text = screen.wait_text("EXITED")
        assert "bandit-lan: no table named 'NoSuchTable' found on the LAN" in text, text
        assert "REST [sesame]" in text, text
    finally:
        screen.close()


def test_s11_3_a_client_in_the_background_leaves_its_table_when_terminated(tmp_path: Path) -> None:
    """Ctrl-Z, `bg`, then SIGTERM (`kill PID`): the client, in the background of its
    terminal, draws nothing over the shell's `&` line, reads no key typed at the shell
    and sets no mode of the terminal (any of which stops it again: SIGTTIN, SIGTTOU, and a
    stopped process never hears the SIGTERM); it leaves the table and is done, the
    terminal back on its own screen with the cursor shown."""
    screen, _command, pid = _playing_in_bash(tmp_path)
    try:
        screen.keys("C-z")
        screen.wait_text("Stopped", timeout=15)
        screen.keys("bg", "Enter")
        screen.wait_for(lambda t: re.search(r"&\n\S*[$#]", t) is not None, "the job running in the background")
        screen.keys("echo typed; jobs", "Enter")
        text = screen.wait_text("Running")
        assert "remember them" not in text, text  # (nothing drawn over the shell)
        os.kill(pid, signal.SIGTERM)
        screen.keys("wait %1; echo WAIT\"\"ED", "Enter")  # (the shell's own wait: a stopped job would hang it)
        screen.wait_text("WAITED", timeout=15)  # (STOP_WAIT and more: seconds, not for ever)
        text = screen.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "t")  # (with what scrolled off)
        assert "You left the table" in text, text
        shown = screen.tmux("display-message", "-p", "-t", "t", "#{alternate_on} #{cursor_flag}").strip()
        assert shown == "0 1", shown
    finally:
        screen.close()
        subprocess.run(["pkill", "-f", str(tmp_path / "state")], capture_output=True)  # (bots, if the test failed)
