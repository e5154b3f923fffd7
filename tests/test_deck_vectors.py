"""§8.10: the test vectors printed in protocol.md are what this code computes.

The test parses every ```vector:<name>``` block of protocol.md §8, recomputes each output
from the block's inputs and compares byte for byte, so the document and the code cannot
drift apart. Run this file as a script to print the blocks from the inputs below.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from p2p.deck import (
    CardShares,
    GameContext,
    KeySetup,
    Reveal,
    SeededSource,
    ShuffleChain,
    ShuffleStep,
    make_sealed_share,
    make_share,
    unseal,
)
from p2p.deck.beacon import Beacon, BeaconCommit, BeaconReveal, beacon_commitment
from p2p.deck.group import hash_to_scalar, mul_base
from p2p.deck.hashing import TAG_DECK_ID, TAG_NONCE, TAG_SCHNORR, transcript, u32
from p2p.deck.keys import DeckKeys
from p2p.deck.shuffle import rerandomize, shuffle_commitment
from p2p.deck.shuffle_proof import prove_shuffle

ROOT = Path(__file__).resolve().parent.parent
Values = dict[str, "bytes | int | tuple[int, ...]"]

INT_KEYS = {"cards", "round", "number", "position", "card", "first_seat", "derive_example_6"}
LIST_KEYS = {"perm_0", "perm_1", "chain_cards"}

GAME_ID = b"bandit-lan test vectors"
SEATS = (b"\x11" * 32, b"\x22" * 32)
X0 = bytes.fromhex("0b" * 31 + "00")
X1 = bytes.fromhex("2c" * 31 + "00")


def fixed(data: bytes) -> Callable[[int], bytes]:
    """A byte source that returns `data` (of the requested length) every time."""
    return lambda n: data[:n]


def _game(v: Values) -> GameContext:
    return GameContext(v["game_id"], (v["seat_0"], v["seat_1"]), v["cards"])


def _joint(v: Values):
    game = _game(v)
    setup = KeySetup(game)
    for i, x in enumerate((v["x_0"], v["x_1"])):
        keys = DeckKeys(game, game.seats[i], x, mul_base(x))
        setup.receive(game.seats[i], keys.key_share(fixed(b"\x00" * 32)))
    return game, setup.joint()


def v_deck(v: Values) -> Values:
    game = _game(v)
    out: Values = {
        "deck_id_transcript": transcript(TAG_DECK_ID, game.game_id, u32(game.cards)),
        "deck_id": game.deck_id,
    }
    for i, m in enumerate(game.card_points):
        out[f"card_point_{i}"] = m
    return out


def v_schnorr(v: Values) -> Values:
    game = _game(v)
    keys = DeckKeys(game, v["seat_0"], v["x_0"], mul_base(v["x_0"]))
    share = keys.key_share(fixed(v["rand"]))
    k = hash_to_scalar(TAG_NONCE, keys.secret, v["rand"], TAG_SCHNORR, game.game_id, keys.peer, keys.public)
    return {"key_0": keys.public, "nonce_k": k, "e": share.proof.e, "s": share.proof.s}


def v_joint_key(v: Values) -> Values:
    _, joint = _joint(v)
    return {"key_0": joint.keys[0], "key_1": joint.keys[1], "joint_key": joint.point}


def _chain(v: Values) -> tuple[GameContext, ShuffleChain]:
    game, joint = _joint(v)
    chain = ShuffleChain(joint, v["round"], v["number"], v["chain_cards"])
    for k in (0, 1):
        perm = v[f"perm_{k}"]
        scalars = tuple(v[f"r_{k}_{j}"] for j in range(len(perm)))
        previous = chain.steps[-1].deck if chain.steps else chain.input_deck
        deck = rerandomize(previous, perm, scalars, joint.point)
        commit = shuffle_commitment(chain.chain_id, k, game.seats[k], perm, scalars, v[f"salt_{k}"])
        draws = SeededSource(v[f"proof_seed_{k}"])
        proof = prove_shuffle((chain.chain_id, u32(k), game.seats[k]), joint.point, previous, deck, perm, scalars, draws)
        step = ShuffleStep(chain.chain_id, k, deck, commit, proof)
        chain.receive(game.seats[k], ShuffleStep.from_wire(step.to_wire(), game.seats[k]))
    return game, chain


def v_shuffle(v: Values) -> Values:
    _, chain = _chain(v)
    out: Values = {"chain_id": chain.chain_id}
    for k, step in enumerate(chain.steps):
        out[f"commit_{k}"] = step.commit
        for j, c in enumerate(step.deck):
            out[f"step_{k}_c1_{j}"] = c.c1
            out[f"step_{k}_c2_{j}"] = c.c2
        proof = step.proof
        for name, points in (("C", proof.perm_commit), ("C_hat", proof.chain_commit)):
            out.update({f"proof_{k}_{name}_{j}": p for j, p in enumerate(points)})
        out[f"proof_{k}_e"] = _scalar(proof.e)
        out.update({f"proof_{k}_s{i + 1}": _scalar(x) for i, x in enumerate(proof.s)})
        for name, scalars in (("s_hat", proof.s_hat), ("s_prime", proof.s_prime)):
            out.update({f"proof_{k}_{name}_{j}": _scalar(x) for j, x in enumerate(scalars)})
    return out


def _scalar(x: int) -> bytes:
    return x.to_bytes(32, "little")


def v_reveal(v: Values) -> Values:
    game, chain = _chain(v)
    deck = chain.deck()
    reveal = Reveal(deck, v["position"])
    out: Values = {}
    for i, x in enumerate((v["x_0"], v["x_1"])):
        keys = DeckKeys(game, game.seats[i], x, mul_base(x))
        share = make_share(keys, deck, v["position"], fixed(v[f"rand_{i}"]))
        reveal.receive(game.seats[i], share)
        out.update({f"share_{i}": share.share, f"e_{i}": share.proof.e, f"s_{i}": share.proof.s})
    out["card"] = reveal.card()
    return out


def v_sealed(v: Values) -> Values:
    """Seat 0 was shown the card; a reveal to seat 1 then takes seat 0's share sealed to it."""
    game, chain = _chain(v)
    deck = chain.deck()
    keys = [DeckKeys(game, game.seats[i], x, mul_base(x)) for i, x in enumerate((v["x_0"], v["x_1"]))]
    plan = CardShares(deck, v["position"])
    first = Reveal(deck, v["position"], game.seats[0], plan)
    first.receive(game.seats[1], make_share(keys[1], deck, v["position"], fixed(v["rand_1"])))
    second = Reveal(deck, v["position"], game.seats[1], plan)
    sealed = make_sealed_share(keys[0], deck, v["position"], game.seats[1], fixed(v["rand_seal"]))
    second.receive(game.seats[0], sealed)
    return {
        "u": sealed.u,
        "v": sealed.v,
        "e": sealed.proof.e,
        "s": sealed.proof.s,
        "r": sealed.proof.r,
        "unsealed": unseal(keys[1], sealed),
        "card": second.card(keys[1]),
    }


def v_beacon(v: Values) -> Values:
    game = _game(v)
    beacon = Beacon(game, v["round"])
    for i in (0, 1):
        beacon.receive_commit(
            game.seats[i], BeaconCommit(v["round"], beacon_commitment(game, v["round"], game.seats[i], v[f"nonce_{i}"]))
        )
    out: Values = {f"commit_{i}": beacon_commitment(game, v["round"], game.seats[i], v[f"nonce_{i}"]) for i in (0, 1)}
    for i in (0, 1):
        beacon.receive_reveal(game.seats[i], BeaconReveal(v["round"], v[f"nonce_{i}"]))
    seed = beacon.seed()
    out.update(
        seed=seed.value,
        first_seat=game.seats.index(seed.first_player),
        tie_break_salt=seed.tie_break_salt,
        derive_example_6=seed.derive(b"example", 6),
    )
    return out


COMMON: Values = {"game_id": GAME_ID, "seat_0": SEATS[0], "seat_1": SEATS[1], "cards": 4}
KEYS: Values = {"x_0": X0, "x_1": X1}
CHAIN: Values = {
    "round": 1,
    "number": 0,
    "chain_cards": (0, 1, 2, 3),
    "perm_0": (2, 0, 3, 1),
    "perm_1": (1, 3, 0, 2),
    **{f"r_{k}_{j}": bytes([0x10 * (k + 1) + j + 1]) + bytes(31) for k in (0, 1) for j in range(4)},
    "salt_0": b"\x5a" * 32,
    "salt_1": b"\xa5" * 32,
    "proof_seed_0": b"\x5b" * 32,
    "proof_seed_1": b"\xb5" * 32,
}
VECTORS: dict[str, tuple[Values, Callable[[Values], Values]]] = {
    "deck": (COMMON, v_deck),
    "schnorr": ({**COMMON, "x_0": X0, "rand": b"\x33" * 32}, v_schnorr),
    "joint-key": ({**COMMON, **KEYS}, v_joint_key),
    "shuffle": ({**COMMON, **KEYS, **CHAIN}, v_shuffle),
    "reveal": ({**COMMON, **KEYS, **CHAIN, "position": 0, "rand_0": b"\x44" * 32, "rand_1": b"\x55" * 32}, v_reveal),
    "sealed": ({**COMMON, **KEYS, **CHAIN, "position": 0, "rand_1": b"\x55" * 32, "rand_seal": b"\x88" * 32}, v_sealed),
    "beacon": ({**COMMON, "round": 1, "nonce_0": b"\x66" * 32, "nonce_1": b"\x77" * 32}, v_beacon),
}


def render(value: bytes | int | tuple[int, ...]) -> str:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return str(value)


def parse(key: str, text: str) -> bytes | int | tuple[int, ...]:
    if key in INT_KEYS:
        return int(text)
    if key in LIST_KEYS:
        return tuple(int(x) for x in text.split(","))
    return bytes.fromhex(text)


def blocks(text: str) -> dict[str, list[tuple[str, str]]]:
    """Every ```vector:<name>``` block of §8 as (key, value) lines ('#' lines are inputs' header)."""
    section = text.split("\n## 8.", 1)[1].split("\n## 9.", 1)[0]
    found: dict[str, list[tuple[str, str]]] = {}
    for name, body in re.findall(r"```vector:([\w-]+)\n(.*?)```", section, re.S):
        lines = []
        for line in body.splitlines():
            if line.strip() and not line.startswith("#"):
                key, _, value = line.partition("=")
                lines.append((key.strip(), value.strip()))
        found[name] = lines
    return found


def test_8_10_protocol_md_vectors_match_the_code() -> None:
    found = blocks((ROOT / "protocol.md").read_text(encoding="utf-8"))
    assert sorted(found) == sorted(VECTORS), "protocol.md must hold exactly the §8 vectors"
    for name, (_, compute) in VECTORS.items():
        doc = {k: parse(k, v) for k, v in found[name]}
        assert len(doc) == len(found[name]), f"{name}: a key appears twice"
        outputs = compute(doc)
        for key, value in outputs.items():
            assert key in doc, f"vector {name}: output {key} missing from protocol.md"
            assert doc[key] == value, f"vector {name}: {key} differs from the code"
        inputs, _ = VECTORS[name]
        assert set(doc) == set(inputs) | set(outputs), f"vector {name}: unexpected keys"


def test_8_10_vector_inputs_in_protocol_md_are_the_reference_inputs() -> None:
    found = blocks((ROOT / "protocol.md").read_text(encoding="utf-8"))
    for name, (inputs, _) in VECTORS.items():
        doc = {k: parse(k, v) for k, v in found[name]}
        assert {k: doc[k] for k in inputs} == inputs, name


if __name__ == "__main__":
    for name, (inputs, compute) in VECTORS.items():
        print(f"```vector:{name}")
        print("# inputs")
        for k, v in inputs.items():
            print(f"{k} = {render(v)}")
        print("# outputs")
        for k, v in compute(inputs).items():
            print(f"{k} = {render(v)}")
        print("```\n")
    sys.exit(0)
