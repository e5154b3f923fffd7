"""§11.3 over real sockets and processes: a peer killed with SIGKILL resumes with
`join --resume`; a cut TLS link heals by itself through a proxy that cuts it; a peer
that stays away past the grace period ends the game cleanly, and every log audits."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio

from engine import NormalBot
from engine.narrate import listed
from p2p.audit import audit
from p2p.journal import read_journal, unfinished_journals
from p2p.peer import GameSummary, TablePeer
from tests.cli_support import bandit, finish, kill_all, read_until
from tests.live_support import dealt, journal_as_signed, running, shorten_grace, start_seats, until


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def last_json(output: str) -> dict:
    return json.loads(output.strip().splitlines()[-1])


@pytest.mark.parametrize("port_taken", [False, True], ids=["its-port-free", "its-port-taken"])
def test_11_3_a_peer_killed_mid_game_resumes_and_the_game_completes(tmp_path: Path, port_taken: bool) -> None:
    """With `port_taken`, another program holds the killed peer's old port by the time it
    resumes: the lower seats' dials cannot reach it there, so it dials every seat."""
    logs = tmp_path / "logs"
    blocker = socket.socket()
    common = ("--headless", "--bind", "127.0.0.1", "--log-dir", str(logs), "--json")
    host = bandit("host", "--table", "Attic", "--name", "alice", "--seats", "3", "--no-discovery", "--target", "60",
                  "--state-dir", str(tmp_path / "a"), "--grace", "60", *common[:-1])
    procs = [host]
    try:
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", []).group(1)
        bob = bandit("join", "--peer", where, "--name", "bob", "--state-dir", str(tmp_path / "b"), *common)
        carol = bandit("join", "--peer", where, "--name", "carol",
                       "--state-dir", str(tmp_path / "c"), "--headless", "--bind", "127.0.0.1",
                       "--log-dir", str(logs))
        procs += [bob, carol]
        carol_seen: list[str] = []
        read_until(carol, r"Round 1: every shuffle", carol_seen)  # mid-game: round 2 is being dealt
        carol.send_signal(signal.SIGKILL)
        carol.wait()
        assert len(unfinished_journals(tmp_path / "c")) == 1
        if port_taken:  # another program listens there now (and never answers)
            blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # (the dead peer's links linger)
            blocker.bind(("127.0.0.1", read_journal(unfinished_journals(tmp_path / "c")[0]).port))
            blocker.listen()
        else:  # as if the player came back long after: the table's grace (60 s here) still holds
            at = time.time() - 600
            os.utime(unfinished_journals(tmp_path / "c")[0], (at, at))
        resumed = read_journal(unfinished_journals(tmp_path / "c")[0]).port
        if port_taken:  # (first at an address not this machine's: said as a fresh join says it, the seat kept)
            nowhere = bandit("join", "--resume", "--state-dir", str(tmp_path / "c"), "--headless", "--bind",
                             "192.0.2.1", "--log-dir", str(logs))
            procs.append(nowhere)
            refused = finish(nowhere, [], 60)
            assert refused[0] == 1 and ("bandit-lan: cannot resume: 192.0.2.1 is not an address of this machine: "
                                        "choose one of its own with --bind (") in refused[1], refused
        again = bandit("join", "--resume", "--state-dir", str(tmp_path / "c"), *common[:-1])
        procs.append(again)
        results = [finish(p, [], 240) for p in (bob, again, host)]
    finally:
        kill_all(procs)
        blocker.close()
    for rc, out in results:
        assert rc == 0, out
    moved = (re.escape(f"Another program uses port {resumed} (at 127.0.0.1) now, the port this seat listened at: it "
                       "listens at ") + r"\d+ instead, and dials every seat, as the others cannot reach it at "
             r"its old port \(§11\.3\)\.")
    assert (re.search(moved, results[1][1]) is not None) is port_taken, results[1][1]
    told = (r"It stopped 10 min( \d+ s)? ago, and the table waits for a player away only 1 min: the others have likely "
            r"ended it")  # (the host's --grace 60: the table's rule)
    assert (re.search(told, results[1][1]) is None) is port_taken, results[1][1]
    # carol joined by address: the host's fingerprint, trusted on first use, is said again as she resumes
    trusted = next(line for line in carol_seen if "(trusted on first use: compare it with the host's screen)" in line)
    assert trusted.strip() in results[1][1], results[1][1]
    assert last_json(results[0][1])["finished"]
    host_log, carol_log_path = (Path(re.search(r"^Log: (\S+)", out, re.M).group(1))  # type: ignore[union-attr]
                                for _, out in (results[2], results[1]))
    assert not unfinished_journals(tmp_path / "c")  # the game ended: nothing left to resume
    totals = set()
    for path in (host_log, Path(last_json(results[0][1])["log"]), carol_log_path):
        result = audit(path)
        assert result.ok and result.finished, result.first_failure
        # (killed as round 2 was dealt: round 2, which needed her shuffle, was played after her resume)
        assert len(result.rounds) >= 2, len(result.rounds)
        totals.add(tuple(sorted(result.totals.items())))
    assert len(totals) == 1  # everybody computed the same game
    carol_log = read_text_notes(carol_log_path)
    assert any("resumed after a restart" in n for n in carol_log)


def test_s11_3_a_seat_whose_terminal_hung_up_is_waited_for_and_taken_back_and_the_game_audits_fair(
        tmp_path: Path) -> None:
    """A hang-up (SIGHUP: a closed window, a dropped ssh connection) is no choice to leave:
    dee's seat goes away as a crash would for the others, who wait for it, but cleanly for
    itself, its log and journal kept; `join --resume` takes it back, and the game is
    played out, every log auditing FAIR."""
    host, where, host_seen, common = porch(tmp_path, 3, 60, 60)
    procs = [host]
    try:
        bob = bandit("join", "--peer", where, "--name", "bob", "--state-dir", str(tmp_path / "b"), *common)
        dee = bandit("join", "--peer", where, "--name", "dee", "--state-dir", str(tmp_path / "d"), *common)
        procs += [bob, dee]
        bob_seen: list[str] = []
        dee_seen: list[str] = []
        read_until(dee, r"Round 2: .* plays? first", dee_seen)  # mid-game: round 2 is under way
        dee.send_signal(signal.SIGHUP)
        status, dee_out = finish(dee, dee_seen, 60)
        waiting = read_until(bob, r"Lost the link to dee \(.*\)(, and .* either)?; waiting for dee", bob_seen).group(0)
        [journal] = unfinished_journals(tmp_path / "d")
        away = read_journal(journal).away
        again = bandit("join", "--resume", "--state-dir", str(tmp_path / "d"), *common)
        procs.append(again)
        results = [finish(p, s, 240) for p, s in ((bob, bob_seen), (again, []), (host, host_seen))]
    finally:
        kill_all(procs)
    assert status == 130, dee_out  # (cut short by its hang-up: its game goes on)
    assert re.search(r"Your seat went away from the table after \d+ rounds? \(your terminal was closed\)",
                     dee_out), dee_out
    assert "Leaving the table" not in dee_out and "check it with" not in dee_out, dee_out  # (its log stays open)
    assert "was cut short" not in dee_out, dee_out  # (its round goes on for the others, and for it once back)
    assert "(left:" not in waiting, waiting  # (no goodbye: as for a crash, §4.6)
    assert away == "their terminal was closed"
    for rc, out in results:
        assert rc == 0, out
        assert "left the table" not in out, out
    assert re.search(r"Your seat went away \d+ s ago, when your terminal was closed: taking it back\.", results[1][1])
    assert "dee is back." in results[0][1], results[0][1]
    assert not unfinished_journals(tmp_path / "d")  # the game ended: nothing left to resume
    logs = sorted((tmp_path / "logs").glob("*.bandit-log"))
    assert len(logs) == 3, logs
    totals = set()
    for path in logs:
        result = audit(path)
        assert result.ok and result.finished and result.left is None, result.first_failure
        totals.add(tuple(sorted(result.totals.items())))
    assert len(totals) == 1  # everybody computed the same game


def porch(tmp_path: Path, seats: int, target: int, grace: int):  # type: ignore[no-untyped-def]
    """alice's headless table "Porch" on 127.0.0.1 for `seats`, logs in tmp_path/logs:
    (her process, where it listens, what she printed so far, the options every seat shares)."""
    common = ("--headless", "--bind", "127.0.0.1", "--log-dir", str(tmp_path / "logs"))
    host = bandit("host", "--table", "Porch", "--name", "alice", "--seats", str(seats), "--no-discovery", "--target",
                  str(target), "--state-dir", str(tmp_path / "a"), "--grace", str(grace), *common)
    seen: list[str] = []
    try:
        return host, read_until(host, r"on (127\.0\.0\.1:\d+)", seen).group(1), seen, common
    except BaseException:
        kill_all([host])
        raise


def through(proxy, low, high) -> bytes:  # type: ignore[no-untyped-def]
    """From now on `low` dials `high` (the lower seat dials, §6.5) through `proxy`;
    returns `high`'s peer id."""
    from tests.faultproxy import LOOPBACK

    high_id: bytes = high.identity.peer_id
    low.mesh.expect(low.mesh.certificate(high_id), (LOOPBACK, proxy.port))
    low.mesh.close_link(high_id, "rerouted through the test proxy")
    return high_id


def read_text_notes(path: Path) -> list[str]:
    from p2p.log import read_log

    return [n.text for n in read_log(path).notes]


async def test_11_3_a_cut_tls_link_heals_by_itself_and_the_game_completes(tmp_path: Path) -> None:
    from p2p.roster import TableRules
    from tests.faultproxy import LOOPBACK, link_proxy
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False, rules=TableRules(target=60))
    low, high = peers[0], peers[2]  # the host sits at seat 0, so it dials the other (§6.5)
    summaries = []
    async with stack, link_proxy((LOOPBACK, high.mesh.port), delay=0.003) as proxy:
        # seat 0 dials seat 2 (§6.5): from now on through the proxy (3 ms each way)
        high_id = through(proxy, low, high)
        with trio.fail_after(180):
            async with trio.open_nursery() as nursery:

                async def run(peer) -> None:  # type: ignore[no-untyped-def]
                    summaries.append(await peer.run())

                for peer in peers:
                    nursery.start_soon(run, peer)
                await until(lambda: proxy.connections >= 1 and high_id in low.mesh.linked(), low, high)
                await until(lambda: len(low.machine.outcomes) >= 1, low)  # mid-game: round 1 scored
                proxy.cut()
                # the screen counts down to the end of the grace period (§11.3), from the
                # first processing after the loss
                await until(lambda: high.me in low.progress.waiting_for and low.me in high.progress.waiting_for
                            and low.deadlines.grace is not None and high.deadlines.grace is not None, low, high)
                for peer in (low, high):
                    assert 0 < peer.deadlines.grace - trio.current_time() <= peer.grace
                    assert peer.deadlines.turn is None and peer.deadlines.peek is None  # the timers stand (§9.6)
                proxy.restore()
                await until(lambda: not low.progress.waiting_for and not high.progress.waiting_for, low, high)
                # The countdown goes once no peer reports the link down any more: the
                # reports that it was are in flight until then (§11.3).
                await until(lambda: low.deadlines.grace is None and high.deadlines.grace is None, low, high)
    assert proxy.connections >= 2  # the link was dialled again through the proxy
    assert all(s.finished for s in summaries), [s.why for s in summaries]
    assert len({tuple(sorted(s.totals.items())) for s in summaries}) == 1
    for summary in summaries:
        result = audit(summary.log_path)
        assert result.ok and result.finished, result.first_failure
    assert any("is back" in line.text for line in high.lines)
    from p2p.log import read_log

    records = [read_log(s.log_path).messages for s in summaries]
    assert records[0] == records[1] == records[2]  # nothing lost, nothing twice, one order


async def test_11_3_a_peer_away_past_the_grace_period_ends_the_game_and_the_logs_audit(tmp_path: Path) -> None:
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False)
    for peer in peers[:2]:
        shorten_grace(peer, 1.0)
    gone = peers[2]
    async with stack:
        with trio.fail_after(60):
            async with _one_to_crash(peers, gone) as table:
                await until(lambda: peers[0].machine.round_number >= 1, peers[0])
                await table.crash()
    assert len(table.summaries) == 2 and not any(s.finished for s in table.summaries)
    for summary in table.summaries:
        assert "was away for more than 1 s" in summary.why
        result = audit(summary.log_path)
        assert result.ok and result.left is not None and result.left.seat == gone.me, result.first_failure


@dataclass
class _OneToCrash:
    """A live table whose seats all play, `gone`'s in a cancel scope of its own (`run`),
    for the test to crash it (`_one_to_crash`). The others' summaries come in as their
    games end."""

    gone: TablePeer
    run: trio.CancelScope = field(default_factory=trio.CancelScope)
    summaries: list[GameSummary] = field(default_factory=list)

    def stop(self) -> None:
        """`gone`'s program stops where it is: its tasks are cancelled, its log stays
        unclosed; its mesh runs on."""
        self.run.cancel()

    async def crash(self) -> None:
        """`gone`'s process is gone: its program stops (`stop`), and so do its links."""
        self.stop()
        await self.gone.mesh.aclose("gone")


@asynccontextmanager
async def _one_to_crash(peers: Sequence[TablePeer], gone: TablePeer) -> AsyncIterator[_OneToCrash]:
    """Start every seat of `peers` (in that order); `gone` crashes when the test says
    (`_OneToCrash.crash`). Leaving the block waits until the others' games ended."""
    table = _OneToCrash(gone)
    async with trio.open_nursery() as nursery:

        async def run(peer: TablePeer) -> None:
            if peer is gone:
                with table.run:
                    await peer.run()
            else:
                table.summaries.append(await peer.run())

        for peer in peers:
            nursery.start_soon(run, peer)
        yield table


class _AtExit(trio.abc.Instrument):
    """Calls `then` the moment `task` has exited, before any other task runs: if it was
    the last task of a task group whose body had ended, the group has just closed, and
    the task that opened it has not run on yet."""

    def __init__(self, task: trio.lowlevel.Task, then: Callable[[], None]) -> None:
        self.task, self.then = task, then

    def task_exited(self, task: trio.lowlevel.Task) -> None:
        if task is self.task:
            self.then()


async def test_11_3_a_link_that_ends_as_a_crashed_seat_s_tasks_close_starts_nothing_there(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """Ann's program is stopped mid-game (her seat's task group cancelled) while her mesh
    runs on, and one of her links (to a seat she dials, §6.5) ends just as her task group
    closes, before her run goes on. The link's task handed its end to her seat, which
    started its redial in the closed group: trio refused ("Nursery is closed to new
    arrivals"), and the link's task failed with it, taking her mesh down. A seat stands
    down as its task group begins to close: its mesh keeps what comes, nothing is
    started, and the two others end the game past the grace period, naming Ann away."""
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False)
    ann, others = peers[0], peers[1:]  # (the host sits at seat 0: she dials every other seat)
    for peer in others:
        shorten_grace(peer, 1.0)
    held = trio.Event()  # (the last task of her group waits for it as it is cancelled)
    failures: list[BaseException] = []
    async with stack:
        async with _one_to_crash(peers, ann) as table:
            await until(lambda: ann.machine.playing and ann.machine.round_number >= 1, ann)
            last: list[trio.lowlevel.Task] = []

            async def last_to_go() -> None:
                last.append(trio.lowlevel.current_task())
                try:
                    await trio.sleep_forever()
                finally:
                    with trio.CancelScope(shield=True):
                        await held.wait()

            assert ann._nursery is not None
            ann._nursery.start_soon(last_to_go)
            table.stop()  # (mid-game: on this clock, the table would play the game out in one wait)
            await trio.testing.wait_all_tasks_blocked()  # (every other task of her group is gone)
            gone = ann.mesh._peers[others[0].identity.peer_id]
            assert gone.link is not None

            def link_ends() -> None:  # (as the link's task hands up its end, `Mesh._guarded`)
                gone.link.end_reason = "connection lost (reset by peer)"
                try:
                    ann.mesh._link_ended(gone, gone.link)
                except BaseException as exc:  # (it would end the link's task, and her mesh)
                    failures.append(exc)

            at_exit = _AtExit(last[0], link_ends)
            trio.lowlevel.add_instrument(at_exit)
            held.set()
            await trio.testing.wait_all_tasks_blocked()
            trio.lowlevel.remove_instrument(at_exit)
            assert failures == []
            await table.crash()  # (her links go too)
            mock_clock.autojump_threshold = 0  # (past the others' grace period)
    assert len(table.summaries) == 2 and not any(s.finished for s in table.summaries)
    for summary in table.summaries:
        assert "was away for more than 1 s" in summary.why
        result = audit(summary.log_path)
        assert result.ok and result.left is not None and result.left.seat == ann.me, result.first_failure


async def _at_the_look(peer: TablePeer, mock_clock: trio.testing.MockClock) -> None:
    """Until `peer`'s player looks at their bottom cards (the person's turn to look:
    nothing moves), and a second on, every task settled: the moment a stop begins."""
    from engine import Phase

    await until(lambda: peer.view().phase is Phase.PEEK, peer)
    mock_clock.jump(1.0)
    await trio.testing.wait_all_tasks_blocked()


async def _play_until_storage_fails(tmp_path: Path, part: str):  # type: ignore[no-untyped-def]
    """Three live peers; mid-game the disk under seat 2's `part` ("log" or "journal")
    fills up: its descriptor is pointed at /dev/full, which fails every write with
    ENOSPC, as a full disk does. Returns the peers and their summaries, in that order
    (the list's order, which need not be the seat order: guests are seated as they come)."""
    import os

    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False, journals=True)
    full = os.open("/dev/full", os.O_WRONLY)
    async with stack:
        with trio.fail_after(60):
            async with running(peers) as summaries:
                await until(lambda: peers[2].log.messages >= 30, peers[2])
                target = peers[2].log if part == "log" else peers[2].journal
                os.dup2(full, target._out._fd)
    os.close(full)
    return peers, summaries


async def test_s10_1_a_full_disk_under_a_log_ends_the_game_cleanly_and_keeps_every_whole_record(tmp_path: Path) -> None:
    """The seat whose log fails tells its player why and leaves (§9.8): the others' game
    ends at its `leave`, their logs audit clean and name the departure, and the failed
    log holds every record written before the failure, whole, in the agreed order."""
    from p2p.log import read_log

    peers, summaries = await _play_until_storage_fails(tmp_path, "log")
    failed = summaries[2]
    assert "records could not be written here (No space left on device)" in failed.why and not failed.finished
    assert any("cannot be written here" in line.text for line in peers[2]._lines)
    for i in (0, 1):
        assert not summaries[i].finished and summaries[i].departed == peers[i].names[peers[2].me]  # (exit 0, §9.8)
        result = audit(summaries[i].log_path)
        assert result.ok and result.left is not None and result.left.seat == peers[2].me, result.first_failure
        assert "its records could not be written (No space left on device)" in result.left.why
    assert failed.departed is None
    kept, honest = read_log(failed.log_path), read_log(summaries[0].log_path)
    assert not kept.torn and kept.ended is None and len(kept.messages) >= 30
    assert kept.messages == honest.messages[: len(kept.messages)]
    cut_short = audit(failed.log_path).first_failure
    assert cut_short.section == "§10.2" and cut_short.seat is None  # it ends before the game did; nobody is blamed


async def test_s11_3_a_full_disk_under_a_journal_removes_it_and_the_seat_leaves_with_its_log_closed(tmp_path: Path) -> None:
    """A journal that misses a sent message would let a resumed seat sign another in its
    place (an equivocation): once it cannot be written it is removed, nothing can resume
    from it, and the seat leaves; its log, still fine, is closed and audits clean."""
    peers, summaries = await _play_until_storage_fails(tmp_path, "journal")
    assert "records could not be written here (No space left on device)" in summaries[2].why
    assert unfinished_journals(tmp_path / "peer2") == [] and peers[2].journal is None
    for i in range(3):
        result = audit(summaries[i].log_path)
        assert result.ok and result.left is not None and result.left.seat == peers[2].me, (i, result.first_failure)


async def test_s10_1_a_seat_whose_log_cannot_be_created_after_the_lobby_does_not_sit_down(tmp_path: Path) -> None:
    """The lobby checked that the log could be written; if its file still cannot be
    created when the game starts (the disk filled meanwhile), the seat does not sit
    down: no traceback, the player is told why, its links say why, its journal (written
    as it signed) goes, and the others end their game cleanly at once, not after the
    grace period: a seat that said goodbye before its keys is gone for good (§11.3). (A
    journal that cannot be written as the seat signs ends the lobby: `test_lobby_live`.)"""
    import argparse

    from cli.game import SeatBook, play_seat
    from p2p.peer import TablePeer
    from tests.live_support import seat_live_lobby

    blocker = tmp_path / "a file, not a folder"
    blocker.write_text("")
    log_path = blocker / "seat3.bandit-log"
    args = argparse.Namespace(headless=True, seed=2, json=True, state_dir=tmp_path / "state", log=log_path,
                              log_dir=None)
    async with AsyncExitStack() as stack:
        lobby = await seat_live_lobby(tmp_path, 3, stack)
        others = [TablePeer(lobby.meshes[i], lobby.results[i], lobby.ids[i], log_path=tmp_path / f"seat{i + 1}.bandit-log",
                            bot=NormalBot(), seed=i, grace=600.0) for i in (0, 1)]
        with trio.fail_after(30):
            async with running(others) as summaries:
                with SeatBook(lobby.meshes[2], args) as book:
                    seated = journal_as_signed(book, lobby.results[2])
                    assert len(unfinished_journals(tmp_path / "state", held=True)) == 1
                    mine = await play_seat(lobby.meshes[2], lobby.results[2], lobby.ids[2], args, log_path,
                                           seated=seated)
    assert not mine.finished and mine.rounds == 0
    assert "records could not be written here" in mine.why and "you did not sit down" in mine.why
    assert not log_path.exists() and f"({blocker}: " in mine.why
    assert unfinished_journals(tmp_path / "state", held=True) == []  # (no game: nothing to resume)
    for i in (0, 1):
        assert summaries[i].departed is None  # (a game that could not start: exit 1, whoever's fault)
        assert not summaries[i].finished and "left before the game began (its records could not be written" in " ".join(
            line.text for line in others[i]._lines), summaries[i].why
        result = audit(summaries[i].log_path)
        assert result.ok and result.left is not None and result.left.seat == lobby.results[2].seat, result.first_failure


async def _with_cut_between_two_guests(tmp_path: Path, body) -> list:  # type: ignore[no-untyped-def]
    """Three live peers; the link between seat 0 and the guest `peers[2]` runs through a
    proxy, and `body(peers, proxy)` cuts it (peers[1] still reaches both). Returns the
    summaries, in the order of `peers`."""
    from p2p.roster import TableRules
    from tests.faultproxy import LOOPBACK, link_proxy
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False, rules=TableRules(target=60))
    low, high = peers[0], peers[2]
    async with stack, link_proxy((LOOPBACK, high.mesh.port)) as proxy:
        high_id = through(proxy, low, high)
        with trio.fail_after(120):
            async with running(peers) as summaries:
                await until(lambda: proxy.connections >= 1 and high_id in low.mesh.linked(), low, high)
                await until(lambda: len(low.machine.outcomes) >= 1, low)  # mid-game: round 1 scored
                await body(peers, proxy)
    return [summaries[i] for i in range(3)]


def _reports(peer: TablePeer, away: set[int]) -> None:
    """`peer`'s acks say from now on that it has no link to the seats `away` (§7.1 `away`)."""
    peer.orderer.set_away(away)
    peer._broadcast(peer.orderer.ack(trio.current_time()))


async def _told(peer: TablePeer, text: str) -> None:
    """Until `peer`'s player has read a line that begins with `text`."""
    await until(lambda: any(line.text.startswith(text) for line in peer.lines), peer)


async def test_11_3_a_process_that_was_stopped_reconnects_rather_than_losing_everybody(tmp_path: Path) -> None:
    """A player whose program was stopped (Ctrl-Z, a sleeping laptop) for
    longer than the others wait read "Lost the link to bob (connection closed); waiting
    for bob …" for every other player, as if they had gone. The links the others closed
    while it did not run are its own reconnecting: told once, and once when it is back."""

    async def body(peers, proxy) -> None:  # type: ignore[no-untyped-def]
        low, high = peers[0], peers[2]
        low._woke_at = trio.current_time()  # (as `_woke_from_a_stop` sets it when the others missed this seat)
        before = len(low.lines)
        proxy.cut()
        await until(lambda: high.me in low._progress.waiting_for, low)
        texts = [line.text for line in low.lines[before:]]
        assert not any(text.startswith("Lost the link") for text in texts), texts[-3:]
        assert texts[-1].startswith("Reconnecting to the table (the game ends if that takes more than "), texts[-3:]
        proxy.restore()
        back = f"Back at the table: reconnected to {low.names[high.me]}."
        await until(lambda: any(line.text == back for line in low.lines), low)
        assert not any(line.text.endswith(" is back.") for line in low.lines[before:])

    summaries = await _with_cut_between_two_guests(tmp_path, body)
    assert all(s.finished for s in summaries), [s.why for s in summaries]


async def test_11_3_another_seat_s_report_of_a_seat_this_one_misses_too_is_not_told_twice(tmp_path: Path) -> None:
    """One player's crash read as one line from each other player ("dan
    lost the link to bob …", "Zoë lost the link to bob …") besides this seat's own "Lost the
    link to bob", and as many "… reaches everybody again" after. A report naming only
    seats this one misses too is told only if it outlasts this seat's own loss."""
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False)
    ann, bo, cy = peers
    async with stack:
        with trio.fail_after(30):
            async with running(peers):
                others = {ann.machine.seats[bo.me], ann.machine.seats[cy.me]}
                # (mid-game, round 1 scored: the links made as the game began are settled)
                await until(lambda: len(ann.machine.outcomes) >= 1 and others <= set(ann.mesh.linked()), ann)
                ann._progress.waiting_for = (cy.me,)  # (as ann's own loss of cy's link sets it)
                _reports(bo, {cy.me})
                await until(lambda: bo.me in ann.orderer.cut_off(), ann)
                ann._check_links(trio.current_time())
                assert not any("lost the link" in line.text for line in ann.lines), [x.text for x in ann.lines][-3:]
                ann._progress.waiting_for = ()  # (ann reaches cy again; bo still does not, though cy says it reaches bo)
                await _told(ann, f"{ann.names[bo.me]} says it cannot reach {ann.names[cy.me]}, but {ann.names[cy.me]} "
                                 "says otherwise; the table waits")
                _reports(bo, set())
                await _told(ann, f"{ann.names[bo.me]} says it reaches everybody again.")
                await ann.leave()


async def test_11_3_a_link_cut_between_two_others_holds_every_claim_until_it_is_back(tmp_path: Path) -> None:
    """Seat 0 and peers[2] lose their link while peers[1] still reaches both: both say
    so in their acks (§7.1 `away`), so peers[1] too makes no timer or stall claims
    (§11.3) and tells its player; when the link is back it says so, the claims resume
    with the stall clock going on, and the game completes, agreed and audited."""

    async def body(peers, proxy) -> None:  # type: ignore[no-untyped-def]
        middle = peers[1]
        proxy.cut()
        await until(lambda: set(middle.orderer.cut_off()) == {peers[0].me, peers[2].me}, middle)
        assert middle._claims_wait() and not middle._absent  # every link of its own is up
        # (told once, a moment after the reports came: one line for the cut both ends report,
        # "Ann and Cy lost the link between them", or "Ann lost the link to Cy" where only one
        # end's report had come by then, the other's then said with it)
        def told() -> list[str]:
            return [line.text for line in middle.lines if "lost the link" in line.text]

        await until(lambda: told(), middle)
        assert len(told()) == 1, told()
        proxy.restore()
        await until(lambda: not middle.orderer.cut_off(), middle)
        assert not middle._claims_wait() and any("reaches everybody again" in line.text for line in middle.lines)

    summaries = await _with_cut_between_two_guests(tmp_path, body)
    assert all(s.finished for s in summaries), [s.why for s in summaries]
    for summary in summaries:
        result = audit(summary.log_path)
        assert result.ok and result.finished, result.first_failure


async def test_11_3_a_link_between_two_others_that_stays_cut_ends_the_game_after_the_grace_period(tmp_path: Path) -> None:
    """If the cut link is not back within the grace period, every peer ends the game
    (the round in progress void, nobody blamed), peers[1] too although its own links
    never went down; every log audits, reporting whom the game waited for.

    The grace period here, 1 s, is far below the rules' least (10 s, §6.8), and at 1 s an
    honest table can end the game over acks (§7.3): until the cut is noticed an end cannot
    promise above what the cut kept from it, and on a busy machine an honest seat's acks
    can come more than 1 s after what they answer. An end that ended the game so, before
    peers[1]'s grace period for the cut ran out, was away at peers[1] by its goodbye, and
    named so. So peers[1] gets the short grace period only once both ends' reports
    reached it, and the ends only once its game ended."""

    async def body(peers, proxy) -> None:  # type: ignore[no-untyped-def]
        ends, middle = (peers[0], peers[2]), peers[1]
        proxy.cut()
        await until(lambda: {end.me for end in ends} <= set(middle.orderer.cut_off()), middle)
        shorten_grace(middle, 1.0)
        await until(middle._done.is_set, middle)
        for end in ends:
            shorten_grace(end, 1.0)

    summaries = await _with_cut_between_two_guests(tmp_path, body)
    assert not any(s.finished for s in summaries)
    assert "could not reach" in summaries[1].why, summaries[1].why
    for summary in summaries:
        result = audit(summary.log_path)
        assert result.ok and result.left is not None and result.first_failure is None, result.first_failure


async def test_11_3_a_peer_that_says_it_cannot_reach_this_seat_is_the_one_this_seat_ends_the_game_for(
        tmp_path: Path) -> None:
    """peers[2]'s acks, on its own link to seat 0, say it has no link to seat 0 (a lie,
    or a link broken one way). After the grace period seat 0's table ends the game naming
    peers[2] absent, never seat 0 itself: a table waits for others, never for itself, and
    a log whose end named its own writer would fail its audit (§10.2). Every log audits."""
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False)
    ann, _, liar = peers
    async with stack:
        with trio.fail_after(30):
            async with running(peers) as summaries:
                await until(lambda: ann.machine.playing, ann)
                for peer in peers:
                    shorten_grace(peer, 1.0)
                liar.orderer.set_away({ann.me})
                liar._broadcast(liar.orderer.ack(trio.current_time()))
    result = audit(summaries[0].log_path)
    assert result.ok and result.left is not None and result.left.seat == liar.me, (result.first_failure, result.left)
    for i in (1, 2):
        assert audit(summaries[i].log_path).first_failure is None, i
    # (what its screen says: not that the link the report came over is lost, but what the report claims)
    assert not any("lost the link" in line.text for line in ann.lines), [line.text for line in ann.lines][-5:]
    assert any(line.text.startswith(f"{ann.names[liar.me]} says it has no link to you, though its messages reach "
                                    "you; the game ends if that is not over within ") for line in ann.lines), \
        [line.text for line in ann.lines][-5:]
    bo = peers[1]  # (ann's acks say it reaches the liar: bo is never told the liar's word as fact)
    assert f"{bo.names[liar.me]} lost the link to" not in "\n".join(line.text for line in bo.lines)


async def test_11_3_a_report_the_seat_it_names_contradicts_is_told_to_a_third_seat_as_the_reporter_s_word(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The liar's acks say it has no link to ann (§7.1 `away`), ann's say it reaches the
    liar. Bo read "liar lost the link to ann; the table waits", as if true, though the
    game would end naming the liar: it reads the liar's word and ann's denial, then, as
    ann's report agrees, the link lost; the liar's report ended, its word again."""
    import p2p.cuts
    from tests.live_support import seat_live_table

    monkeypatch.setattr(p2p.cuts, "CONTESTED_HOLD", 0.5)  # (the other end's report, if it were coming, is in by then)
    stack, peers = await seat_live_table(tmp_path, 3, person=False)
    ann, bo, liar = peers
    async with stack:
        with trio.fail_after(30):
            async with running(peers):
                await until(lambda: len(bo.machine.outcomes) >= 1, bo)
                liar_, ann_ = bo.names[liar.me], bo.names[ann.me]
                _reports(liar, {ann.me})
                await _told(bo, f"{liar_} says it cannot reach {ann_}, but {ann_} says otherwise; the table waits "
                                f"(the game ends naming {liar_} if that is not over within ")
                assert not any(line.text.startswith(f"{liar_} lost the link") for line in bo.lines)
                _reports(ann, {liar.me})  # (now both ends say so: a link lost)
                await _told(bo, f"{ann_} and {liar_} lost the link between them; the table waits for that link")
                _reports(ann, set())
                _reports(liar, set())
                await _told(bo, f"{liar_} says it reaches everybody again.")
                await ann.leave()


async def test_11_3_a_report_that_keeps_coming_back_is_told_once_and_ends_the_game_naming_the_reporter(
        tmp_path: Path) -> None:
    """peers[2]'s acks say it has no link to seat 0 for 1.5 s, then that it has, over and
    over, while its links are up: the table delivers something each time the report is
    over. Each report comes back within `REPORT_RETURNS` of its end, so it is one absence
    whose time adds up (§11.3): every honest screen tells it, its first end, and that it
    keeps coming back, once each, and once the reports lasted the grace period (6 s) in
    all, seat 0's game ends naming the reporter. (bo's grace period is longer: each seat
    counts the report's time as the acks reach it, and on a busy machine bo's count could
    end first; seat 0 would then end naming bo, whose goodbye it heard, away.)"""
    from p2p.roster import TableRules
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False, rules=TableRules(target=10_000))
    ann, bo, liar = peers
    async with stack:
        with trio.fail_after(40):
            async with running(peers) as summaries:
                await until(lambda: ann.machine.playing, ann)
                for peer in (ann, liar):
                    shorten_grace(peer, 6.0)
                shorten_grace(bo, 8.0)
                while not ann.progress.ended:
                    _reports(liar, {ann.me})
                    await trio.sleep(1.5)  # (the lie's own rhythm: what is tested waits on events)
                    _reports(liar, set())
                    await trio.sleep(1.5)
    assert summaries[0].why.startswith(f"{ann.names[liar.me]} said for more than 6 s that it could not reach"), \
        summaries[0].why
    for peer in (ann, bo):
        texts = [line.text for line in peer.lines if line.seat == liar.me]
        back = [t for t in texts if "keeps coming back" in t]
        cut = [t for t in texts if any(w in t for w in ("has no link to you", "lost the link to", "says it cannot reach"))
               and t not in back]
        again = [t for t in texts if "reaches everybody again" in t]
        assert len(cut) == 1 and len(back) == 1 and len(again) <= 1, (cut, back, again)
    result = audit(summaries[0].log_path)
    assert result.ok and result.left is not None and result.left.seat == liar.me, result.first_failure
    # (bo may hear ann's goodbye before its own grace period for the report runs out: then
    # it says ann away, as the report does, as for a seat gone from everybody, §11.3)
    result = audit(summaries[1].log_path)
    assert result.ok and result.left is not None and result.left.seat in (liar.me, ann.me), result.first_failure


async def test_11_3_a_seat_just_back_from_a_restart_is_told_as_reconnecting_not_as_losing_links(
        tmp_path: Path) -> None:
    """A player resumed after a crash (kill -9) dials everybody anew; its
    first acks say which links it has not made again yet, and the others read "alice
    lost the link to carl and you; … the game ends if it is not back within 120 s" one
    line after "alice is back". A seat back within the last few seconds is told as still
    reconnecting, and a report naming this very seat is not told at all."""
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False)
    ann, bo, back = peers
    async with stack:
        with trio.fail_after(30):
            async with running(peers):
                await until(lambda: ann.machine.playing, ann)
                ann._back_at[back.me] = trio.current_time()  # (as its link coming back after an absence sets it)
                _reports(back, {ann.me, bo.me})
                await _told(ann, f"{ann.names[back.me]} is still reconnecting to {ann.names[bo.me]}; the table waits")
                _reports(back, set())
                await _told(ann, f"{ann.names[back.me]} reaches everybody again.")
                await ann.leave()
    assert not any("lost the link" in line.text for line in ann.lines)


async def test_11_3_a_seat_just_back_that_reaches_this_one_again_is_not_told_as_reconnecting_twice(
        tmp_path: Path) -> None:
    """A resumed seat's acks first name this seat and carl as not yet reached, then carl
    alone once its link to this seat is up: to this seat, whom it misses (carl) did not
    change, so "… is still reconnecting to carl" is told once, not twice in a row. Its
    link to carl coming up is told too."""
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False)
    ann, bo, back = peers
    async with stack:
        with trio.fail_after(30):
            async with running(peers):
                await until(lambda: ann.machine.playing, ann)
                ann._back_at[back.me] = trio.current_time()  # (as its link coming back after an absence sets it)
                _reports(back, {ann.me, bo.me})
                await _told(ann, f"{ann.names[back.me]} is still reconnecting to {ann.names[bo.me]}; the table waits")
                _reports(back, {bo.me})
                await until(lambda: ann._cut_watch.cut_off.get(back.me) == (bo.me,), ann)  # (that report, read and told of)
                _reports(back, set())
                await _told(ann, f"{ann.names[back.me]} reaches everybody again.")
                await ann.leave()
    told = [line.text for line in ann.lines if "is still reconnecting" in line.text]
    assert told == [f"{ann.names[back.me]} is still reconnecting to {ann.names[bo.me]}; the table waits for that."], told


async def test_11_3_another_seat_s_report_of_a_seat_just_back_is_not_told_as_a_lost_link(tmp_path: Path) -> None:
    """A player crashed and resumed: every other seat read "Cy is back." and then, from
    each player the resumed seat had not dialled yet, "Bo lost the link to Cy; … the game
    ends if it is not back within 120 s". Within its first seconds back, a seat others
    miss is dialling them anew (its own report says "… is still reconnecting"): another
    seat's report of it is told only if it outlasts that, and then its end too."""
    from p2p.peer import JUST_BACK
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False)
    ann, bo, back = peers
    async with stack:
        with trio.fail_after(30):
            async with running(peers):
                await until(lambda: ann.machine.playing, ann)
                ann._back_at[back.me] = trio.current_time()  # (as its link coming back after an absence sets it)
                _reports(bo, {back.me})
                await until(lambda: ann._cut_watch.cut_off.get(bo.me) == (back.me,), ann)  # (that report, read)
                assert not any("lost the link" in line.text for line in ann.lines), [x.text for x in ann.lines][-3:]
                ann._back_at[back.me] = trio.current_time() - JUST_BACK  # (its return, long past)
                await _told(ann, f"{ann.names[bo.me]} says it cannot reach {ann.names[back.me]}, but "
                                 f"{ann.names[back.me]} says otherwise; the table waits")
                _reports(bo, set())
                await _told(ann, f"{ann.names[bo.me]} says it reaches everybody again.")
                await ann.leave()


async def test_11_3_a_report_told_just_before_this_seat_lost_the_same_link_ends_unsaid(tmp_path: Path) -> None:
    """A player's crash heard of first from another seat ("Bo lost the link to Cy"), then
    as this seat's own loss ("Lost the link to Cy"), ended in "Bo reaches everybody
    again." once Cy was back, though Bo's links were never the trouble: a report this
    seat's own loss took over ends as that loss does ("Cy is back.")."""
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False)
    ann, bo, cy = peers
    async with stack:
        with trio.fail_after(30):
            async with running(peers):
                await until(lambda: ann.machine.playing and ann.machine.seats[cy.me] in ann.mesh.linked(), ann)
                _reports(bo, {cy.me})
                await _told(ann, f"{ann.names[bo.me]} says it cannot reach {ann.names[cy.me]}, but {ann.names[cy.me]} "
                                 "says otherwise; the table waits")
                ann.mesh.close_link(cy.identity.peer_id, "as a crash would")
                await _told(ann, f"Lost the link to {ann.names[cy.me]} (as a crash would)")
                await _told(ann, f"{ann.names[cy.me]} is back.")
                _reports(bo, set())
                await until(lambda: bo.me not in ann._cut_watch.cut_off, ann)
                await ann.leave()
    assert not any(line.text.startswith(f"{ann.names[bo.me]} says it reaches everybody") for line in ann.lines), \
        [line.text for line in ann.lines][-6:]


def _kill(peer: TablePeer, run: trio.CancelScope) -> None:
    """`peer`'s program is killed (kill -9): everything it runs stops at once, then its
    kernel closes its connections, without a word (no TLS close, no goodbye)."""
    mesh = peer.mesh
    mesh._nursery.cancel_scope.cancel()  # (its links and its listener)
    run.cancel()
    for other in mesh._peers.values():
        if other.link is not None:
            sock = other.link.tls._sock
            trio.lowlevel.notify_closing(sock)
            sock.close()


async def test_11_3_a_seat_hears_of_its_own_lost_link_before_the_others_reports_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bo's program is killed (its connections close without a word) while Cy is busy for a
    moment, reading none of its sockets: by the time Cy reads on, Bo's connection has ended
    behind Bo's last frames, and Ann's and Dee's reports of the same loss have come (§7.1
    `away`). Cy's screen read "Ann lost the link to Bo…" and "Dee lost the link to Bo…"
    before its own "Lost the link to Bo", as if its own link had been fine. A link's end is
    read with the frames before it and told at once, before its connection is closed; the
    others' reports of a loss this seat has too are then not told besides (§11.3)."""
    from tests.live_support import seat_live_table

    busy: set[socket.socket] = set()  # (Cy's connections: what comes waits in them until Cy reads on)
    reads_on = trio.Event()
    wait_readable = trio.lowlevel.wait_readable

    async def held(sock: socket.socket) -> None:
        await wait_readable(sock)
        if sock in busy:
            await reads_on.wait()

    monkeypatch.setattr(trio.lowlevel, "wait_readable", held)
    stack, peers = await seat_live_table(tmp_path, 4, person=False)
    ann, bo, cy, dee = peers
    async with stack:
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                runs = {peer.me: trio.CancelScope() for peer in peers}

                async def run(peer: TablePeer) -> None:
                    with runs[peer.me]:
                        await peer.run()

                for peer in peers:
                    nursery.start_soon(run, peer)
                others = {p.identity.peer_id for p in (ann, bo, dee)}
                await until(lambda: len(cy.machine.outcomes) >= 1 and others <= cy.mesh.linked(), cy)  # (mid-game)
                busy.update(p.link.tls._sock for p in cy.mesh._peers.values() if p.link is not None)
                before = len(cy.lines)
                _kill(bo, runs[bo.me])
                # (both reports sent: each has read the other's, and Cy's socket holds them)
                await until(lambda: ann.me in dee.orderer.cut_off() and dee.me in ann.orderer.cut_off(), ann, dee)
                reads_on.set()
                await _told(cy, f"Lost the link to {cy.names[bo.me]}")
                await until(lambda: {ann.me, dee.me} <= set(cy._cut_watch.cut_off), cy)  # (their reports, read)
                told = [line.text for line in cy.lines[before:] if cy.names[bo.me] in line.text]
                assert told[0].startswith(f"Lost the link to {cy.names[bo.me]}"), told
                assert not any("lost the link" in text for text in told), told
                nursery.cancel_scope.cancel()


async def test_11_3_a_seat_reconnecting_to_three_others_names_them_as_a_list(tmp_path: Path) -> None:
    """A host resumed at a table of five read, on every other screen, "Ann is still
    reconnecting to Bo and Cy and Dee": the names are listed as in every other line."""
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 5, person=False)
    me, back, *rest = peers
    async with stack:
        with trio.fail_after(60):
            async with running(peers):
                await until(lambda: me.machine.playing, me)
                me._back_at[back.me] = trio.current_time()  # (as its link coming back after an absence sets it)
                _reports(back, {me.me, *(peer.me for peer in rest)})
                await _told(me, f"{me.names[back.me]} is still reconnecting to ")
                told = next(line.text for line in me.lines if "is still reconnecting to" in line.text)
                missing = told.split(" is still reconnecting to ")[1].split(";")[0]
                assert missing.count(" and ") == 1, told
                assert sorted(missing.replace(" and ", ", ").split(", ")) == sorted(me.names[p.me] for p in rest), told
                _reports(back, set())
                await _told(me, f"{me.names[back.me]} reaches everybody again.")
                await me.leave()


@pytest.mark.parametrize("busy", [False, True], ids=["silent", "sends-an-intent-each-return"])
async def test_11_3_a_link_that_keeps_dropping_while_the_table_waits_on_it_still_ends_the_game(
    tmp_path: Path, busy: bool
) -> None:
    """peers[2] withholds its share of the first discard (the table waits on it, and its
    stall claim is far off), and its link to seat 0 is cut again each time it comes
    back. A return during which the table delivered nothing does not end the absence;
    nor does one after which the table still waits for that share, even if the peer got
    a message of its own delivered while it was back (`busy`: an intent the engine
    refuses, which costs it nothing). The time away adds up (§11.3), both for seat 0, who
    misses the link, and for peers[1], who hears of it in acks. So the game ends after
    the grace period of time away in all, every peer naming whom it waited for, and
    every log audits without blame."""
    from engine import Draw
    from p2p.roster import TableRules
    from tests.cheat_runs import swap_machine
    from tests.faultproxy import LOOPBACK, link_proxy
    from tests.live_support import seat_live_table
    from tests.malicious import WithheldShare, WithholdingMachine

    stack, peers = await seat_live_table(tmp_path, 3, person=False, rules=TableRules(target=60))
    low, middle, high = peers
    swap_machine(high, WithholdingMachine, cheat=WithheldShare(need=6))  # the first discard (3 × 2 peeks before it)
    for peer in peers:
        peer.machine.stall_s = 600.0
    returns = 0
    async with stack, link_proxy((LOOPBACK, high.mesh.port)) as proxy:
        high_id = through(proxy, low, high)
        with trio.fail_after(30):
            async with running(peers) as summaries:
                await until(lambda: (w := low.machine.awaited()) is not None and w.what == "shares"
                            and w.seats == (high.me,) and high_id in low.mesh.linked(), low)
                for peer in peers:
                    peer.grace = 3.0  # (far longer than one absence, see `returns`)
                while not low._done.is_set():
                    proxy.cut()
                    await until(lambda: high.me in low._absent or low._done.is_set(), low)
                    proxy.restore()  # (back within a redial: each absence is far shorter than the grace)
                    await until(lambda: low._done.is_set() or (high.me not in low._absent and not any(
                        p.orderer.cut_off() for p in peers)), *peers)  # back, and every peer has heard so
                    if busy and not low._done.is_set():
                        delivered = [p.orderer.position for p in peers]
                        high._send_intent(Draw(high.me))  # (not its turn: refused where it is applied)
                        await until(lambda: low._done.is_set() or all(
                            p.orderer.position > d for p, d in zip(peers, delivered)), *peers)
                    returns += not low._done.is_set()
    assert returns >= 1  # it came back (and the table could not use it) at least once
    assert "was away for more than 3 s" in summaries[0].why, summaries[0].why
    assert "could not reach" in summaries[1].why or "was away" in summaries[1].why, summaries[1].why
    for i in range(2):
        assert not summaries[i].finished
        result = audit(summaries[i].log_path)
        assert result.ok and result.left is not None and result.first_failure is None, (i, result.first_failure)
    # The withholder's own table never waited for its own share, so its log holds the
    # intents it sent while back (`busy`) past the reveal that waits for that share, which
    # it never sent, so never logged: no honest peer's log does that (§10.1).
    # (Silent, whether anything came after that reveal depends on timing.)
    failure = audit(summaries[2].log_path).first_failure
    if busy or failure is not None:
        assert failure is not None and failure.section == "§10.1" and failure.seat is None
        assert f"its writer, {high.names[high.me]}, went on without sending its own" in failure.what


class CutAtTheEnd(TablePeer):
    """A peer whose link through `proxy` is cut the moment its game ends."""

    proxy = None

    def _finish(self, why: str) -> None:
        if self.proxy is not None and not self._done.is_set():
            self.proxy.cut()
        super()._finish(why)


async def test_s11_4_a_link_that_drops_as_the_game_ends_is_waited_for_and_everybody_finishes(tmp_path: Path) -> None:
    """The moment seat 0 ends its game, its link to peers[2] (50 ms each way, through
    the test proxy) is cut, with whatever was in flight on it. Seat 0 stays on (§11.4)
    and says so, dials the link again when it is back, answers as in the game, and
    leaves once peers[2] holds everything of its own; every seat ends the game with the
    same result, well within the grace period."""
    from p2p.roster import TableRules
    from tests.faultproxy import LOOPBACK, link_proxy
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False, rules=TableRules(target=5),
                                         classes={0: CutAtTheEnd})
    low, high = peers[0], peers[2]
    for peer in peers:
        peer.grace = 600.0  # (were the link not waited for, the others would wait this long)

    def stays() -> bool:
        return any("dropped as the game ended" in line.text for line in low.lines)

    async with stack, link_proxy((LOOPBACK, high.mesh.port), delay=0.05) as proxy:
        high_id = through(proxy, low, high)
        with trio.fail_after(90):
            async with running(peers) as summaries:
                await until(lambda: proxy.connections >= 1 and high_id in low.mesh.linked(), low, high)
                low.proxy = proxy  # type: ignore[attr-defined]
                await until(lambda: stays() or len(summaries) == 3, *peers)
                proxy.restore()
    assert stays() and proxy.connections >= 2  # seat 0 stayed, and dialled the link again
    assert all(summaries[i].finished for i in range(3)), [summaries[i].why for i in range(3)]
    assert not any("without word from" in line.text for line in low.lines)
    assert len({tuple(sorted(summaries[i].totals.items())) for i in range(3)}) == 1
    for i in range(3):
        result = audit(summaries[i].log_path)
        assert result.ok and result.finished, result.first_failure


async def test_s11_4_a_seat_told_to_stop_stays_after_the_end_only_as_long_as_it_has(tmp_path: Path) -> None:
    """Seat 0 leaves because its process was told to stop, with 1.5 s to be gone, and its
    link to peers[2] is cut as its game ends at its `leave`. It stays for that seat only
    as long as it has, then goes and says so; its log is intact and ends at its leave.
    (It used to stay its full 15 s, and the process was cancelled at its 10 s to stop,
    exit status 130.) The others end their game too."""
    from p2p.roster import TableRules
    from tests.faultproxy import LOOPBACK, link_proxy
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False, rules=TableRules(target=5000),
                                         classes={0: CutAtTheEnd})
    low, high = peers[0], peers[2]
    for peer in peers:
        peer.grace = 600.0
        if peer is not low:  # (high, cut off from low, would wait its full stay for low: 15 s)
            peer.see_off_limit = 1.0
    async with stack, link_proxy((LOOPBACK, high.mesh.port), delay=0.05) as proxy:
        high_id = through(proxy, low, high)
        with trio.fail_after(60):
            async with running(peers) as summaries:
                await until(lambda: proxy.connections >= 1 and high_id in low.mesh.linked()
                            and low.machine.round_number >= 1, low, high)
                low.proxy = proxy  # type: ignore[attr-defined]
                asked = trio.current_time()
                await low.leave("it was interrupted", 1.5)
                await until(lambda: 0 in summaries, low)
                gone = trio.current_time() - asked
                for peer in peers:
                    peer.grace = 0.5  # (whoever still waits for seat 0 need not wait long)
    stayed = [line.text for line in low.lines if "dropped as the game ended" in line.text]
    assert stayed and "staying up to 1 s" in stayed[0], stayed
    assert any("without word from" in line.text and "within 1 s" in line.text for line in low.lines)
    assert gone < 1.5 + 0.5, gone
    result = audit(summaries[0].log_path)
    assert result.ok and result.left is not None and result.left.seat == low.me, result.first_failure
    for i in (1, 2):
        result = audit(summaries[i].log_path)
        assert result.ok, result.first_failure


async def test_s11_3_a_players_own_leaving_wins_over_an_absence_and_the_log_names_nobody_absent(tmp_path: Path) -> None:
    """The first ending wins, and a player's own leaving wins over any: a grace period
    that runs out while the player is saying goodbye ends the game as the player's
    leaving, with no seat named `absent` in `log.end` (§10.1, §11.3)."""
    from tests.live_support import seat_live_table

    stack, (me, other) = await seat_live_table(tmp_path, 2)
    async with stack:
        me._leaving_why = "you left the table"  # (as `leave` sets it, before `leave` comes back delivered)
        me._finish("Bot 1 was away for more than 120 s; round 0 is void", absent=1)
        other._finish("Ann was away for more than 120 s; round 0 is void", absent=0)
        assert (me._why, me._absent_seat) == ("you left the table", None)
        assert (other._why, other._absent_seat) == ("Ann was away for more than 120 s; round 0 is void", 0)
        other._finish("the game ended")  # a later ending changes nothing
        assert (other._why, other._absent_seat) == ("Ann was away for more than 120 s; round 0 is void", 0)


async def test_11_3_a_resumed_seat_shows_its_player_the_story_so_far_and_every_round_scored(tmp_path: Path) -> None:
    """A seat that crashed and resumes replays its log through the same narration as the
    live game: its player finds the table log as it was told before the crash, line for
    line, and the reports of the rounds already scored (the round and game screens). It
    shows no countdown for the turn it came back into (§9.6: the others' timers know how
    much of it is left, it does not). That story includes the moves that did not count,
    its own and another seat's (a spy on one's own card never counts: R3, or §9.5 when
    its turn was over as it arrived)."""
    import shutil

    from engine import Spy

    from p2p.journal import Journal
    from p2p.lobby import LobbyResult
    from p2p.log import FairnessLog
    from p2p.peer import Resumption, table_schemas
    from p2p.roster import game_id_of, parse_canonical
    from p2p.transport import open_mesh
    from tests.live_support import LOOPBACK, seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False, journals=True)
    seat = peers[1]
    crashed = tmp_path / "what the crash left"
    crashed.mkdir()
    async with stack:
        with trio.fail_after(120):
            async with running(peers):
                await until(lambda: all(any(line.text.startswith("Round 1:") for line in peer.lines)
                                        for peer in (seat, peers[2])), seat, peers[2])
                for refused in (seat, peers[2]):
                    refused.submit(Spy(refused.me, refused.me, 0))
                await until(lambda: len(seat.reports) >= 1 and any("Round 2:" in line.text for line in seat.lines), seat)
                # The process dies here: what its player was told, and what is on its disk.
                told, scored = list(seat.lines), list(seat.reports)
                spies = [(line.text, line.kind) for line in told if "spy did not count (" in line.text]
                assert len(spies) == 2 and ("error" in dict(spies).values()), spies
                assert seat.journal is not None
                log_path = shutil.copy(read_journal(seat.journal.path).log, crashed / "seat.bandit-log")
                journal_path = shutil.copy(seat.journal.path, crashed / "seat.journal")
                await peers[0].leave()
    log, contents = FairnessLog.reopen(Path(log_path), seat.identity)
    journal, jc = Journal.reopen(Path(journal_path))
    header = contents.header
    result = LobbyResult(game_id_of(header.roster), parse_canonical(header.roster), header.roster, header.signatures, jc.seat)
    async with open_mesh(seat.identity, table_schemas(), bind=LOOPBACK) as mesh:
        back = TablePeer(mesh, result, seat.identity, log_path=Path(log_path), bot=NormalBot(),
                         resume=Resumption(log, contents, journal, jc))
        try:
            assert [line.text for line in back.lines] == [line.text for line in told]
            assert back.lines == told and back.reports == scored
            # The turn (or the look at the bottom cards) under way began before the crash:
            # no countdown from the restart, which would promise time the player lacks.
            assert back.machine.turn_started_at() is not None or back.machine.peek_started_at() is not None
            back._update_deadlines()
            assert back.deadlines.turn is None and back.deadlines.peek is None
            assert back.deadlines.unknown  # (the screen says the clock runs, time left unknown)
            # (the same timer, once a turn this seat saw begin: a countdown, until a link is down)
            back._unseen_start = None
            back._update_deadlines()
            assert back.deadlines.turn is not None or back.deadlines.peek is not None
            assert not back.deadlines.unknown
            back._suspended = True
            back._update_deadlines()
            assert back.deadlines.turn is None and back.deadlines.peek is None and not back.deadlines.unknown
        finally:
            log.close("the test ends here")
            journal.close(finished=False)


async def test_11_3_a_report_that_names_this_seat_tells_only_the_others(tmp_path: Path) -> None:
    """Another peer's acks may still say it has no link to this seat (its latest ack
    before a resumed seat's link came back): it came over that very link, so the player
    reads only of the others ("lost the link to you and …" before)."""
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3)
    async with stack:
        me, other = peers[0], peers[1]
        me._heard[peers[2].me] = me.now()  # (its link is up and heard here, as at a running table)
        me.orderer.cut_off = lambda: {other.me: (0.0, (me.me, peers[2].me))}  # type: ignore[method-assign]
        me._track_links()
        assert me.lines[-1].text.startswith(f"{me.names[other.me]} says it cannot reach {me.names[peers[2].me]}, but")
        me.log.close("the test ends here")


async def test_11_3_a_report_that_names_only_this_seat_is_not_told_again_when_this_seat_loses_a_link(
        tmp_path: Path) -> None:
    """Bo's acks say he has no link to Ann, though they reach her: Ann reads it once. Then
    Ann loses her own link to Cy: she read Bo's report again, with a fresh "within 15 s",
    as if it were news (an empty list of other seats was taken for one her loss covers)."""
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3)
    async with stack:
        ann, bo, cy = peers
        ann.orderer.cut_off = lambda: {bo.me: (0.0, (ann.me,))}  # type: ignore[method-assign]
        ann._track_links()
        said = f"{ann.names[bo.me]} says it has no link to you"
        assert ann.lines[-1].text.startswith(said), ann.lines[-1]
        ann._progress.waiting_for = (cy.me,)  # (as `_link_down` has it, as it folds what was told)
        ann._cut_watch.own_loss(ann._progress.waiting_for)
        ann._track_links()
        assert sum(line.text.startswith(said) for line in ann.lines) == 1, ann.lines[-2:]
        ann.log.close("the test ends here")


async def test_11_3_a_report_told_late_says_how_long_its_link_has_left(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """Bo reports no link to Cy just as Cy is back here: that is Cy dialling anew, so the
    report waits. Still there 5 s later, it is told: the game ends if the link is not back
    within the 115 s left of its grace period (it said 120 s, the whole of it)."""
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3)
    async with stack:
        ann, bo, cy = peers
        ann.grace = 120.0
        since = ann.now()
        ann._back_at[cy.me] = ann._heard[cy.me] = since  # (Cy's link came back here just now)
        ann.orderer.cut_off = lambda: {bo.me: (since, (cy.me,))}  # type: ignore[method-assign]
        before = len(ann.lines)
        ann._track_links()
        assert ann.lines[before:] == [] and bo.me in ann._cut_watch.unsaid
        mock_clock.jump(5.0)
        ann._heard[cy.me] = ann.now()  # (and heard since)
        ann._track_links()
        assert [line.text for line in ann.lines[before:]] == [  # (Cy, heard here, says it reaches Bo)
            f"{ann.names[bo.me]} says it cannot reach {ann.names[cy.me]}, but {ann.names[cy.me]} says otherwise; the "
            f"table waits (the game ends naming {ann.names[bo.me]} if that is not over within 115 s)."]
        ann.log.close("the test ends here")


async def test_11_3_a_seat_every_player_loses_at_once_is_told_in_one_line(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """Cy's program was stopped: Bo's table log read "Ana lost the link to Cy…", "Ada
    lost the link to Cy…", then "Lost the link to Cy…", three lines for one event. A report
    of a seat that has gone quiet here too waits for this seat's own loss, which names the
    others who cannot reach it either; one this seat does not follow with its own loss is
    told once that would have come."""
    from p2p.transport import SILENCE, LinkDown
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 4)
    async with stack:
        ann, bo, cy, dee = peers
        names = ann.names
        now = ann.now()
        ann._heard.update({bo.me: now, dee.me: now, cy.me: now - 3.0})  # (nothing from Cy for 3 s)
        ann.orderer.cut_off = lambda: {bo.me: (now, (cy.me,)), dee.me: (now, (cy.me,))}  # type: ignore[method-assign]
        before = len(ann.lines)
        ann._track_links()
        assert ann.lines[before:] == []
        ann._link_down(LinkDown(cy.identity.peer_id, f"nothing heard for {SILENCE:.0f} s"))
        ann._track_links()
        either = listed([names[s] for s in sorted([bo.me, dee.me])])
        assert [line.text for line in ann.lines[before:]] == [
            f"Lost the link to {names[cy.me]} (nothing heard for 6 s), and {either} "
            f"cannot reach {names[cy.me]} either; waiting for {names[cy.me]} (the game ends if they are not back "
            f"within {ann.grace:.0f} s)."]
        ann.log.close("the test ends here")

    stack, peers = await seat_live_table(tmp_path / "again", 3)
    async with stack:
        ann, bo, cy = peers
        now = ann.now()
        ann._heard.update({bo.me: now, cy.me: now - 3.0})
        ann.orderer.cut_off = lambda: {bo.me: (now, (cy.me,))}  # type: ignore[method-assign]
        ann._track_links()
        mock_clock.jump(SILENCE)  # (no loss of its own came: the report is told)
        ann._track_links()
        assert ann.lines[-1].text.startswith(f"{ann.names[bo.me]} lost the link to {ann.names[cy.me]}; the table waits")
        ann.log.close("the test ends here")


async def test_s11_3_a_report_by_or_about_a_seat_that_left_and_is_gone_says_nothing_of_the_table(tmp_path: Path) -> None:
    """The last ack of a seat that left (§9.8) stands for good: had it reported a link it
    missed, that report would hold claims and end the game after the grace period,
    naming as absent a seat that may be back ("Bo could not reach Cy"). Once its leave is
    taken and its link is down (`Orderer.gone`), what it reported, and what others
    report of it, says nothing of the table now; its own absence still counts."""
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3)
    async with stack:
        me, leaver, other = peers[0], peers[1].me, peers[2].me
        for reports in ({leaver: (0.0, (other,))}, {other: (0.0, (leaver,))}):
            me.orderer.cut_off = lambda reports=reports: reports  # type: ignore[method-assign]
            me.orderer.gone = lambda: frozenset()  # type: ignore[method-assign]
            me._track_links()
            assert me._suspended and me._grace_ends() == me.grace and me._claims_wait()
            me.orderer.gone = lambda: frozenset({leaver})  # type: ignore[method-assign]
            me._track_links()
            assert not me._suspended and me._grace_ends() is None and not me._claims_wait()
        me.log.close("the test ends here")


async def test_s11_3_a_playing_seat_marks_its_journal_alive_so_a_new_play_knows_when_it_stopped(tmp_path: Path) -> None:
    """A seat may send nothing for a long while (a player thinking), so the last write
    to its journal does not say when it stopped; it marks the journal alive every
    `ALIVE_EVERY` seconds, and a new `play` reads that age (§11.3: the others wait only
    the grace period)."""
    import os
    import time

    from p2p.peer import ALIVE_EVERY
    from p2p.roster import TableRules
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 2, person=False, rules=TableRules(target=5000), journals=True)
    seat = peers[0]
    async with stack:
        with trio.fail_after(60):
            async with running(peers):
                await until(lambda: seat.machine.round_number >= 1, seat)
                journal = seat.journal
                assert journal is not None
                long_ago = time.time() - 100
                os.utime(journal.path, (long_ago, long_ago))
                marked, mark = trio.Event(), journal.alive

                def alive() -> None:
                    mark()
                    marked.set()

                journal.alive = alive  # type: ignore[method-assign]
                with trio.fail_after(ALIVE_EVERY + 3):
                    await marked.wait()
                assert journal.path.stat().st_mtime > long_ago + 90  # (marked alive just now, not 100 s ago)
                await seat.leave()


async def test_s6_6_a_link_that_drops_while_the_roster_is_signed_is_dialled_again_by_the_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A link that drops after its member's roster signature came in, but before this
    peer's lobby is over, must not stay with the lobby, which dials nothing once the
    roster is being signed (§6.6): nobody would dial it again, and the table would stall.
    The lobby hands such a loss on to the game, whose lower seat dials again (§11.3), and
    the game completes."""
    from p2p.identity import load_or_create_identity
    from p2p.lobby import HostLobby, LobbyResult
    from p2p.lobby_runner import StartCall, host_table, join_table
    from p2p.peer import table_schemas
    from p2p.roster import TableRules
    from p2p.transport import open_mesh
    from tests.faultproxy import LOOPBACK, link_proxy

    ids = [load_or_create_identity(tmp_path / f"peer{i}") for i in range(3)]
    results: list[LobbyResult | None] = [None] * 3
    host_message = HostLobby.on_message
    async with AsyncExitStack() as stack:
        meshes = [await stack.enter_async_context(open_mesh(ident, table_schemas(), bind=LOOPBACK, hold_incoming=i > 0))
                  for i, ident in enumerate(ids)]
        to_bob = await stack.enter_async_context(link_proxy((LOOPBACK, meshes[1].port)))  # the host dials him here
        to_carol = await stack.enter_async_context(link_proxy((LOOPBACK, meshes[2].port)))
        meshes[1].port, meshes[2].port = to_bob.port, to_carol.port  # (their hellos name the proxies)

        def on_message(self: HostLobby, peer: bytes, message: dict) -> list:  # type: ignore[type-arg]
            actions = host_message(self, peer, message)
            if self.started and to_carol.delay == 0 and not self._sigs.valid.keys() - {ids[0].peer_id}:
                to_carol.delay = 0.3  # the start goes out: carol's signature will come late…
            elif message["type"] == "lobby.sign" and peer == ids[1].peer_id:
                to_bob.drop(1)  # …so bob's link to the host drops while the host still awaits it
            elif message["type"] == "lobby.sign" and peer == ids[2].peer_id:
                to_carol.delay = 0.0
            return actions

        monkeypatch.setattr(HostLobby, "on_message", on_message)
        bob_seated = trio.Event()
        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:

                async def host(task_status: trio.TaskStatus[StartCall]) -> None:
                    results[0] = await host_table(
                        meshes[0], name="Ann", table="Signing", seats=3, rules=TableRules(target=5),
                        on_roster=lambda change: len(change.roster.members) == 2 and bob_seated.set(),
                        task_status=task_status)

                async def guest(i: int) -> None:
                    results[i] = await join_table(meshes[i], [(LOOPBACK, meshes[0].port)], name=f"Bot {i}",
                                                  expect_host=ids[0].peer_id)

                await nursery.start(host)
                nursery.start_soon(guest, 1)
                await bob_seated.wait()  # (bob takes seat 1: the host's link to him is the proxy's first)
                nursery.start_soon(guest, 2)
            monkeypatch.undo()
            peers = [TablePeer(mesh, result, ids[i], log_path=tmp_path / f"seat{i + 1}.bandit-log", bot=NormalBot(), seed=i)
                     for i, (mesh, result) in enumerate(zip(meshes, results)) if result is not None]
            assert len(peers) == 3 and to_bob.connections == 1
            async with running(peers) as summaries:
                pass
    assert to_bob.connections >= 2  # the game dialled bob again
    assert all(s.finished for s in summaries.values()), [s.why for s in summaries.values()]
    for summary in summaries.values():
        result = audit(summary.log_path)
        assert result.ok and result.finished, result.first_failure


@pytest.mark.parametrize("ending", ["played-out", "a-player-left"])
async def test_11_3_a_seat_killed_after_logging_the_end_resumes_to_an_ended_game(tmp_path: Path, ending: str) -> None:
    """SIGKILL between logging the message that ended the game (the last `done`, or a
    `leave`) and closing the log: the log and journal hold that message (they are written
    unbuffered), so `--resume` replays a game that is over. The resumed seat ends it at
    once as it ended (finished, or the player's departure), stays for the others as after
    any end (§11.4), and its log audits clean; it does not wait out the grace period and
    call the round void for a seat "away" (§11.3)."""
    import shutil

    from p2p.journal import Journal
    from p2p.lobby import LobbyResult
    from p2p.log import FairnessLog, read_log
    from p2p.peer import Resumption, table_schemas
    from p2p.roster import TableRules, game_id_of, parse_canonical
    from p2p.transport import open_mesh
    from tests.live_support import LOOPBACK, seat_live_table

    # (a game that may end by its score before the leave is delivered is one the leave may not end, under load)
    target = 25 if ending == "played-out" else 1000
    stack, peers = await seat_live_table(tmp_path, 3, person=False, journals=True, rules=TableRules(target=target))
    victim, crashed, kept = peers[1], tmp_path / "crash", {}
    crashed.mkdir()
    close = victim.log.close

    def killed_before_closing(why: str, **end: Any) -> None:  # what SIGKILL leaves
        if not kept and victim.journal is not None:
            kept.update(log=shutil.copy(victim.log.path, crashed / "seat.bandit-log"),
                        journal=shutil.copy(victim.journal.path, crashed / "seat.journal"), why=why)
        close(why, **end)

    victim.log.close = killed_before_closing  # type: ignore[method-assign]
    async with stack:
        with trio.fail_after(120):
            async with running(peers):
                if ending == "a-player-left":
                    await until(lambda: victim.log.messages >= 40, victim)
                    await peers[2].leave()
    assert kept["why"] == "the game ended" if ending == "played-out" else "left the table" in kept["why"], kept["why"]
    log, contents = FairnessLog.reopen(Path(kept["log"]), victim.identity)
    journal, seat = Journal.reopen(Path(kept["journal"]))
    header = contents.header
    result = LobbyResult(game_id_of(header.roster), parse_canonical(header.roster), header.roster, header.signatures,
                         seat.seat)
    async with open_mesh(victim.identity, table_schemas(), bind=LOOPBACK) as mesh:
        back = TablePeer(mesh, result, victim.identity, log_path=Path(kept["log"]), bot=NormalBot(),
                         resume=Resumption(log, contents, journal, seat, notes=("It stopped 3 min ago …",)),
                         grace=60.0)
        back.see_off_limit = 1.0  # (the others are gone: nobody to see off)
        with trio.fail_after(20):  # (far less than the grace period)
            summary = await back.run()
    # (what the resume found is on the table's lines, before it goes on: a person's screen was up as it was found)
    said = [line.text for line in back.lines]
    assert said.index("It stopped 3 min ago …") < next(i for i, t in enumerate(said) if t.startswith("Resumed the game"))
    end = read_log(Path(kept["log"]))
    assert end.absent is None and end.ended == kept["why"]
    assert summary.finished if ending == "played-out" else summary.departed, summary
    verdict = audit(Path(kept["log"]))
    assert verdict.ok and (verdict.finished if ending == "played-out" else verdict.left is not None)


async def test_11_3_every_ack_a_seat_signs_is_journaled_heartbeats_too(tmp_path: Path) -> None:
    """An ack is a promise (§7.3): a resumed seat restores its promises from the acks in
    its journal, so one sent unjournaled (a heartbeat, or the ack that confirms side
    messages, both made by the order's timer) could be broken after a restart, and the
    honest seat convicted. Each goes into the journal before it leaves (§11.3)."""
    from p2p.wire import decode_map
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 2, person=False, journals=True)
    async with stack:
        seat = peers[0]
        assert seat.journal is not None
        before = len(read_journal(seat.journal.path).sent)
        seat._send_timed(trio.current_time() + 10.0)  # a heartbeat is due by then
        sent = read_journal(seat.journal.path).sent
        assert len(sent) == before + 1 and decode_map(sent[-1][0])["type"] == "ack"


@pytest.mark.parametrize("turn_s,stall_s", [(5, 7.0), (6, 7.0), (60, 60.0)])
async def test_s9_11_a_stall_is_claimed_only_after_a_silent_link_would_be_known(
        tmp_path: Path, turn_s: int, stall_s: float) -> None:
    """A link that goes silent is known to be lost after 6 s (`SILENCE`) and reported in
    the next ack, which holds every claim (§11.3). A stall time of the turn time alone
    (5 s tables exist, §6.8) would let a third seat claim a share held up by that link
    before anyone knew, and convict an honest seat: it is never less than 7 s (§9.11)."""
    from p2p.peer import SILENCE, STALL_AT_LEAST
    from p2p.roster import TableRules
    from tests.live_support import seat_live_table

    assert STALL_AT_LEAST == SILENCE + 1.0
    stack, peers = await seat_live_table(tmp_path, 2, person=False, rules=TableRules(turn_s=turn_s))
    async with stack:
        assert [p.machine.stall_s for p in peers] == [stall_s, stall_s]


async def test_11_3_a_seat_whose_program_fails_stays_resumable_as_after_a_kill(tmp_path: Path) -> None:
    """An error in this program that unwinds a seat is no end of its game: the log is
    left unclosed and the journal in place, as a kill leaves them, so `--resume` takes
    the seat back (the log was closed "the peer stopped" and the journal removed: the
    others waited out their grace period for a seat that could not come back)."""
    from p2p.log import read_log
    from p2p.roster import TableRules
    from cli.resume import find_journal
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 2, person=False, rules=TableRules(target=5000), journals=True)
    seat, other = peers
    async with stack:
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(other.run)
                failed: list[BaseException] = []

                async def run_failing_seat() -> None:
                    try:
                        await seat.run()
                    except Exception as exc:
                        failed.append(exc)

                nursery.start_soon(run_failing_seat)
                await until(lambda: seat.machine.round_number >= 1, seat)
                assert seat._nursery is not None and seat.journal is not None

                async def fault() -> None:
                    raise RuntimeError("a fault of the program")

                seat._nursery.start_soon(fault)
                await until(lambda: bool(failed), seat)
                assert read_log(seat.log.path).ended is None
                assert find_journal(tmp_path / "peer0", None) == seat.journal.path
                nursery.cancel_scope.cancel()


def test_11_3_a_seat_still_playing_is_not_offered_nor_resumed_by_a_second_process(tmp_path: Path) -> None:
    """The process playing a seat holds its journal: another process (here, another
    open file) neither lists it as unfinished nor reopens it, and the file is left
    untouched (a second `--resume` cut a live log and signed in the seat's place)."""
    from cli.resume import find_journal, waiting_game, why_none_resumable
    from p2p.appendfile import FileInUse
    from p2p.journal import STILL_PLAYED, Journal

    path = tmp_path / "games" / "g.journal"
    journal = Journal.create(path, game=bytes(32), seat=0, seed=bytes(32), log=tmp_path / "g.log", port=4000,
                             addresses=[None, ("127.0.0.1", 4001)], roster=b"R")
    with open(path, "ab") as torn:  # (a frame being written: a second process would cut it)
        torn.write(b"\x00\x00")
    before = path.stat()
    assert unfinished_journals(tmp_path) == [] and unfinished_journals(tmp_path, held=True) == [path]
    assert find_journal(tmp_path, None) is None and waiting_game(tmp_path, local=False) is None
    assert why_none_resumable(tmp_path, None) == STILL_PLAYED
    with pytest.raises(FileInUse):
        Journal.reopen(path)
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    journal.close(finished=False)
    assert find_journal(tmp_path, None) == path
    Journal.reopen(path)[0].close(finished=False)


def test_11_3_a_seat_is_not_resumed_after_its_machine_restarted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal's writes are not synced one by one, so a power cut may lose its last
    records, already sent: a seat resumed from it could sign against them and be
    convicted (§7.3). A journal of another boot is not offered, not resumed, and the
    player is told why; one whose boot is not known is resumed as before."""
    from cli.resume import find_journal, waiting_game, why_none_resumable
    from p2p import journal as journals

    boot = tmp_path / "boot_id"
    monkeypatch.setattr(journals, "_BOOT_ID", boot)
    boot.write_text("first boot\n")
    path = tmp_path / "games" / "g.journal"
    journals.Journal.create(path, game=bytes(32), seat=0, seed=bytes(32), log=tmp_path / "g.log", port=4000,
                            addresses=[None, ("127.0.0.1", 4001)], roster=b"R").close(finished=False)
    assert journals.read_journal(path).boot == "first boot"
    assert find_journal(tmp_path, None) == path and waiting_game(tmp_path, local=False) is not None
    boot.write_text("second boot\n")
    assert find_journal(tmp_path, None) is None and waiting_game(tmp_path, local=False) is None
    why = why_none_resumable(tmp_path, None)
    assert why is not None and why.startswith("this machine restarted since that game stopped")
    boot.unlink()  # (a system that names no boot)
    assert find_journal(tmp_path, None) == path


async def test_11_3_a_fault_of_the_screen_leaves_the_seat_resumable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The screen and the seat run side by side: a fault of the screen cancelled the seat,
    which closed its log and removed its journal as if the game had ended, so the game
    could not be resumed. It is a fault of the program, not an end: both stay, as after a
    kill."""
    import argparse

    import cli.game
    import cli.tui
    from cli.resume import find_journal
    from p2p.log import read_log
    from tests.live_support import seat_live_lobby
    from tests.tui_support import ScreenHarness

    async def broken_screen(peer: TablePeer, **kwargs: object) -> None:
        await until(lambda: peer.machine.round_number >= 1, peer)
        raise RuntimeError("a fault of the screen")

    monkeypatch.setattr(cli.tui, "run_client", broken_screen)  # (play_seat takes it from there)
    log_path = tmp_path / "seat2.bandit-log"
    args = argparse.Namespace(headless=False, seed=2, json=True, memory_aid=False,
                              state_dir=tmp_path / "state")
    harness = ScreenHarness()
    async with harness.open(), AsyncExitStack() as stack:
        lobby = await seat_live_lobby(tmp_path, 2, stack)
        other = TablePeer(lobby.meshes[0], lobby.results[0], lobby.ids[0], log_path=tmp_path / "seat1.bandit-log",
                          bot=NormalBot(), seed=1, grace=600.0)
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(other.run)
                with pytest.raises(Exception) as raised:  # (it may come wrapped in the nurseries' groups)
                    with cli.game.SeatBook(lobby.meshes[1], args) as book:
                        await cli.game.play_seat(lobby.meshes[1], lobby.results[1], lobby.ids[1], args, log_path,
                                                 terminal=harness.terminal, seated=journal_as_signed(book, lobby.results[1]))
                assert "RuntimeError('a fault of the screen')" in repr(raised.value)
                nursery.cancel_scope.cancel()
    assert read_log(log_path).ended is None
    assert find_journal(tmp_path / "state", None) is not None


async def _crash(peer: TablePeer) -> None:
    """The seat's program fails mid-game: its log stays unclosed and its journal in place,
    as after a kill (§11.3); its links go down without a goodbye."""
    assert peer._nursery is not None

    async def fault() -> None:
        raise RuntimeError("the process dies here")

    peer._nursery.start_soon(fault)
    await until(lambda: peer.failed, peer)
    await peer.mesh.aclose("the process died", away=True)


@pytest.mark.parametrize("away", ["never-back", "back"])
async def test_s9_8_a_seat_that_leaves_while_another_is_away_closes_a_log_that_audits(tmp_path: Path, away: str) -> None:
    """A seat stopped while another is away cannot have its `leave` delivered before it
    goes: nothing is stable without the absent seat's promises (§7.4). Its log says so
    (`log.end` with `left` and the signed `leave`, §10.1) and audits clean, naming the
    departure (it ended "before the game did" and failed). The others keep the `leave`:
    if the absent seat comes back (resumed), everybody's game ends at it, and the three
    logs tell one game; if not, the others end the game after their grace period. Meanwhile
    they wait for the absent seat, not for the one that left (they read "waiting for"
    both, as if the leaver might come back). (The seat goes away once the deal is over
    everywhere and nobody decides anything: a message ordered before the `leave` that
    opens a reveal the leaver owes shares for holds the `leave` back, and then only the
    grace period ends the game, §9.8.)"""
    from p2p.agreement import compare
    from p2p.journal import Journal
    from p2p.lobby import LobbyResult
    from p2p.log import FairnessLog, read_log
    from p2p.peer import Resumption, table_schemas
    from tests.live_support import LOOPBACK, seat_live_table
    from p2p.transport import LinkDown, open_mesh

    stack, seats = await seat_live_table(tmp_path, 3, person=False, journals=True)
    stayer, leaver, gone = seats
    for seat in seats:  # (no decisions: after the deal, nothing is sent that opens a reveal, R4, R5)
        seat.driver = None
    shorten_grace(stayer, 1.0 if away == "never-back" else 60.0)

    async with stack:
        with trio.fail_after(90):
            async with trio.open_nursery() as nursery:
                summaries = start_seats(nursery, seats, crashing=(gone,))
                # (crashed mid-deal, the seat would send its step of the deal again once back,
                # ordered before the leave, and the reveals after it would wait for the
                # leaver's shares: only the grace period would end the game, §9.8)
                await until(lambda: all(dealt(seat) for seat in seats), *seats)
                await _crash(gone)
                await leaver.leave("it was stopped")
                await until(lambda: leaver.me in summaries, leaver)
                assert summaries[leaver.me].left
                if away == "back":
                    # (the stayer waits for the seat away, not for the one that left: its leave ends the game)
                    names = stayer.names
                    await _told(stayer, f"{names[leaver.me]} left the table; the game ends when {names[gone.me]} "
                                        f"is back (or in ")
                    assert stayer.progress.waiting_for == (gone.me,) and stayer.progress.gone == (leaver.me,)
                    # (a link to it came up again, dialled by the seat itself, and ended again: not told again)
                    stayer._on_event(LinkDown(leaver.identity.peer_id, "connection closed", clean=True))
                    assert sum(line.text.startswith(f"{names[leaver.me]} left the table;") for line in stayer.lines) == 1
                    assert not any(line.text.startswith(f"Lost the link to {names[leaver.me]}") for line in stayer.lines)
                    assert gone.journal is not None
                    log, contents = FairnessLog.reopen(gone.log.path, gone.identity)
                    journal, held = Journal.reopen(gone.journal.path)
                    seated = LobbyResult(gone.game_id, gone.roster, contents.header.roster, contents.header.signatures,
                                         gone.me)

                    async def resume() -> None:
                        # (as `--resume` does when its old port is taken, as here: the crashed mesh still
                        # listens there; every other seat's address from the journal)
                        async with open_mesh(gone.identity, table_schemas(), bind=LOOPBACK) as mesh:
                            mesh.set_table(gone.roster.table_nonce)
                            for member, address in zip(gone.roster.members, held.addresses):
                                if member.seat != gone.me:
                                    mesh.expect(member.cert, address)
                            summaries[gone.me] = await TablePeer(
                                mesh, seated, gone.identity, log_path=gone.log.path,
                                resume=Resumption(log, contents, journal, held, unreachable=True)).run()

                    nursery.start_soon(resume)
    ended = read_log(leaver.log.path)
    assert ended.left == "it was stopped" and ended.leave is not None and ended.absent is None
    mine = audit(leaver.log.path)
    assert mine.ok and not mine.finished, mine.first_failure
    assert mine.left is not None and mine.left.seat == leaver.me and "closed before that leave came back" in mine.left.told
    assert any("had not delivered this seat's leave" in note.text for note in ended.notes)
    theirs = audit(stayer.log.path)
    assert theirs.ok and theirs.left is not None, theirs.first_failure
    if away == "never-back":
        assert theirs.left.seat in (gone.me, leaver.me) and "was away" in summaries[stayer.me].why
        return
    # Back within the grace period: the leave, relayed by the stayer, ends every game at one point.
    assert theirs.left.seat == leaver.me and summaries[stayer.me].departed == leaver.names[leaver.me]
    assert summaries[gone.me].departed == leaver.names[leaver.me]
    logs = [mine, theirs, audit(gone.log.path)]
    assert logs[2].ok and logs[2].left is not None and logs[2].left.seat == leaver.me
    assert read_log(stayer.log.path).messages[-1][0] == ended.leave[0]  # (the leave the leaver's log holds)
    agreement = compare(logs)
    assert agreement.ok, agreement.parting


@asynccontextmanager
async def _taken_back(gone: TablePeer, *, stopped: float | None = None,
                      grace: float | None = None) -> AsyncIterator[TablePeer]:
    """`gone`'s seat, crashed (`_crash`), taken back as `--resume` takes it: from its log
    and journal, at a new port (the crashed mesh still listens at its old one), dialling
    every seat; `stopped`: its journal's age."""
    from p2p.journal import Journal
    from p2p.lobby import LobbyResult
    from p2p.log import FairnessLog
    from p2p.peer import Resumption, table_schemas
    from p2p.transport import open_mesh
    from tests.live_support import LOOPBACK

    assert gone.journal is not None
    log, contents = FairnessLog.reopen(gone.log.path, gone.identity)
    journal, held = Journal.reopen(gone.journal.path)
    seated = LobbyResult(gone.game_id, gone.roster, contents.header.roster, contents.header.signatures, gone.me)
    async with open_mesh(gone.identity, table_schemas(), bind=LOOPBACK) as mesh:
        mesh.set_table(gone.roster.table_nonce)
        for member, address in zip(gone.roster.members, held.addresses):
            if member.seat != gone.me:
                mesh.expect(member.cert, address)
        yield TablePeer(mesh, seated, gone.identity, log_path=gone.log.path, grace=grace,
                        resume=Resumption(log, contents, journal, held, unreachable=True, stopped=stopped))


async def test_s11_3_a_seat_resumed_while_another_is_still_away_says_whom_it_reached_and_whom_it_waits_for(
        tmp_path: Path) -> None:
    """Bo's and Cy's programs die; Cy is taken back and reaches Ann, Bo never comes
    back. Cy's screen said only "reconnecting to the table…" until the game ended: not
    that Ann answered, nor that the table waited for Bo. Each seat reached is told, with
    whom it still waits for and how long the game waits."""
    from tests.live_support import seat_live_table

    stack, seats = await seat_live_table(tmp_path, 3, person=False, journals=True)
    ann, bo, cy = seats
    async with stack:
        with trio.fail_after(90):
            async with trio.open_nursery() as nursery:
                summaries = start_seats(nursery, (ann, bo, cy), crashing=(bo, cy))
                await until(lambda: ann.machine.round_number >= 1, ann)
                await _crash(bo)
                await _crash(cy)
                async with _taken_back(cy, stopped=1.0) as again:
                    start_seats(nursery, (again,), into=summaries)
                    names = again.names
                    await _told(again, f"Reconnected to {names[ann.me]}; waiting for {names[bo.me]} (the game ends if "
                                       "they are not back within ")
                    assert again.progress.waiting_for == (bo.me,)
                    assert not any(line.text.startswith("Back at the table") for line in again.lines)
                    for peer in (ann, again):
                        peer._finish("the test ends here")
                    await until(lambda: again.me in summaries and ann.me in summaries, ann, again)


async def test_s11_3_a_seat_resumed_after_the_others_ended_the_game_for_it_names_nobody_absent(
        tmp_path: Path) -> None:
    """Bo's program dies mid-game; Ann and Cy end the game after their grace period,
    naming him away, and exit. Bo's `--resume`, which found his journal older than the
    grace period, waited a whole grace period for the others, then named Ann absent in
    his signed log: an honest player accused, and the audit found a two-sided cut where
    only Bo was away. Resumed that late, a seat is as one back from a stop past the grace
    period: it offers no move, and once no seat answers it leaves, naming nobody, in the
    same words; the three logs tell one story."""
    from p2p.agreement import compare
    from p2p.log import read_log
    from tests.live_support import seat_live_table

    stack, seats = await seat_live_table(tmp_path, 3, person=False, journals=True)
    ann, bo, cy = seats
    async with stack:
        with trio.fail_after(90):
            async with trio.open_nursery() as nursery:
                summaries = start_seats(nursery, (ann, bo, cy), crashing=(bo,))
                await until(lambda: ann.machine.round_number >= 1 and cy.machine.round_number >= 1, ann, cy)
                await _crash(bo)
                for peer in (ann, cy):
                    shorten_grace(peer, 1.0)
                await until(lambda: ann.me in summaries and cy.me in summaries, ann, cy)
                for peer in (ann, cy):  # (their programs exit: nobody answers Bo now)
                    await peer.mesh.aclose()
                # (as `--resume` finds it: its journal last marked alive 12 s ago, past the grace period;
                # longer than `BACK_FROM_STOP_WAIT`, so that it leaves as no seat answers, not as that runs out)
                async with _taken_back(bo, stopped=12.0, grace=10.0) as again:
                    start_seats(nursery, (again,), into=summaries)
                    await until(lambda: again.me in summaries, again)
    how = "program was stopped for 12 s, longer than the table's grace period (10 s)"
    assert summaries[bo.me].why == f"your {how}: the others have ended the game, naming you away", summaries[bo.me]
    said = [line.text for line in again.lines]
    assert any(text.endswith("reconnecting to the table (you leave it if no seat answers within 7 s)…")
               for text in said), said
    assert not any(" was away for more than " in text for text in said), said
    ended = read_log(bo.log.path)
    assert ended.absent is None and ended.left == f"their {how}", ended
    # (§9.8: it left without waiting for its leave to come back: no "after 0 s")
    left = [note.text for note in ended.notes if note.section == "§9.8"]
    assert len(left) == 1 and left[0].startswith("this seat did not wait for its leave to come back delivered (it "
                                                 f"would have waited for {bo.names[ann.me]}, {bo.names[cy.me]}): "), left
    results = [audit(peer.log.path) for peer in seats]
    assert all(result.ok for result in results), [r.first_failure for r in results]
    assert [r.left.seat for r in results if r.left is not None] == [bo.me] * 3
    agreement = compare(results)  # (every log names Bo's departure: no "they differ on who was away")
    assert agreement.agree and agreement.away is None and "differ" not in agreement.summary(), agreement.summary()


async def test_s9_8_a_seat_that_left_is_not_dialled_again_and_a_seat_away_still_is(tmp_path: Path) -> None:
    """Bo leaves while Cy is away (its program died): Bo's leave cannot come back, so he
    goes once his wait is over, saying goodbye. Ann, the lower seat of both pairs, went on
    dialling Bo's old address until her game ended, though he had left for good (§9.8);
    she dials only Cy, who may come back (§11.3)."""
    from functools import partial

    from tests.live_support import seat_live_table

    stack, (ann, bo, cy) = await seat_live_table(tmp_path, 3, person=False)
    bo._await_leave = partial(TablePeer._await_leave, bo, 0.5)  # type: ignore[method-assign]  # (not LEAVE_WAIT's 3 s)
    dialled: list[bytes] = []
    dial = ann.mesh.dial

    def dialling(peer: bytes) -> None:
        dialled.append(peer)
        dial(peer)

    ann.mesh.dial = dialling  # type: ignore[method-assign]
    cy_id = cy.identity.peer_id
    async with stack:
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                summaries = start_seats(nursery, (ann, bo, cy), crashing=(cy,))
                await until(lambda: ann.machine.round_number >= 1, ann)
                await _crash(cy)
                await until(lambda: cy.me in ann.progress.waiting_for and cy.me in bo.progress.waiting_for, ann, bo)
                await bo.leave("they had to go")  # (his leave cannot come back: he goes after his wait)
                await until(lambda: bo.me in summaries, bo)
                names = ann.names
                await _told(ann, f"{names[bo.me]} left the table; the game ends when {names[cy.me]} is back")
                assert bo.me in ann.orderer.gone() and summaries[bo.me].left
                before = len(dialled)
                await until(lambda: dialled[before:].count(cy_id) >= 3, ann)  # (a dial of Cy fails: Ann is told)
                ann._finish("the test ends here")
    assert dialled.count(bo.identity.peer_id) == 0


async def test_s9_8_a_seat_waiting_for_its_leave_to_come_back_dials_a_lower_seat_whose_link_it_lost(
        tmp_path: Path) -> None:
    """Bo leaves while Cy is away, so his leave cannot come back yet, and his link to Ann
    drops as he waits: Ann, who took his leave, no longer dials him (§9.8), and Bo, the
    higher seat, did not dial her, so nobody made the link again. He dials every seat
    once his leave is sent."""
    from functools import partial

    from tests.live_support import seat_live_table

    stack, (ann, bo, cy) = await seat_live_table(tmp_path, 3, person=False)
    bo._await_leave = partial(TablePeer._await_leave, bo, 60.0)  # type: ignore[method-assign]  # (waits on)
    bo_id = bo.identity.peer_id
    async with stack:
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                start_seats(nursery, (ann, bo, cy), crashing=(cy,))
                await until(lambda: ann.machine.round_number >= 1, ann)
                await _crash(cy)
                await until(lambda: cy.me in ann.progress.waiting_for and cy.me in bo.progress.waiting_for, ann, bo)
                nursery.start_soon(bo.leave, "they had to go")
                await until(lambda: bo.me in ann.orderer._departed and bo_id in ann.mesh.linked(), ann)
                ann.mesh.close_link(bo_id, "as a lost link would")
                await until(lambda: ann.me in bo._absent, bo)
                with trio.move_on_after(20):
                    await until(lambda: bo_id in ann.mesh.linked(), ann)
                reached = bo_id in ann.mesh.linked()
                for peer in (ann, bo):
                    peer._finish("the test ends here")
    assert reached


async def test_s9_8_a_seat_killed_after_it_sent_its_leave_dials_every_seat_when_it_is_taken_back(
        tmp_path: Path) -> None:
    """Bo sends his leave while Cy is away and his program dies before it came back: Ann,
    who took the leave, no longer dials him (§9.8), so Bo, taken back, must dial her
    himself, though she sits lower. (His dead mesh still holds his old port here, so he
    listens on another, but is taken back as if his old port were free: not `unreachable`,
    which would have him dial every seat anyway.)"""
    from p2p.journal import Journal
    from p2p.lobby import LobbyResult
    from p2p.log import FairnessLog
    from p2p.peer import Resumption, table_schemas
    from p2p.transport import open_mesh
    from tests.live_support import LOOPBACK, seat_live_table

    stack, (ann, bo, cy) = await seat_live_table(tmp_path, 3, person=False, journals=True)
    async with stack:
        with trio.fail_after(90):
            async with trio.open_nursery() as nursery:
                start_seats(nursery, (ann, bo, cy), crashing=(bo, cy))
                await until(lambda: ann.machine.round_number >= 1, ann)
                await _crash(cy)
                await until(lambda: cy.me in ann.progress.waiting_for and cy.me in bo.progress.waiting_for, ann, bo)
                leaving = trio.CancelScope()

                async def leave() -> None:
                    with leaving:
                        await bo.leave("they had to go")

                nursery.start_soon(leave)
                await until(lambda: bool(bo.orderer.sent_of("leave")), bo)
                leaving.cancel()
                await _crash(bo)  # (its leave went out before its goodbye)
                await until(lambda: bo.me in ann.orderer.gone(), ann)
                assert bo.journal is not None
                log, contents = FairnessLog.reopen(bo.log.path, bo.identity)
                journal, held = Journal.reopen(bo.journal.path)
                seated = LobbyResult(bo.game_id, bo.roster, contents.header.roster, contents.header.signatures, bo.me)
                async with open_mesh(bo.identity, table_schemas(), bind=LOOPBACK) as mesh:  # (another port)
                    mesh.set_table(bo.roster.table_nonce)
                    for member, address in zip(bo.roster.members, held.addresses):
                        if member.seat != bo.me:
                            mesh.expect(member.cert, address)
                    back = TablePeer(mesh, seated, bo.identity, log_path=bo.log.path, bot=NormalBot(),
                                     resume=Resumption(log, contents, journal, held))
                    nursery.start_soon(back.run)
                    with trio.move_on_after(20):
                        await until(lambda: bo.identity.peer_id in ann.mesh.linked(), ann)
                    reached = bo.identity.peer_id in ann.mesh.linked()
                    for peer in (ann, back):
                        peer._finish("the test ends here")
    assert reached


async def test_s10_2_a_leaver_that_catches_a_fork_while_it_waits_keeps_its_own_leave_and_the_proof(tmp_path: Path) -> None:
    """Seat 0 leaves (§9.8) while seat 1 is away, so its leave cannot come back; as it
    waits, a second body signed as seat 2's seq 0 arrives: a fork, proven (§7.10), and
    told to the others in a second `leave` with the verdict's reason (§11.2). The log's
    end holds the player's own leave, and the audit names seat 2 from the evidence kept
    (it read the log as altered, naming nobody, when the end held the verdict's leave
    under the player's reason)."""
    from p2p.identity import load_or_create_identity
    from p2p.log import read_log
    from p2p.signing import signed_message
    from p2p.wire import decode_map
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False)
    me = next(p for p in peers if p.me == 0)
    away = next(p for p in peers if p.me == 1)
    cheat = next(i for i in (load_or_create_identity(tmp_path / f"peer{n}") for n in range(3))
                 if i.peer_id == me.orderer.seats[2])
    async with stack:
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                start_seats(nursery, peers, crashing=(away,))
                await until(lambda: me.orderer._peers[2].next_seq >= 2, me)
                await _crash(away)
                nursery.start_soon(me.leave, "it was stopped")
                await until(lambda: bool(me.orderer.sent_of("leave")), me)  # (signed: it may wait, §7.3)
                inner = dict(me.orderer._peers[2].envelopes[0].inner)
                inner["lamport"] = int(inner["lamport"]) + 1000
                me._receive(cheat.peer_id, signed_message(cheat, inner))  # (on seat 2's own link)
                await until(lambda: me._done.is_set(), me)
                for other in peers:
                    other._finish("the test ends here")
    end = read_log(me.log.path)
    assert end.leave is not None and decode_map(end.leave[0])["reason"] == end.left == "it was stopped"
    assert [decode_map(e.body)["reason"] for e in me.orderer.sent_of("leave")][0] == "it was stopped"
    result = audit(me.log.path)
    assert result.first_failure is not None and result.first_failure.seat == 2, result.first_failure
    assert result.first_failure.section == "§7.2"


def test_s11_3_a_seat_stopped_past_the_grace_period_is_told_so_and_accuses_nobody(tmp_path: Path) -> None:
    """bo's process is stopped (Ctrl-Z) mid-game until alice and cy have ended the game,
    naming him away after their grace period (10 s). Running again, he read that alice was
    away, and his signed log named her absent. Now he tries to reach the table, reaches
    nobody, and reads that he was the one away: his log names nobody absent, it says his
    seat left (§9.8, §10.1), and every log audits, the others' naming him."""
    from p2p.agreement import compare
    from p2p.log import read_log

    host, where, seen, common = porch(tmp_path, 3, 100, 10)
    procs = [host]
    try:
        bo = bandit("join", "--peer", where, "--name", "bo", "--state-dir", str(tmp_path / "b"), *common)
        procs.append(bo)
        cy = bandit("join", "--peer", where, "--name", "cy", "--state-dir", str(tmp_path / "c"), *common)
        procs.append(cy)
        bo_seen: list[str] = []
        read_until(bo, r"Round 1: every shuffle", bo_seen)  # mid-game: round 2 is being dealt
        os.kill(bo.pid, signal.SIGSTOP)
        try:
            others = [finish(p, seen if p is host else [], 90) for p in (host, cy)]
        finally:
            os.kill(bo.pid, signal.SIGCONT)
        rc, out = finish(bo, bo_seen, 60)
    finally:
        kill_all(procs)
    for their_rc, theirs in others:
        assert their_rc == 1 and "the game ended: bo was away for more than 10 s" in theirs, theirs
    assert rc == 1, out
    assert re.search(r"the game ended: your program was stopped for \d+ s, longer than the table's grace period "
                     r"\(10 s\): the others have ended the game, naming you away", out), out
    assert not re.search(r"(alice|cy) was away", out), out
    logs = [Path(re.search(r"^Log: (\S+)", text, re.M).group(1)) for _, text in (*others, (rc, out))]  # type: ignore[union-attr]
    ended = read_log(logs[2])
    assert ended.absent is None and re.fullmatch(r"their program was stopped for \d+ s, longer than the table's grace "
                                                 r"period \(10 s\)", ended.left or ""), ended
    results = [audit(path) for path in logs]
    bo_seat = results[2].writer
    for result in results:
        assert result.ok and result.left is not None and result.left.seat == bo_seat, result.first_failure
    assert "closed before that leave came back" in results[2].left.told
    assert compare(results).ok


async def test_s11_3_a_seat_back_from_a_stop_within_the_grace_period_that_reached_nobody_says_so(
        tmp_path: Path) -> None:
    """bo's program was stopped for 10 s, less than the grace period (15 s), and reached
    no other seat again in time: his leave's reason, his log's end and his line say so
    (its reason said he was stopped for longer than the grace period)."""
    from engine import Phase
    from p2p.log import read_log
    from p2p.wire import decode_map
    from tests.live_support import seat_live_table

    stack, (me, bot) = await seat_live_table(tmp_path, 2)
    me.grace = 15.0
    async with stack, running([me, bot]):
        await until(lambda: me.view().phase is Phase.PEEK, me)
        me._rejoin_failed(10.0)  # (as `_check_links` finds it when no seat was reached in time)
        await until(lambda: me._done.is_set(), me)
        bot._finish("the test ends here")
    reason = "their program was stopped for 10 s, and could not reach the table again within its grace period (15 s)"
    assert [e.inner["reason"] for e in me.orderer.sent_of("leave")] == [reason]
    log = read_log(me.log.path)  # (the leave comes back delivered here, bot being reachable, or the log says it left)
    delivered = [inner["reason"] for inner in (decode_map(body) for body, _ in log.messages) if inner["type"] == "leave"]
    assert log.left == reason or delivered == [reason], (log.left, delivered)
    said = ("Your program was stopped for 10 s, and could not reach the table again within its grace period (15 s): "
            "the others have ended the game, naming you away.")
    assert said in [line.text for line in me.lines], me.lines  # (the round's first line may come after it)


@pytest.mark.parametrize("first", ["the stop's end", "the player"])
async def test_s9_8_a_seat_that_leaves_for_a_stop_as_its_player_leaves_sends_one_leave_and_the_first_reason_stands(
        tmp_path: Path, first: str) -> None:
    """Back from a stop, Ann's seat finds it reached nobody in time and leaves; her player
    leaves at the same moment. The stop's end had its goodbye sent by a task of its own:
    the player's leave, taken before that task ran (or after it), went out as well, two
    `leave`s, and the later reason replaced the first in the log's end. Now the first
    decision to leave sends the one `leave`; the second only waits with it."""
    from engine import Phase
    from p2p.log import read_log
    from p2p.session import CHOSE_TO_LEAVE, left_the_table, unanswered_after_stop
    from p2p.wire import decode_map
    from tests.live_support import seat_live_table

    stack, (me, bot) = await seat_live_table(tmp_path, 2)
    me.grace = 15.0
    how = "was stopped for 10 s, and could not reach the table again within its grace period (15 s)"
    async with stack, running([me, bot]) as summaries:
        await until(lambda: me.view().phase is Phase.PEEK, me)
        if first == "the stop's end":
            me._rejoin_failed(10.0)  # (and the player leaves before anything else runs)
            await me.leave()
        else:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(me.leave)
                await until(lambda: me.progress.leaving, me)  # (the player's leave is sent)
                me._rejoin_failed(10.0)
        await until(lambda: me._done.is_set(), me)
        bot._finish("the test ends here")
    reason, why, ended = ((f"their program {how}", f"your program {how}: the others have ended the game, naming you "
                           "away", unanswered_after_stop("Ann", how)) if first == "the stop's end"
                          else (CHOSE_TO_LEAVE, "you left the table", left_the_table("Ann")))
    assert [e.inner["reason"] for e in me.orderer.sent_of("leave")] == [reason]
    assert summaries[0].why == why
    log = read_log(me.log.path)  # (the leave comes back delivered here, bot being reachable, or the log says it left)
    delivered = [inner["reason"] for inner in (decode_map(body) for body, _ in log.messages) if inner["type"] == "leave"]
    assert log.ended == ended and (log.left == reason or delivered == [reason]), (log.left, log.ended, delivered)
    assert (f"Your program {how}: the others have ended the game, naming you away." in [line.text for line in me.lines]) \
        is (first == "the stop's end")


async def test_s11_3_the_time_a_process_was_stopped_counts_toward_no_absence(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """cy is gone; then the process of the other two stops (a laptop asleep) for 20 s,
    longer than the grace period (15 s). Running again, each ended the game at once,
    naming cy away for those 20 s it did not run. Now cy's absence counts only while they
    run: they wait for cy as long as before the stop, and the two of them, whose link
    held, go on."""
    from engine import Phase
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3)
    me, bot, cy = peers
    for peer in (me, bot):
        peer.grace = 15.0
    async with stack:
        async with _one_to_crash(peers, cy) as table:
            await until(lambda: me.view().phase is Phase.PEEK, me)  # (the person's turn to look: nothing moves)
            await table.crash()
            await until(lambda: cy.me in me._absent and cy.me in bot._absent, me, bot)
            since = me._absent[cy.me]
            mock_clock.jump(20.0)
            await trio.testing.wait_all_tasks_blocked()
            assert not me.progress.ended and not bot.progress.ended, me._why
            assert me._absent[cy.me] - since >= 18  # (all of the stop but what ran before the timer was due)
            assert cy.me in me.progress.waiting_for and me.machine.seats[bot.me] in me.mesh.linked()
            for peer in (me, bot):
                peer._finish("the test ends here")


@pytest.mark.parametrize("seats", [3, 4, 5])
async def test_s11_3_a_seat_back_from_a_stop_past_the_grace_period_names_nobody_it_cannot_reach(
        tmp_path: Path, mock_clock: trio.testing.MockClock, seats: int) -> None:
    """The processes of Ann and Bot 1 stop for 30 s, longer than the grace period (15 s);
    meanwhile the others' (Bot 2, and Bot 3 at four seats) end the game, naming Ann
    away, and are gone. Running again, Ann's peer reached Bot 1 but not Bot 2, and 15 s
    later her log named Bot 2 absent, as if he had left: an honest player accused in a
    signed log. A seat whose own stop ran past the grace period names nobody absent,
    whatever it reaches after it: it leaves, saying whom it could not reach, and every
    log audits (the others' name Ann absent; Ann's and Bot 1's say that their writer left)."""
    from p2p.agreement import compare
    from p2p.log import read_log
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, seats)
    ann, bot1, *others = peers
    for peer in peers:
        peer.grace = 15.0
    async with stack, running(peers) as summaries:
        await _at_the_look(ann, mock_clock)
        mock_clock.jump(30.0)  # (Ann and Bot 1 stopped; the others, running, end the game for Ann:)
        for other in others:
            other._finish("Ann was away for more than 15 s; round 1 is void", absent=ann.me)
        for _ in range(60):
            await trio.testing.wait_all_tasks_blocked()
            if ann.progress.ended and bot1.progress.ended:
                break
            mock_clock.jump(1.0)
    how = "program was stopped for 30 s, longer than the table's grace period (15 s)"
    gone = listed([ann.names[peer.me] for peer in sorted(others, key=lambda peer: peer.me)])  # (in seat order)
    has = "has" if seats == 3 else "have"
    ended = f"{gone} {has} likely ended the game, naming you away, and could not be reached again"  # (Bot 1 was reached)
    assert summaries[0].why == f"your {how}: {ended}", summaries[0].why
    assert [line.text for line in ann.lines if line.kind == "error"] == [f"Your {how}: {ended}."]
    log = read_log(ann.log.path)
    assert log.absent is None and log.left == f"their {how}" and log.ended == f"Ann's {how}; {gone} did not answer " \
                                                                              "after it", log
    results = [audit(peer.log.path) for peer in peers]
    assert all(result.ok for result in results), [r.first_failure for r in results]
    assert [r.left.seat for r in results if r.left is not None] == [ann.me, bot1.me] + [ann.me] * len(others)
    agreement = compare(results)
    named = {3: "Bot 2's log names", 4: "Bot 2's and Bot 3's logs name",
             5: "Bot 2's, Bot 3's and Bot 4's logs name"}[seats]
    assert agreement.agree and agreement.away == (f"Ann's log says its writer, Ann, left; {named} Ann absent; Bot 1's "
                                                  "log says its writer, Bot 1, left"), agreement.away


@pytest.mark.parametrize("seats", [3, 4, 5])
async def test_s11_3_a_seat_back_from_a_stop_past_the_grace_period_that_reaches_some_seats_says_who_answered(
        tmp_path: Path, mock_clock: trio.testing.MockClock, seats: int) -> None:
    """The processes of Ann and Bot 1 stop for 30 s, longer than the grace period (15 s),
    and the others end the game meanwhile. Running again, Ann read "Reconnecting to the
    table (the game ends if that takes more than 7 s)…", then nothing for 15 s although
    Bot 1 answered and the game did not end 7 s later. Now she reads that she leaves if no
    seat answers within 7 s, then who answered, who did not, and how long her peer waits
    for them before it leaves."""
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, seats)
    ann, bot1, *others = peers
    for peer in peers:
        peer.grace = 15.0
    async with stack, running(peers):
        await _at_the_look(ann, mock_clock)
        before = len(ann.lines)
        mock_clock.jump(30.0)  # (Ann and Bot 1 stopped; the others, running, end the game for Ann:)
        woke = ann.now()
        for other in others:
            other._finish("Ann was away for more than 15 s; round 1 is void", absent=ann.me)
        said: dict[str, float] = {}  # (what Ann reads after the stop, and how long after it)
        for _ in range(60):
            await trio.testing.wait_all_tasks_blocked()
            for line in ann.lines[before:]:
                said.setdefault(line.text, ann.now() - woke)
            if ann.progress.ended and bot1.progress.ended:
                break
            mock_clock.jump(1.0)
    gone = listed([ann.names[peer.me] for peer in sorted(others, key=lambda peer: peer.me)])  # (in seat order)
    has = "has" if seats == 3 else "have"
    told = [text for text in said if not text.startswith("This program did not run")]
    assert told[:3] == [
        "Reconnecting to the table (you leave it if no seat answers within 7 s)…",
        f"Bot 1 answered; {gone} {has} not: waiting 8 s more for {'Bot 2' if seats == 3 else 'them'}, then you leave "
        f"the table ({gone} {has} likely ended the game, naming you away).",
        "Your program was stopped for 30 s, longer than the table's grace period (15 s): "
        f"{gone} {has} likely ended the game, naming you away, and could not be reached again.",
    ], told
    assert [said[text] for text in told[:3]] == [0.0, 7.0, 15.0]


@pytest.mark.parametrize("case", ["between-others", "to-this-seat", "and-one-away"])
async def test_s11_3_a_seat_back_from_a_stop_past_the_grace_period_tells_reports_apart_from_answers(
        tmp_path: Path, mock_clock: trio.testing.MockClock, case: str) -> None:
    """Ann's program is back from a 30 s stop (the grace period is 15 s) and reaches Bot 1
    and Bot 2, but Bot 1 reports no link to Bot 2 (or to Ann). Ann read "Bot 1 answered;
    Bot 2 has not", and her log's end said "Bot 2 did not answer after it", though Bot 2
    did; with only Ann in the report, she read that no seat answered. Now what others
    report is told as theirs, apart from who answered here ("and-one-away": Bot 3 ended
    the game meanwhile and does not answer)."""
    from p2p.log import read_log
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 4 if case == "and-one-away" else 3)
    ann, bot1, bot2, *others = peers
    for peer in peers:
        peer.grace = 15.0
    async with stack, running(peers) as summaries:
        await _at_the_look(ann, mock_clock)
        before = len(ann.lines)
        mock_clock.jump(30.0)  # (every process stopped but Bot 3's, which ends the game for Ann)
        woke = ann.now()
        for other in others:
            other._finish("Ann was away for more than 15 s; round 1 is void", absent=ann.me)
        cut = (ann.me,) if case == "to-this-seat" else (bot2.me,)
        ann.orderer.cut_off = lambda: {bot1.me: (woke, cut)}  # type: ignore[method-assign]
        said: dict[str, float] = {}
        for _ in range(60):
            await trio.testing.wait_all_tasks_blocked()
            for line in ann.lines[before:]:
                said.setdefault(line.text, ann.now() - woke)
            if ann.progress.ended:
                break
            mock_clock.jump(1.0)
        for peer in (bot1, bot2):
            peer._finish("the test ends here")
    how = "program was stopped for 30 s, longer than the table's grace period (15 s)"
    told = [text for text in said if "answered" in text or text.startswith("Your program")]
    one, two = ann.names[bot1.me], ann.names[bot2.me]
    if case == "and-one-away":
        three = ann.names[others[0].me]
        answered = listed([ann.names[seat] for seat in sorted((bot1.me, bot2.me))])
        assert told == [
            f"{answered} answered; {three} has not; {one} cannot reach {two}: waiting 8 s more for them, then you "
            f"leave the table ({three} has likely ended the game, naming you away).",
            f"Your {how}: {three} has likely ended the game, naming you away, and could not be reached again ({one} "
            f"could not reach {two} either).",
        ], told
        ended = f"Ann's {how}; {one} could not reach {two}; {three} did not answer after it"
    else:
        whom, them = ("you", "Ann") if case == "to-this-seat" else (two, two)
        assert told == [
            f"Every other seat answered, but {one} cannot reach {whom}: waiting 8 s more, then you leave the table.",
            f"Your {how}: every other seat answered after it, but {one} could not reach {whom} within the grace "
            "period.",
        ], told
        ended = f"Ann's {how}; every other seat answered after it; {one} could not reach {them} within the grace period"
    assert [said[text] for text in told] == [7.0, 15.0]
    assert summaries[0].why == f"your {told[-1][len('Your '):-1]}"
    log = read_log(ann.log.path)
    assert log.absent is None and log.left == f"their {how}" and log.ended == ended, log.ended


async def test_s11_3_a_seat_back_from_a_stop_past_the_grace_period_that_reaches_everybody_plays_on_as_before(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """Every process of the table stops for 30 s (the machines slept), past the grace
    period (15 s): nobody ended the game, and every seat is reached again. The table
    plays on as before the stop: a seat gone later is named absent when it stays away
    past the grace period, as ever."""
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3)
    me, bot, cy = peers
    for peer in peers:
        peer.grace = 15.0
    async with stack:
        async with _one_to_crash(peers, cy) as table:
            await _at_the_look(me, mock_clock)
            mock_clock.jump(30.0)
            for _ in range(10):  # (the wait to reach the table again, `BACK_FROM_STOP_WAIT`)
                await trio.testing.wait_all_tasks_blocked()
                mock_clock.jump(1.0)
            others = set(me.machine.seats) - {me.machine.seats[me.me]}
            assert not me.progress.ended and not me.rejoining and me.mesh.linked() >= others
            await table.crash()
            for _ in range(30):
                await trio.testing.wait_all_tasks_blocked()
                if me.progress.ended:
                    break
                mock_clock.jump(1.0)
            assert me._why.startswith(f"{cy.names[cy.me]} was away for more than 15 s"), me._why
            assert me._absent_seat == cy.me
            bot._finish("the test ends here")


async def test_s9_6_a_process_that_was_stopped_counts_the_stop_against_no_turn(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """The process of both peers stops (SIGSTOP, a laptop asleep) for 15 s soon after a
    10 s turn of the person at seat 1 began. Each peer's timer task wakes well past its
    deadline: it stands its clocks from 6 s (`SILENCE`) after its last frame, when the
    others would have taken it for gone, and the turn goes on with the time it had then
    (it is not timed out the moment the peers run again). The player reads how much of
    the stop counted (not that the clocks stood throughout)."""
    from engine import Phase, Ready
    from p2p.order import HEARTBEAT_EVERY
    from p2p.peer import SILENCE
    from p2p.roster import TableRules
    from tests.live_support import seat_live_table

    stack, (me, bot) = await seat_live_table(tmp_path, 2, rules=TableRules(turn_s=10))
    async with stack, running([me, bot]):
        await until(lambda: me.view().phase is Phase.PEEK and me.view().ready[1], me, bot)
        me.submit(Ready(0))
        await until(lambda: me.view().phase is Phase.START and me.view().turn_seat == 0, me, bot)
        began, turn = me.machine.turn_started_at(), me.view().turn
        assert began is not None and me.deadlines.turn == pytest.approx(began + 10)
        mock_clock.jump(1.0)
        await trio.testing.wait_all_tasks_blocked()  # (a heartbeat each: the last frames before the stop)
        last = me.orderer.last_sent
        assert last is not None
        mock_clock.jump(15.0)
        await trio.testing.wait_all_tasks_blocked()
        woke = me.now()
        assert me.view().turn == turn  # (before: timed out at once, and a new turn of mine under way)
        stood = woke - (last + SILENCE)
        assert me.machine.turn_started_at() == pytest.approx(began + stood)
        assert me.deadlines.turn == pytest.approx(began + stood + 10) and me.deadlines.turn > woke + 2
        # (each stands from its own last frame: the bot's heartbeat may have come just before the stop, or not)
        assert bot.machine.turn_started_at() == pytest.approx(me.machine.turn_started_at(), abs=HEARTBEAT_EVERY)
        # (the words say which part of the stop counted: the table's clocks ran until the others missed it)
        told = next(m for line in me.lines if (m := re.fullmatch(
            r"This program did not run for (1[45]) s \(it was stopped, or the computer slept\)\. The table.s timers "
            r"ran on for the first (\d+) s of it, until the others missed you, and were paused for the last (\d+) s\.",
            line.text)))
        assert int(told[2]) + int(told[3]) == int(told[1]) and int(told[3]) == round(stood), told[0]
        assert 14 <= me.progress.stopped_s <= 15  # (its screen shows what it showed that much longer)
        await me.leave()


async def test_s9_6_a_ready_sent_first_on_waking_from_a_stop_leaves_the_stop_noticed(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """The process of the person at seat 0 stops for 12 s while the player looks at the
    bottom cards; the look's 10 s run out meanwhile, so the first thing that runs on
    waking may be the screen sending "ready" (R4.3), before the peer's timer task or a
    link. The stop is still taken for one the others noticed (`SILENCE` after the last
    frame before it): the player reads that the clocks stood (before, the "ready" counted
    as the last frame the others heard, so the stop looked too short to be missed, and the
    seat went on as if its links had not been closed)."""
    from engine import Phase, Ready
    from p2p.peer import SILENCE
    from tests.live_support import seat_live_table

    stack, (me, bot) = await seat_live_table(tmp_path, 2)
    async with stack, running([me, bot]):
        await until(lambda: me.view().phase is Phase.PEEK and me.view().ready[1], me, bot)
        mock_clock.jump(1.0)
        await trio.testing.wait_all_tasks_blocked()  # (a heartbeat each: the last frames before the stop)
        last = me.orderer.last_sent
        assert last is not None
        mock_clock.jump(12.0)
        me.submit(Ready(0))  # (the screen's task runs first)
        await trio.testing.wait_all_tasks_blocked()
        assert me.orderer.last_sent is not None and me.orderer.last_sent > last  # (the "ready" went out)
        stood = me.now() - (last + SILENCE)
        told = next((m for line in me.lines if (m := re.fullmatch(
            r"This program did not run for 1[12] s \(it was stopped, or the computer slept\)\. The table.s timers "
            r"ran on for the first \d+ s of it, until the others missed you, and were paused for the last (\d+) s\.",
            line.text))), None)
        assert told is not None and int(told[1]) == round(stood), [line.text for line in me.lines]
        await me.leave()
    assert any(re.match(r"this peer did not run for 1[12] s .*its clocks stood for the last", note)
               for note in read_text_notes(me.log.path)), read_text_notes(me.log.path)


async def test_s9_6_a_stop_is_timed_from_the_last_moment_the_process_ran_alike_on_screen_and_in_the_log(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """Both peers' processes stop for 33 s just after a heartbeat, their timer tasks due
    a heartbeat later. The player read "did not run for 32 s": the stop was timed from the
    deadline the timer task missed, not from the last moment the process ran. The screen,
    the log's note and the time the screen's countdowns stand all say 33 s."""
    from engine import Phase
    from tests.live_support import seat_live_table

    stack, (me, bot) = await seat_live_table(tmp_path, 2)
    async with stack, running([me, bot]):
        await until(lambda: me.view().phase is Phase.PEEK and me.view().ready[1], me, bot)
        await _to_a_deadline_well_ahead(me, mock_clock)
        mock_clock.jump(33.0)
        await trio.testing.wait_all_tasks_blocked()
        said = [line.text for line in me.lines if line.text.startswith("This program did not run")]
        assert len(said) == 1 and said[0].startswith("This program did not run for 33 s "), said
        assert me.progress.stopped_s == pytest.approx(33.0)
        await me.leave()
    notes = [note for note in read_text_notes(me.log.path) if note.startswith("this peer did not run")]
    assert len(notes) == 1 and notes[0].startswith("this peer did not run for 33 s "), notes


# A resume that waits for signatures it cannot have, as `SIGN_WAIT` with 8 s for its 30.
SHORT_SIGN_WAIT = ("tests.short_sign_wait", "8")


@pytest.mark.parametrize("others", ["play-on", "log-made", "one-away", "gone", "declined", "signalled"])
def test_11_3_a_peer_killed_while_the_roster_is_signed_takes_its_seat_back(tmp_path: Path, others: str) -> None:
    """carol's process dies once her roster signature is out, before she holds bob's (she
    never reads it: `tests.deaf_signer`), while alice and bob, holding every signature,
    begin the game. Before, her journal was written only as her game began: she could not
    come back, and the others waited out their grace period for her. Now it is written as
    she signs, and `join --resume` signs again, gathers the others' signatures from their
    games, and the game is played to its end: every log audits, all agree.

    "gone": the others are gone too; she cannot reach them, says so, and keeps the
    journal (they may only be away). "one-away": bob is stopped (a laptop asleep) as she
    comes back; she cannot reach him, says so and goes without a goodbye, so alice keeps
    waiting for her (a goodbye from a seat that never sat down ended alice's game, and
    her journal kept for nothing); bob wakes, she tries again, and the game is played. "declined": her player starts a new game instead;
    she tells the others she left before the game began, without playing a game to leave
    it, and both their logs end naming her (leaving by the order, a peer that ended at
    her leave said goodbye to one that had not yet delivered it, and was blamed there).
    "log-made": she was killed just after her game made its log, before its header was
    written (an empty file): she signs again and plays, as without it (before, the resume
    said the log could not be read). "signalled": she is stopped by a signal (SIGTERM; a
    closed terminal is SIGHUP) instead of killed: her goodbye reaches both at once and
    their games end there (the signal cancelled her links' tasks before they could say
    it, and the others waited out the grace period for a seat that had removed its
    journal)."""
    from cli.main import build_parser
    from cli.resume import leave_waiting_game
    from p2p.log import read_log

    host, where, host_seen, common = porch(tmp_path, 3, 5, 60)
    procs = [host]
    try:
        carol = bandit("join", "--peer", where, "--name", "carol", "--state-dir", str(tmp_path / "c"), *common,
                       program=("tests.deaf_signer", "2"))  # (deaf to seat 3, bob's: he joins after her)
        procs.append(carol)
        read_until(host, r"2 of 3 seats taken", host_seen)
        bob = bandit("join", "--peer", where, "--name", "bob", "--state-dir", str(tmp_path / "b"), *common)
        procs.append(bob)
        bob_seen: list[str] = []
        game = read_until(host, r"^game id ([0-9a-f]{64})", host_seen).group(1)
        assert read_until(bob, r"^game id ([0-9a-f]{64})", bob_seen).group(1) == game
        for seen in (host_seen, bob_seen):  # (each said it was signing, not waiting for players, before the start)
            assert "Starting: every player signs the seating…\n" in seen[:-1], seen
        journals = unfinished_journals(tmp_path / "c", held=True)  # (carol holds it)
        assert len(journals) == 1 and read_journal(journals[0]).game.hex() == game  # (written as she signed)
        assert not read_journal(journals[0]).log.exists()  # (her game had not begun)
        if others == "signalled":
            carol.send_signal(signal.SIGTERM)
            carol.wait()
            assert not unfinished_journals(tmp_path / "c")  # (the others are told: nothing to go back to)
            for p, seen in ((host, host_seen), (bob, bob_seen)):
                rc, out = finish(p, seen, 30)  # (at once: not after the 60 s grace period)
                assert rc == 1 and "carol left before the game began" in out, out  # (the game could not start)
                ended = audit(Path(re.search(r"^Log: (\S+)", out, re.M).group(1)))  # type: ignore[union-attr]
                assert ended.ok and ended.left is not None and ended.left.seat == 1, ended.first_failure
            return
        carol.send_signal(signal.SIGKILL)
        carol.wait()
        if others == "log-made":
            unmade = read_journal(journals[0]).log
            unmade.parent.mkdir(parents=True, exist_ok=True)
            unmade.touch()
        if others == "gone":
            for p in (host, bob):
                p.send_signal(signal.SIGKILL)
                p.wait()
        if others == "one-away":
            bob.send_signal(signal.SIGSTOP)
            first = bandit("join", "--resume", "--state-dir", str(tmp_path / "c"), *common, program=SHORT_SIGN_WAIT)
            procs.append(first)
            rc, out = finish(first, [], 90)
            assert rc == 1 and "cannot take your seat back now: bob " in out, out
            assert len(unfinished_journals(tmp_path / "c")) == 1  # (kept: she may try again)
            bob.send_signal(signal.SIGCONT)
        if others == "declined":
            assert leave_waiting_game(build_parser().parse_args(["join", "--state-dir", str(tmp_path / "c"), *common])) == 0
            assert not unfinished_journals(tmp_path / "c")  # (nothing to go back to)
            for p, seen in ((host, host_seen), (bob, bob_seen)):
                rc, out = finish(p, seen, 60)
                assert rc == 1, out  # (the game could not start: README, exit status)
                assert "the game ended: carol left before the game began (they chose not to go back to it)" in out, out
                ended = audit(Path(re.search(r"^Log: (\S+)", out, re.M).group(1)))  # type: ignore[union-attr]
                assert ended.ok and ended.left is not None and ended.left.seat == 1, ended.first_failure
            return
        again = bandit("join", "--resume", "--state-dir", str(tmp_path / "c"), *common,
                       program=SHORT_SIGN_WAIT if others == "gone" else ("cli",))
        procs.append(again)
        if others == "gone":
            rc, out = finish(again, [], 60)
            assert rc == 1 and "cannot take your seat back now: alice and bob could not be reached within 8 s" in out, out
            assert "Taking your seat back at game" in out, out
            assert len(unfinished_journals(tmp_path / "c")) == 1  # (they may only be away: --resume may try again)
            return
        results = [finish(p, seen, 240) for p, seen in ((host, host_seen), (bob, bob_seen), (again, []))]
    finally:
        kill_all(procs)
    for rc, out in results:
        assert rc == 0, out
    assert "Taking your seat back at game" in results[2][1], results[2][1]
    for _, out in results[:2]:  # (the host's rules, told to every seat: the grace period is the table's, §6.8)
        assert "Rules: game to 5, turn timer 60 s, a player whose link is lost is waited for 60 s." in out, out
    paths = [Path(re.search(r"^Log: (\S+)", out, re.M).group(1)) for _, out in results]  # type: ignore[union-attr]
    totals = set()
    for path in paths:
        result = audit(path)
        assert result.ok and result.finished, result.first_failure
        totals.add(tuple(sorted(result.totals.items())))
    assert len(totals) == 1  # everybody computed the same game
    assert not unfinished_journals(tmp_path / "c")
    assert read_log(paths[2]).header.roster == read_log(paths[0]).header.roster


def test_11_3_two_seats_killed_while_the_roster_is_signed_come_back_one_after_the_other(tmp_path: Path) -> None:
    """bob and carol both die once their signatures are out (each deaf to dave's); alice
    and dave begin the game. bob comes back first: his dial to carol fails (she is not
    back yet), and he waits for her, since a seat taking its own seat back dials every
    member. She comes back a few seconds later, dials him, and both games begin: all
    four logs audit and agree. (Before, bob's failed dial of a higher seat ended his
    resume at once, and carol's then waited 30 s for him in vain.)"""
    host, where, host_seen, common = porch(tmp_path, 4, 5, 90)
    procs = [host]
    try:
        deaf = []
        for n, name in ((2, "bob"), (3, "carol")):
            deaf.append(bandit("join", "--peer", where, "--name", name, "--state-dir", str(tmp_path / name), *common,
                               program=("tests.deaf_signer", "3")))  # (deaf to seat 4, dave's: he joins last)
            procs.append(deaf[-1])
            read_until(host, rf"{n} of 4 seats taken", host_seen)
        dave = bandit("join", "--peer", where, "--name", "dave", "--state-dir", str(tmp_path / "d"), *common)
        procs.append(dave)
        dave_seen: list[str] = []
        read_until(host, r"^game id ", host_seen)
        read_until(dave, r"^game id ", dave_seen)
        for p in deaf:
            p.send_signal(signal.SIGKILL)
            p.wait()
        bob = bandit("join", "--resume", "--state-dir", str(tmp_path / "bob"), *common)
        procs.append(bob)
        bob_seen: list[str] = []
        read_until(bob, r"^carol cannot be reached yet \(.*\); waiting up to 30 s for them to come back", bob_seen)
        carol = bandit("join", "--resume", "--state-dir", str(tmp_path / "carol"), *common)
        procs.append(carol)
        results = [finish(p, seen, 240) for p, seen in ((bob, bob_seen), (carol, []), (host, host_seen),
                                                        (dave, dave_seen))]
    finally:
        kill_all(procs)
    paths = []
    for rc, out in results:
        assert rc == 0, out
        paths.append(Path(re.search(r"^Log: (\S+)", out, re.M).group(1)))  # type: ignore[union-attr]
    totals = {tuple(sorted(audit(path).totals.items())) for path in paths}
    assert len(totals) == 1 and all(audit(path).ok for path in paths)


async def test_11_3_the_grace_period_is_the_table_s_rule_for_every_seat(tmp_path: Path) -> None:
    """The host's `--grace` is a rule of the table (§6.8), inside R: every seat waits as
    long for a seat away, so their countdowns of one absence agree (each seat's own
    `--grace` let the first to run out end the game for all, on differing screens)."""
    from p2p.roster import TableRules
    from tests.live_support import seat_live_lobby

    async with AsyncExitStack() as stack:
        lobby = await seat_live_lobby(tmp_path, 3, stack, rules=TableRules(grace_s=45))
        peers = [TablePeer(lobby.meshes[i], lobby.results[i], lobby.ids[i], log_path=tmp_path / f"seat{i + 1}.bandit-log",
                           bot=NormalBot(), seed=i) for i in range(3)]
        assert [(p.grace, p.machine.clocks.timers_stand) for p in peers] == [(45.0, 45.0)] * 3
        assert {r.roster.rules.grace_s for r in lobby.results} == {45}
        for p in peers:
            p.log.close("not played")
    from p2p.report import game_report

    told = list(game_report(audit(tmp_path / "seat2.bandit-log")))
    assert any(line.startswith("Rules: ") and line.endswith("a player away is waited for 45 s.") for line in told), told


async def test_s9_6_a_timer_task_starved_past_its_deadline_by_work_that_ran_is_not_a_stop(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """The timer task, due at a deadline, runs only 1.49 s later, but the process ran
    0.9 s past that deadline (a link's frames taken, then a long verification): late,
    not stopped. Before, the stop was dated from that last moment it ran, 0.59 s: the
    log said "this peer did not run for 1 s", and every link's silence was forgiven."""
    from engine import Phase
    from tests.live_support import seat_live_table

    stack, (me, bot) = await seat_live_table(tmp_path, 2)
    async with stack, running([me, bot]):
        await until(lambda: me.view().phase is Phase.PEEK and me.view().ready[1], me, bot)
        await _to_a_deadline_well_ahead(me, mock_clock)
        due = me._timer_at
        mock_clock.jump(due + 0.9 - me.now())
        me._notice_stop(me.now())  # (frames came on a link: the process ran; no checkpoint since)
        mock_clock.jump(0.59)  # (then it worked on, and the timer task runs only now)
        await trio.testing.wait_all_tasks_blocked()
        assert me._stops == [] and me.progress.stopped_s == 0.0
        await me.leave()
    notes = [note for note in read_text_notes(me.log.path) if note.startswith("this peer did not run")]
    assert notes == [], notes


async def test_s11_3_a_seat_leaving_as_the_grace_period_after_its_stop_runs_out_ends_at_once(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """Ann's program is back from a 30 s stop (the grace period is 15 s); she reads
    "waiting 8 s more…" and leaves (Ctrl-C) 1 s before that runs out. Before, the grace
    period that ran out was the timer task's deadline again and again while her leave
    waited to come back: it ran without pause, and its log took a note "this peer did not
    run for 0 s" on each pass. Now her own leave ends her game then, as any absence would."""
    from p2p.log import read_log
    from p2p.session import CHOSE_TO_LEAVE, YOU_LEFT
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3)
    ann, bot1, bot2 = peers
    for peer in peers:
        peer.grace = 15.0
    passes: dict[float, int] = {}  # (the timer task's passes, by the moment they ran)
    check = ann._check_links

    def counted(now: float) -> None:
        passes[now] = passes.get(now, 0) + 1
        if passes[now] > 50:  # (a busy loop: the mock clock would never move on)
            ann._finish("the test ends a busy loop")
        check(now)

    ann._check_links = counted  # type: ignore[method-assign]
    async with stack, running(peers) as summaries:
        await _at_the_look(ann, mock_clock)
        mock_clock.jump(30.0)  # (Ann and Bot 1 stopped; Bot 2, running, ends the game for Ann:)
        woke = ann.now()
        bot2._finish("Ann was away for more than 15 s; round 1 is void", absent=ann.me)
        async with trio.open_nursery() as nursery:
            for _ in range(60):
                await trio.testing.wait_all_tasks_blocked()
                if ann.now() - woke == 14.0:
                    assert any(line.text.startswith("Bot 1 answered; ") for line in ann.lines), ann.lines[-3:]
                    nursery.start_soon(ann.leave)
                    await trio.testing.wait_all_tasks_blocked()
                if ann.progress.ended and bot1.progress.ended:
                    break
                mock_clock.jump(1.0)
    assert max(passes.values()) <= 5, max(passes.items(), key=lambda item: item[1])
    assert summaries[0].why == YOU_LEFT and ann.now() - woke == 15.0
    notes = [note for note in read_text_notes(ann.log.path) if note.startswith("this peer did not run")]
    assert len(notes) == 1 and notes[0].startswith("this peer did not run for 30 s"), notes
    assert len(ann._stops) == 1 and read_log(ann.log.path).left == CHOSE_TO_LEAVE


@pytest.mark.parametrize("end", ["absence", "leave"])
async def test_11_3_a_move_sent_while_a_player_is_away_is_told_as_never_counted_when_the_game_ends(
        tmp_path: Path, end: str) -> None:
    """Dee snapped while Cy's program was gone ("Your snap is sent: it counts once Cy is
    back"); the game then ended for Cy's absence, and nothing told Dee that her snap never
    counted. The game's end says so, and why, on screen and in the log's notes. "leave":
    Dee leaves instead, before her leave comes back in order: the others hold her snap,
    and order it before her leave, so it may yet count for them: she reads that, not that
    it never counted."""
    from engine import Snap
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3)
    dee, bo, cy = peers
    async with stack:
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                runs = {peer.me: trio.CancelScope() for peer in peers}
                summaries = {}

                async def run(peer: TablePeer) -> None:
                    with runs[peer.me]:
                        summaries[peer.me] = await peer.run()

                for peer in peers:
                    nursery.start_soon(run, peer)
                await until(lambda: dee.machine.engine.discard_top() is not None
                            and {bo.identity.peer_id, cy.identity.peer_id} <= dee.mesh.linked(), dee)
                shorten_grace(dee, 1.0 if end == "absence" else 60.0)
                _kill(cy, runs[cy.me])
                await until(lambda: cy.me in dee._progress.waiting_for, dee)
                dee.submit(Snap(dee.me, dee.machine.engine.discard_top(), dee.me, 0))
                assert dee.progress.sending == ("snap",)
                if end == "leave":
                    await dee.leave()
                await until(lambda: dee.me in summaries, dee)
                nursery.cancel_scope.cancel()
    name = dee.names[cy.me]
    told = [line.text for line in dee.lines]
    notes = "\n".join(note for note in read_text_notes(summaries[dee.me].log_path))
    if end == "leave":
        assert ("Your immediate discard had not come back in order when you left: the others count it just before "
                "your leave if their game reaches it, not if it ends first (their logs tell which).") in told, told
        assert not any("did not count" in text for text in told), told
        assert "this seat left before the order delivered its snap: the others deliver it just before its leave" in notes
        return
    ended = next(i for i, text in enumerate(told) if text.startswith(f"{name} did not come back within 1 s"))
    assert told[ended + 1] == (f"Your immediate discard did not count: the game ended before the table put it in order "
                               f"({name} was away for more than 1 s; round {dee.machine.round_number} is void); no card "
                               "was turned, no penalty card drawn."), told[ended:]
    assert "the game ended before the order delivered this seat's snap" in "\n".join(
        note for note in read_text_notes(summaries[dee.me].log_path))


@pytest.mark.parametrize("journals", [True, False])
async def test_s11_3_a_seat_goes_away_meaning_to_come_back_only_with_a_journal_to_be_taken_back_from(
        tmp_path: Path, journals: bool) -> None:
    """A hang-up sends a seat away without a `leave` only where `--resume` could take it
    back: with a journal. A seat that keeps none (the lobby's `--lobby-only` tables,
    tests) leaves instead, so the others' game ends at once rather than waiting out the
    grace period for a seat that cannot return."""
    from p2p.log import read_log
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 2, journals=journals)
    ann, bo = peers
    async with stack:
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                summaries = start_seats(nursery, peers)
                await until(lambda: ann.machine.engine.discard_top() is not None, ann)
                await ann.go_away("their terminal was closed")
                await until(lambda: ann.me in summaries, ann)
                if not journals:
                    await until(lambda: bo.me in summaries, bo)
                nursery.cancel_scope.cancel()
    mine = summaries[ann.me]
    assert (mine.away is not None) == journals and mine.left == (not journals), mine
    assert (read_log(ann.log.path).ended is None) == journals  # (left open for the seat's return, or closed at its leave)


async def _to_a_deadline_well_ahead(me: TablePeer, mock_clock: trio.testing.MockClock) -> None:
    """Jump `me`'s clock deadline by deadline to a moment the process ran whose timer task's
    next deadline is over 0.5 s after it."""
    for _ in range(20):
        mock_clock.jump(max(0.0, me._timer_at - me.now()))
        await trio.testing.wait_all_tasks_blocked()
        if me._timer_at > me.now() + 0.5:
            break
    assert me._timer_at > me.now() + 0.5


@pytest.mark.parametrize("work", ["making its shuffle step", "taking in a message"])
async def test_s9_6_a_stop_in_the_middle_of_a_seat_s_work_is_noticed_before_anything_goes_out(
        tmp_path: Path, mock_clock: trio.testing.MockClock, work: str) -> None:
    """The process of the person at seat 0 stops for 12 s while its seat makes its
    shuffle step (the heaviest work a seat does: seconds on a busy machine), or takes in
    a delivered message that it answers (checking a shuffle step's proof is as heavy);
    running again, it finishes that work and sends what is due before anything else runs.
    The stop is still taken for one the others noticed (`SILENCE` after the last frame
    before it): the player reads that the clocks stood. Before, that message counted as
    the last frame the others heard, so the stop looked too short to be missed, and the
    seat went on as if its links had not been closed: stopped past the grace period, it
    took the others' closed links for their going away and named them absent."""
    from engine import Phase
    from tests.live_support import seat_live_table

    stack, (me, bot) = await seat_live_table(tmp_path, 2)
    stopped: list[bool] = []

    def armed() -> bool:  # (a stop is told by the deadline the timer task missed: once it has one)
        return me._timer_at < float("inf")  # noqa: SLF001

    if work == "making its shuffle step":
        make = me.machine.catch_up

        def made_midway() -> Any:
            step = make()
            if step.send and armed() and not stopped:
                stopped.append(True)
                mock_clock.jump(12.0)  # (the process stops as the step is made)
            return step

        me.machine.catch_up = made_midway  # type: ignore[method-assign]
    else:
        deliver = me.machine.deliver

        def taken_in_midway(delivered: Any, now: float) -> Any:
            step = deliver(delivered, now)
            if step.send and armed() and not stopped:
                stopped.append(True)
                mock_clock.jump(12.0)  # (the process stops as a delivered message is worked through)
            return step

        me.machine.deliver = taken_in_midway  # type: ignore[method-assign]
    async with stack, running([me, bot]):
        await until(lambda: bool(stopped) and me.view().phase is Phase.PEEK, me, bot)
        said = [line.text for line in me.lines if line.text.startswith("This program did not run")]
        assert len(said) == 1 and re.fullmatch(
            r"This program did not run for 1[12] s \(it was stopped, or the computer slept\)\. The table.s timers "
            r"ran on for the first \d+ s of it, until the others missed you, and were paused for the last \d+ s\.",
            said[0]), [line.text for line in me.lines]
        await me.leave()
    notes = [note for note in read_text_notes(me.log.path) if note.startswith("this peer did not run")]
    assert len(notes) == 1 and "its clocks stood for the last" in notes[0], notes
