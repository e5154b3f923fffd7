"""Soak: many seeded in-memory games, far beyond the suite's seeds, with every check.

Five kinds of game, each seed drawing its own table:

- ``table``: 2-6 players over the seeded network of `tests.tablesim` (loss up to 30 %,
  jitter up to 50 ms, sometimes a LAN's latency with human reaction and thinking times),
  the small, race or default deck, sometimes seats that snap everything they know;
- ``faults``: 2-6 players over `tests.faultsim` with 1-4 faults each (a peer killed and
  resumed from its log and journal, a link cut and restored, at any moment), sometimes a
  seat whose player never acts (5 s turns, so the timers and stall claims run);
- ``leave``: 2-6 players over the seeded network, one of whom leaves (§9.8) at a random
  moment: on its own, or on one breath with its next move (a snap, a turn), as a player
  who snaps and quits does; the others make their shares a little after they ack, as
  live peers do. Every peer must stop at that one ``leave``, with identical logs that
  audit clean and report the departure. A game that ended before the leave is skipped;
- ``live``: three or four real ``bandit-lan`` processes (a host and its guests,
  headless bots, TLS on loopback) playing to 100; one of them, host or guest, is SIGKILLed at a random
  moment (up to a second after one of the first six rounds began) and restarted at once
  with ``--resume`` (§11.3). A game that ended before its kill is counted as skipped.
- ``stop``: the same processes, but one of them is told to stop (SIGINT or SIGTERM, as
  Ctrl-C or a shutdown do; a hang-up sends a seat away to come back instead, §11.3) at
  such a moment: it must
  leave the table (§9.8) and exit 0, the others must end their game at its `leave` at
  once (not after the grace period) and exit 0 too (a departure is no failure), and every log must audit clean, report that
  departure with the signal's reason, and hold the same records up to it.

A game passes (``leave`` and ``stop`` aside) when every peer finished without halting, the peers agree (the same
delivered sequence and engine for ``table``, the same totals for ``faults`` and
``live``; every process exits 0 for ``live``) and every log audits clean. Each failure
is printed with its kind and seed; rerun it alone with ``--kind K --seed S --games 1``.

    python bench/soak.py [--kind table|faults|leave|live|memory|both|all] [--seconds 600] [--seed 0] [--games N] [--json]

``memory`` (the default) is the three in-memory kinds, ``both`` the first two, ``all``
adds ``live`` and ``stop`` (a process game takes 5-15 s, an in-memory one about 2 s). With --json the last line is one JSON
object: games (by kind), skipped (by kind), failures (kind, seed, what), seconds. Exit
status 1 if any game failed.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cli.stopping import REASONS  # noqa: E402  (why a seat told to stop leaves, as the others read it)
LEAVING = [s for s in REASONS if s != signal.SIGHUP]  # (a hang-up sends the seat away instead, to come back: §11.3)
from p2p.agreement import compare  # noqa: E402
from p2p.audit import audit  # noqa: E402
from p2p.journal import unfinished_journals  # noqa: E402
from p2p.order import message_hash  # noqa: E402
from p2p.roster import TableRules  # noqa: E402
from p2p.table import SeatLeft  # noqa: E402
from p2p.table.messages import INTENTS  # noqa: E402
from tests.cli_support import bandit, finish, kill_all, read_until  # noqa: E402
from tests.faultsim import FaultNetwork  # noqa: E402
from tests.ordersim import SimPeer  # noqa: E402
from tests.tablesim import TablePeer, TableNetwork  # noqa: E402
from tests.test_table_games import RACE_DECK, SMALL, SMALL_DECK, EagerBot, identical_logs  # noqa: E402


def _audits(net: TableNetwork, finished: bool) -> str | None:
    with tempfile.TemporaryDirectory(prefix="bandit-soak-") as folder:
        for path in net.write_logs(Path(folder)):
            result = audit(path)
            if not result.ok or (finished and not result.finished):
                return f"{path.name} does not audit: {result.first_failure}"
    return None


def table_game(seed: int) -> tuple[str, str | None]:
    """One seeded table; (what it was, why it failed or None)."""
    rng = random.Random(f"soak-table-{seed}")
    players = rng.choice([2, 3, 4, 5, 6])
    deck = rng.choice(["small", "race", "default"]) if players <= 4 else rng.choice(["race", "short"])
    rules = {"small": SMALL, "race": TableRules(target=5, skills_text=RACE_DECK), "default": TableRules(target=30),
             "short": TableRules(target=10)}[deck]
    options: dict[str, Any] = {"drop": rng.choice([0.0, 0.02, 0.1, 0.3]), "jitter": rng.choice([0.0005, 0.002, 0.01, 0.05])}
    if rng.random() < 0.5:
        options.update(latency=rng.choice([0.0005, 0.002, 0.01]), snap_delay=rng.choice([0.0, 0.05]),
                       act_delay=rng.choice([0.0, 0.3]))
    eager = deck == "race" or rng.random() < 0.3
    what = f"{players} players, {deck} deck, {options}{', eager snappers' if eager else ''}"
    net = TableNetwork(players, seed, rules=rules, **options)
    if eager:
        for t in net.tables:
            t.driver.bot = EagerBot(name="eager")
    net.run()
    machines = [t.machine for t in net.tables]
    if not all(m.finished and m.halted is None for m in machines):
        return what, f"not finished at {net.now:.0f} s: {[str(m.halted) if m.halted else m.finished for m in machines]}"
    if not identical_logs(net) or len({m.engine.state_hash() for m in machines}) != 1:
        return what, "the peers disagree"
    return what, _audits(net, finished=True)


def faults_game(seed: int) -> tuple[str, str | None]:
    """One seeded table with faults; (what it was, why it failed or None)."""
    rng = random.Random(f"soak-faults-{seed}")
    players = rng.choice((2, 3, 4, 5, 6))
    options = {"drop": rng.choice((0.0, 0.05)), "jitter": rng.choice((0.001, 0.01))}
    away = rng.random() < 0.4
    rules = TableRules(target=10, turn_s=5, peek_s=2, skills_text=SMALL_DECK) if away else TableRules(target=rng.choice((10, 25)))
    net = FaultNetwork(players, seed, rules=rules, **options)
    if away:  # its player never acts: peeks and turns time out
        idle = net.tables[rng.randrange(players)].driver
        idle.act = lambda: None  # type: ignore[method-assign]
        idle.snap = lambda: None  # type: ignore[method-assign]
    faults = []
    for _ in range(rng.randint(1, 4)):
        victim = rng.randrange(players)
        other = rng.choice([s for s in range(players) if s != victim])
        faults.append({"kind": rng.choice(("kill", "cut")), "victim": victim, "other": other,
                       "at": rng.uniform(0.05, 20.0), "down": rng.uniform(0.2, 8.0), "state": "pending"})
    net.start()
    while net.now < 900 and (not net.finished() or net.dead or net.cut):
        net.run_until(net.now + 0.05)
        for peer, table in zip(net.peers, net.tables):
            net._drive(peer, table)
        for f in faults:
            if f["state"] == "pending" and net.now >= f["at"] and not net.finished():
                if f["kind"] == "cut":
                    net.cut_link(f["victim"], f["other"])
                elif f["victim"] not in net.dead:
                    net.kill(f["victim"])
                else:
                    f["state"] = "skipped"
                    continue
                f["state"] = "on"
            elif f["state"] == "on" and net.now >= f["at"] + f["down"]:
                net.resume(f["victim"]) if f["kind"] == "kill" else net.restore_link(f["victim"], f["other"])
                f["state"] = "done"
    done = [(f["kind"], f["victim"], f["other"], round(f["at"], 2), round(f["down"], 2)) for f in faults if f["state"] == "done"]
    what = f"{players} players, {options}, faults {done}{', a player who never acts' if away else ''}"
    if not all(t.machine.finished for t in net.tables):
        return what, f"not finished at {net.now:.0f} s: {[str(t.machine.halted) for t in net.tables]}"
    if len({t.machine.outcomes[-1].totals for t in net.tables}) != 1:
        return what, "the peers disagree on the totals"
    return what, _audits(net, finished=True)


SKIPPED = "skipped"  # a game that ended before its fault (a kill, a leave) came


class LeavingTable(TableNetwork):
    """A table where seat `leaver` sends `leave` (§9.8) once `at` has passed: on one
    breath with its next move when `with_move`, else at once; then it stops playing."""

    def __init__(self, leaver: int, at: float, with_move: bool, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.leaver, self.at, self.with_move = leaver, at, with_move
        self.left_at: float | None = None
        self.moved = False

    def _drive(self, peer: SimPeer, table: TablePeer) -> None:
        if peer.seat != self.leaver:
            return super()._drive(peer, table)
        if self.left_at is not None or table.machine.finished or table.machine.halted:
            return
        self.moved = False
        super()._drive(peer, table)
        if self.now >= self.at and (not self.with_move or self.moved):
            self.send(peer.seat, {"type": "leave", "v": 1, "reason": "off home"})
            self.left_at = self.now

    def send(self, seat: int, payload: dict[str, Any]) -> Any:
        self.moved |= seat == self.leaver and payload["type"] in INTENTS  # (a move, not protocol work)
        return super().send(seat, payload)


def leave_game(seed: int) -> tuple[str, str | None]:
    """One seeded table that a seat leaves; (what it was, why it failed, or `SKIPPED`, or None)."""
    rng = random.Random(f"soak-leave-{seed}")
    players = rng.choice([2, 3, 4, 5, 6])
    deck = rng.choice(["small", "race"]) if players <= 4 else "race"
    rules = SMALL if deck == "small" else TableRules(target=5, skills_text=RACE_DECK)
    options: dict[str, Any] = {"drop": rng.choice([0.0, 0.02, 0.1]), "jitter": rng.choice([0.0005, 0.002, 0.01])}
    if rng.random() < 0.5:
        options.update(latency=rng.choice([0.0005, 0.002]), snap_delay=rng.choice([0.0, 0.05]),
                       act_delay=rng.choice([0.0, 0.3]))
    leaver, at, with_move = rng.randrange(players), rng.uniform(0.0, 4.0), rng.random() < 0.7
    lag = rng.choice([0.0, 0.002, 0.005])
    what = (f"{players} players, {deck} deck, {options}, seat {leaver + 1} leaves after {at:.2f} s"
            f"{' with its next move' if with_move else ''}, shares {lag * 1000:g} ms behind acks")
    net = LeavingTable(leaver, at, with_move, players, seed, rules=rules, share_lag=lag, **options)
    if deck == "race" or rng.random() < 0.3:
        for t in net.tables:
            t.driver.bot = EagerBot(name="eager")
    net.run()
    machines = [t.machine for t in net.tables]
    if all(m.finished and m.halted is None for m in machines):
        return what, SKIPPED  # the game was over before the leave counted
    if net.left_at is None:
        return what, f"the game stopped before the leave: {[str(m.halted) for m in machines]}"
    if not all(isinstance(m.halted, SeatLeft) and m.halted.seat == leaver for m in machines):
        return what, f"not every peer stopped at the leave: {[str(m.halted) if m.halted else m.finished for m in machines]}"
    # (The order delivers on after a halt; a live peer logs nothing more: compare up to the leave.)
    upto = [[message_hash(d.envelope.body) for d in t.log[: t.machine.position + 1]] for t in net.tables]
    if any(log != upto[0] for log in upto) or (upto[0] and net.tables[0].log[len(upto[0]) - 1].seat != leaver):
        return what, "the peers disagree on the order up to the leave"
    with tempfile.TemporaryDirectory(prefix="bandit-soak-") as folder:
        for path in net.write_logs(Path(folder)):
            result = audit(path)
            if not result.ok or result.left is None or result.left.seat != leaver:
                return what, f"{path.name} does not audit as left by seat {leaver + 1}: {result.first_failure}"
    return what, None


def live_game(seed: int) -> tuple[str, str | None]:
    """Three or four real processes, one killed at a random moment and resumed; (what,
    why it failed, or `SKIPPED`, or None). A failed game's folder (logs, state) is kept."""
    rng = random.Random(f"soak-live-{seed}")
    names = ["alice", "bob", "carol", "dave"][: rng.choice((3, 4))]
    victim_seat = rng.randrange(len(names))
    kill_round = rng.randint(1, 6)  # rounds take about 0.2-0.5 s here: the kill often lands rounds later, or at the end
    delay = rng.uniform(0.0, 1.0)
    victim_is = "the host" if victim_seat == 0 else f"guest {names[victim_seat]}"
    what = f"{len(names)} processes, {victim_is} killed {delay:.2f} s into round {kill_round}"
    return what, _kept_if_failed("live", lambda folder: _kill_and_resume(folder, names, victim_seat, kill_round, delay))


def _kept_if_failed(kind: str, run: Callable[[Path], str | None]) -> str | None:
    """`run(folder)` in a fresh folder, removed afterwards unless the game failed (its
    logs and state are then kept, and the reason says where)."""
    folder = Path(tempfile.mkdtemp(prefix=f"bandit-soak-{kind}-"))
    why = run(folder)
    if why is None or why == SKIPPED:
        shutil.rmtree(folder, ignore_errors=True)
        return why
    return f"{why}\n(logs, state and every process's whole output kept in {folder})"


def _keep_output(folder: Path, name: str, text: str) -> None:
    """A process's whole output, kept with a failed game: the first process to fail is
    not always the cause, and its partners' stories are needed to tell."""
    (folder / f"{'-'.join(name.replace('(', '').replace(')', '').split())}.out").write_text(text)  # carol-resumed.out


def _seat_processes(folder: Path, names: list[str], procs: list[Any]) -> list[list[str]]:
    """Start a headless host and its guests (appended to `procs`, the host first); each
    one's output read so far."""
    states = [folder / name for name in names]
    host = bandit("host", "--table", "Soak", "--name", names[0], "--seats", str(len(names)), "--no-discovery",
                  "--state-dir", str(states[0]), "--grace", "60", *_common(folder))
    procs.append(host)
    seen: list[list[str]] = [[] for _ in names]
    where = read_until(host, r"on (127\.0\.0\.1:\d+)", seen[0]).group(1)
    for name, state in zip(names[1:], states[1:]):
        procs.append(bandit("join", "--peer", where, "--name", name, "--state-dir", str(state), *_common(folder)))
    return seen


def _common(folder: Path) -> tuple[str, ...]:
    return ("--headless", "--bind", "127.0.0.1", "--log-dir", str(folder / "logs"))


def _at_a_random_moment(folder: Path, names: list[str], victim_seat: int, round_number: int, delay: float,
                       procs: list[Any]) -> tuple[list[list[str]], str | None]:
    """Seat the processes, then wait until the victim's round `round_number` has run for
    `delay` seconds: (each one's output so far, None), or with why not: `SKIPPED` if the
    game ended first and cleanly, else what went wrong."""
    seen = _seat_processes(folder, names, procs)
    victim = procs[victim_seat]
    try:
        read_until(victim, rf"Round {round_number}: ", seen[victim_seat])
    except AssertionError:  # it exited first: the game had fewer rounds (or failed)
        return seen, _untouched(folder, names, procs, seen)
    time.sleep(delay)  # the random moment (nothing is waited for here)
    if victim.poll() is not None or not unfinished_journals(folder / names[victim_seat], held=True):
        return seen, _untouched(folder, names, procs, seen)  # its game ended before that moment
    return seen, None


def _untouched(folder: Path, names: list[str], procs: list[Any], seen: list[list[str]]) -> str:
    """A game whose end came before its fault: `SKIPPED` only once it is known to have
    ended as an untouched game does (every process exits 0, every log audits finished,
    one story), else why not. A crash is never counted as a skip."""
    failed = []
    for name, proc, out in zip(names, procs, seen):
        code, text = finish(proc, out, timeout=300)
        _keep_output(folder, name, text)
        if code != 0:
            failed.append(f"{name} exited {code} before its fault came:\n{text[-1500:]}")
    if failed:
        return "\n".join(failed)
    results = [audit(path) for path in sorted((folder / "logs").glob("*.bandit-log"))]
    for result in results:
        if not (result.ok and result.finished):
            return f"{result.path.name} does not audit as finished: {result.first_failure}"
    return _one_story(results) or SKIPPED


def _kill_and_resume(folder: Path, names: list[str], victim_seat: int, kill_round: int, delay: float) -> str | None:
    logs, states = folder / "logs", [folder / name for name in names]
    common = _common(folder)
    procs: list[Any] = []
    try:
        seen, early = _at_a_random_moment(folder, names, victim_seat, kill_round, delay, procs)
        if early is not None:
            return early
        victim = procs[victim_seat]
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        _keep_output(folder, names[victim_seat], "".join(seen[victim_seat]) + victim.stdout.read())  # (what it said)
        if not unfinished_journals(states[victim_seat]):
            return SKIPPED  # it died after its game had ended
        again = bandit("host" if victim_seat == 0 else "join", "--resume", "--state-dir", str(states[victim_seat]),
                       *common)
        procs.append(again)
        runs = [(name, p, out) for name, p, out in zip(names, procs, seen) if p is not victim]
        failed = []
        for name, proc, out in [*runs, (f"{names[victim_seat]} (resumed)", again, [])]:
            code, text = finish(proc, out, timeout=300)
            _keep_output(folder, name, text)
            if code != 0:  # (every process's story is told: the first to fail need not be the cause)
                failed.append(f"{name} exited {code}:\n{text[-1500:]}")
        if failed:
            return "\n".join(failed)
    finally:
        kill_all(procs)
    results = [audit(path) for path in sorted(logs.glob("*.bandit-log"))]
    for result in results:
        if not (result.ok and result.finished):
            return f"{result.path.name} does not audit as finished: {result.first_failure}"
    if len(results) != len(names):
        return f"{len(results)} logs for {len(names)} seats"
    return _one_story(results)  # the resumed seat's log too, record for record


def _one_story(results: list[Any]) -> str | None:
    """Every log holds the same records in the same order, to the same end (§10.3: these
    games all end at a message every seat delivers, so none may be a mere prefix)."""
    agreement = compare(results)
    if not agreement.ok:
        return agreement.summary()
    lengths = {r.path.name: len(r.contents.messages) for r in results}
    if len(set(lengths.values())) > 1:
        return f"the logs end at different records: {lengths}"
    return None


def stop_game(seed: int) -> tuple[str, str | None]:
    """Three or four real processes, one told to stop by a signal at a random moment;
    (what, why it failed, or `SKIPPED`, or None). A failed game's folder is kept."""
    rng = random.Random(f"soak-stop-{seed}")
    names = ["alice", "bob", "carol", "dave"][: rng.choice((3, 4))]
    victim_seat = rng.randrange(len(names))
    stop_round = rng.randint(1, 6)
    delay = rng.uniform(0.0, 1.0)
    signum = rng.choice(LEAVING)
    victim_is = "the host" if victim_seat == 0 else f"guest {names[victim_seat]}"
    what = f"{len(names)} processes, {victim_is} sent {signal.Signals(signum).name} {delay:.2f} s into round {stop_round}"
    return what, _kept_if_failed("stop", lambda folder: _stop_mid_game(folder, names, victim_seat, stop_round, delay,
                                                                      signum))


def _stop_mid_game(folder: Path, names: list[str], victim_seat: int, stop_round: int, delay: float,
                   signum: int) -> str | None:
    procs: list[Any] = []
    try:
        seen, early = _at_a_random_moment(folder, names, victim_seat, stop_round, delay, procs)
        if early is not None:
            return early
        procs[victim_seat].send_signal(signum)
        failed, ended_early = [], False
        for seat, (name, proc, out) in enumerate(zip(names, procs, seen)):
            # Everybody ends at the leave, at once: well within the 60 s grace period.
            code, text = finish(proc, out, timeout=40)
            _keep_output(folder, name, text)
            if seat == victim_seat:
                after_its_game = code == -signum and "Game over after" in text  # (its work was done: the signal ended it)
                if not after_its_game and (code != 0 or not ("You left the table" in text or "Game over" in text)):
                    failed.append(f"{name} (told to stop) exited {code}:\n{text[-1500:]}")  # (the game may end first)
            elif code == 0 and f"{names[victim_seat]} left the table ({REASONS[signum]}); the game ended" in text:
                ended_early = True
            elif not (code == 0 and "Game over" in text):  # (the last move may have ended the game first)
                failed.append(f"{name} exited {code}:\n{text[-1500:]}")
            # Nothing here breaks a link (a signal makes its seat leave, and say goodbye on
            # every link): a seat that went without word from another shows a goodbye lost.
            failed.extend(f"{name}: {line.strip()}" for line in text.splitlines() if "without word from" in line)
        if failed:
            return "\n".join(failed)
    except subprocess.TimeoutExpired as exc:
        return f"a process did not end within {exc.timeout:.0f} s of the signal"
    finally:
        kill_all(procs)
    results = [audit(path) for path in sorted((folder / "logs").glob("*.bandit-log"))]
    for result in results:
        if not result.ok:
            return f"{result.path.name} does not audit: {result.first_failure}"
    if len(results) != len(names):
        return f"{len(results)} logs for {len(names)} seats"
    if not ended_early and all(r.finished for r in results):
        return SKIPPED  # the game's last move came first
    for result in results:
        left = result.left  # (seats are taken as guests come: compare by name)
        if left is None or result.names[left.seat] != names[victim_seat] or REASONS[signum] not in left.why:
            return f"{result.path.name} does not end at {names[victim_seat]}'s leave: {result.left}"
    return _one_story(results)


KINDS = {"table": table_game, "faults": faults_game, "leave": leave_game, "live": live_game, "stop": stop_game}
GROUPS = {"memory": ["table", "faults", "leave"], "both": ["table", "faults"], "all": list(KINDS)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=[*KINDS, *GROUPS], default="memory")
    parser.add_argument("--seconds", type=float, default=600.0, help="stop starting games after this long")
    parser.add_argument("--games", type=int, default=None, help="stop after this many games of each kind")
    parser.add_argument("--seed", type=int, default=0, help="the first seed (each kind counts up from it)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    kinds = GROUPS.get(args.kind, [args.kind])
    started = time.monotonic()
    games = {kind: 0 for kind in kinds}
    skipped = {kind: 0 for kind in kinds}
    failures: list[dict[str, Any]] = []
    seed = args.seed
    while time.monotonic() - started < args.seconds and (args.games is None or min(games.values()) < args.games):
        for kind in kinds:
            try:
                what, why = KINDS[kind](seed)
            except Exception:  # a crash is a finding too
                what, why = "?", "raised:\n" + traceback.format_exc()
            if why == SKIPPED:
                skipped[kind] += 1
                continue
            games[kind] += 1
            if why is not None:
                failures.append({"kind": kind, "seed": seed, "what": what, "why": why})
                print(f"FAILED {kind} seed {seed} ({what}): {why}", flush=True)
        seed += 1
    seconds = time.monotonic() - started
    skips = f", {sum(skipped.values())} skipped (the game ended before its kill or leave)" if any(skipped.values()) else ""
    print(f"{sum(games.values())} games ({', '.join(f'{n} {k}' for k, n in games.items())}) in {seconds:.0f} s: "
          f"{len(failures)} failed{skips}")
    if args.json:
        print(json.dumps({"games": games, "skipped": skipped, "failures": failures, "seconds": round(seconds, 1)}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
