"""Benchmark of the card protocol (protocol.md §8).

Times one deal of the default 50-card deck at an N-seat table, in one process, through the
same code a live peer runs (`p2p.deck.LocalTable`):
  key setup  — every seat's key and Schnorr proof, created and verified;
  shuffle    — the N-step chain: each step re-encrypts and permutes every card,
               commits and proves its shuffle; each step's deck and proof are checked
               once, as a receiving peer does;
  deal       — 4 cards per seat dealt face down (positions only, no cryptography), the
               private peek at every seat's two bottom cards (N−1 proven shares each,
               created and verified, plus the recipient's own share) and the first
               discard revealed to all (N shares).
times one step's proof of the shuffle alone (proof_ms: made; verify_ms: checked), and
compares the deal with
  bound_s        — N × cards × 2 variable-base scalar multiplications (libsodium): the
                   re-encryption alone, without the proofs of the shuffle, and
  mentalpoker_s  — PyPI mentalpoker 0.5.0 `DealerEC`: a shuffle pass and a lock pass of a
                   50-card deck by N players, installed with ecdsa and gmpy2 into a
                   throwaway virtual environment and timed in a subprocess.
Every timed deal is checked afterwards: the round opening is verified and each revealed
card must be the card the opening derives.

    python bench/deck.py --players 4 [--runs 7] [--json]

With --json the last line of output is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from p2p.deck import GameContext, LocalTable, ShuffleChain, make_share, verify_round_opening, verify_share  # noqa: E402
from p2p.deck.group import mul, mul_base  # noqa: E402
from p2p.deck.hashing import u32  # noqa: E402
from p2p.deck.sampling import random_permutation, random_scalar  # noqa: E402
from p2p.deck.shuffle import rerandomize  # noqa: E402
from p2p.deck.shuffle_proof import prove_shuffle, verify_shuffle  # noqa: E402

CARDS = 50
SLOTS = 4
BOTTOM_SLOTS = (2, 3)
MENTALPOKER = "mentalpoker==0.5.0"

# Runs inside the throwaway venv. One shuffle pass (each player masks every card with its
# shuffle key and permutes) then one lock pass (each player removes its shuffle key and
# locks every card with its own per-card key), as mentalpoker's DealerEC intends.
MENTALPOKER_SCRIPT = r"""
import json, sys, time
from mentalpoker.dealer import DealerEC
players, runs, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
names = ["card%d" % i for i in range(n)]
times = []
for _ in range(runs):
    dealers = [DealerEC(cards=names) for _ in range(players)]
    deck = dealers[0].new_deck
    t = time.perf_counter()
    for d in dealers:
        deck = d.shuffle(deck)
    for d in dealers:
        deck = d.deal(deck, deck_id="bench")
    times.append(time.perf_counter() - t)
    revealed = [dealers[0].reveal_card(deck[i], [d.get_card_key(i, "bench") for d in dealers]) for i in range(n)]
    assert sorted(revealed) == sorted(names), "mentalpoker deal is not a permutation"
print(json.dumps(times))
"""


def deal_once(players: int) -> tuple[dict[str, float], float]:
    """One timed deal; returns the phase times and the time to verify its round opening."""
    game = GameContext(os.urandom(16), tuple(os.urandom(32) for _ in range(players)), CARDS)
    t0 = time.perf_counter()
    table = LocalTable(game, os.urandom)
    t1 = time.perf_counter()
    chain, openings = table.shuffle(round=1)
    deck = chain.deck()
    t2 = time.perf_counter()
    tableaux = {p: [SLOTS * seat + slot for slot in range(SLOTS)] for seat, p in enumerate(game.seats)}
    seen = {}
    for p, positions in tableaux.items():
        for slot in BOTTOM_SLOTS:
            seen[positions[slot]] = table.reveal(deck, positions[slot], p)
    first_discard = SLOTS * players
    seen[first_discard] = table.reveal(deck, first_discard)
    t3 = time.perf_counter()
    cards = verify_round_opening([chain], openings)[chain.chain_id]
    t4 = time.perf_counter()
    if any(cards[pos] != card for pos, card in seen.items()) or sorted(cards) != list(range(CARDS)):
        raise SystemExit("deal check failed: a revealed card differs from the opened deck")
    return {"keys_s": t1 - t0, "shuffle_s": t2 - t1, "reveals_s": t3 - t2, "deal_s": t3 - t0}, t4 - t3


def bound_once(players: int) -> float:
    """N × cards × 2 variable-base multiplications with random scalars and a random point."""
    src = os.urandom
    point = mul_base(random_scalar(src))
    scalars = [random_scalar(src) for _ in range(players * CARDS * 2)]
    t = time.perf_counter()
    for s in scalars:
        mul(s, point)
    return time.perf_counter() - t


def share_once(players: int, count: int = 100) -> float:
    """Mean time of one share: created with its proof, then verified."""
    table = LocalTable(GameContext(os.urandom(16), tuple(os.urandom(32) for _ in range(players)), CARDS), os.urandom)
    deck = table.shuffle(round=1)[0].deck()
    p = table.game.seats[0]
    t = time.perf_counter()
    for i in range(count):
        verify_share(deck, p, make_share(table.keys[p], deck, i % CARDS, os.urandom))
    return (time.perf_counter() - t) / count


def proof_once(players: int) -> tuple[float, float]:
    """One 50-card step's proof of the shuffle: (seconds to make it, seconds to check it)."""
    table = LocalTable(GameContext(os.urandom(16), tuple(os.urandom(32) for _ in range(players)), CARDS), os.urandom)
    chain = ShuffleChain(table.joint, 1)
    n = CARDS
    perm = random_permutation(os.urandom, n)
    scalars = tuple(random_scalar(os.urandom) for _ in range(n))
    y = table.joint.point
    out = rerandomize(chain.input_deck, perm, scalars, y)
    context = (chain.chain_id, u32(0), table.game.seats[0])
    t0 = time.perf_counter()
    proof = prove_shuffle(context, y, chain.input_deck, out, perm, scalars, os.urandom)
    t1 = time.perf_counter()
    if not verify_shuffle(context, y, chain.input_deck, out, proof):
        raise SystemExit("proof check failed: an honest shuffle's proof does not verify")
    return t1 - t0, time.perf_counter() - t1


def mentalpoker_times(players: int, runs: int, venv: Path | None) -> tuple[list[float] | None, str | None]:
    """Install mentalpoker into a throwaway venv and time it there; (None, reason) on failure."""
    own = venv is None
    root = Path(tempfile.mkdtemp(prefix="bandit-lan-mentalpoker-")) if own else venv
    try:
        python = root / "bin" / "python"
        check = (
            subprocess.run([str(python), "-c", "import mentalpoker, ecdsa, gmpy2"], capture_output=True)
            if python.exists()
            else None
        )
        if check is None or check.returncode != 0:
            steps = [
                [sys.executable, "-m", "venv", str(root)],
                [
                    str(python),
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    MENTALPOKER,
                    "ecdsa",
                    "gmpy2",
                ],
            ]
            for cmd in steps:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
                if r.returncode != 0:
                    return None, f"cannot install {MENTALPOKER}: {(r.stderr or r.stdout).strip().splitlines()[-1:]}"
        r = subprocess.run(
            [str(python), "-c", MENTALPOKER_SCRIPT, str(players), str(runs), str(CARDS)],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if r.returncode != 0:
            return None, f"mentalpoker run failed: {r.stderr.strip().splitlines()[-1:]}"
        return json.loads(r.stdout.strip().splitlines()[-1]), None
    except (OSError, subprocess.SubprocessError, ValueError) as err:
        return None, f"mentalpoker unavailable: {err}"
    finally:
        if own:
            shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=4, help="seats at the table (2..6)")
    ap.add_argument("--runs", type=int, default=7, help="timed runs per figure (median reported)")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    ap.add_argument("--venv", type=Path, help="reuse this directory for mentalpoker's venv instead of a temporary one")
    args = ap.parse_args(argv)
    if not 2 <= args.players <= 6 or args.runs < 1:
        ap.error("--players must be 2..6 and --runs at least 1")
    n = args.players

    deal_once(n)  # warm-up: imports, caches
    phases: dict[str, list[float]] = {}
    opening = []
    for _ in range(args.runs):
        times, open_s = deal_once(n)
        opening.append(open_s)
        for k, v in times.items():
            phases.setdefault(k, []).append(v)
    med = {k: statistics.median(v) for k, v in phases.items()}
    bound_s = statistics.median(bound_once(n) for _ in range(args.runs))
    share_s = statistics.median(share_once(n) for _ in range(args.runs))
    proofs = [proof_once(n) for _ in range(args.runs)]
    proof_s = statistics.median(p for p, _ in proofs)
    verify_s = statistics.median(v for _, v in proofs)
    mp, mp_error = mentalpoker_times(n, max(3, min(args.runs, 5)), args.venv)
    mentalpoker_s = statistics.median(mp) if mp else None

    deal_s = med["deal_s"]
    result = {
        "players": n,
        "cards": CARDS,
        "runs": args.runs,
        "deal_s": round(deal_s, 6),
        "mentalpoker_s": None if mentalpoker_s is None else round(mentalpoker_s, 6),
        "ratio": None if mentalpoker_s is None else round(deal_s / mentalpoker_s, 4),
        "bound_s": round(bound_s, 6),
        "bound_ratio": round(deal_s / bound_s, 4),
        "share_ms": round(share_s * 1e3, 4),
        "proof_ms": round(proof_s * 1e3, 3),
        "verify_ms": round(verify_s * 1e3, 3),
        "keys_s": round(med["keys_s"], 6),
        "shuffle_s": round(med["shuffle_s"], 6),
        "reveals_s": round(med["reveals_s"], 6),
        "opening_s": round(statistics.median(opening), 6),
    }
    if mp_error:
        result["mentalpoker_error"] = mp_error

    mp_note = f"ratio {result['ratio']} (goal <= 0.2)" if mentalpoker_s is not None else f"n/a: {mp_error}"
    rows = [
        (f"key setup ({n} keys + proofs)", med["keys_s"], ""),
        (f"shuffle chain ({n} steps, validated)", med["shuffle_s"], ""),
        (f"deal: {2 * n} private + 1 public reveals", med["reveals_s"], ""),
        ("deal_s (all of the above)", deal_s, ""),
        (
            f"bound_s ({n * CARDS * 2} variable-base mults)",
            bound_s,
            f"bound_ratio {result['bound_ratio']} (goal <= 2.0)",
        ),
        ("mentalpoker_s (DealerEC shuffle + lock)", mentalpoker_s, mp_note),
        ("one share, created + verified", share_s, "goal <= 1 ms"),
        (f"one step's shuffle proof ({CARDS} cards), made", proof_s, ""),
        (f"one step's shuffle proof ({CARDS} cards), checked", verify_s, ""),
        ("round opening verified (auditor)", result["opening_s"], ""),
    ]
    print(f"card protocol, {n} players, {CARDS} cards, median of {args.runs} runs")
    for label, seconds, note in rows:
        value = "n/a" if seconds is None else f"{seconds * 1e3:.2f} ms"
        print(f"  {label:<42} {value:>10}   {note}".rstrip())
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
