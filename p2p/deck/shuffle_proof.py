"""Proof of a shuffle: a step's output deck is its input, permuted and re-encrypted (protocol.md §8.4).

Theory of operation. A shuffle step publishes out[i] = in[π(i)] + (r_i·G, r_i·Y). Without
a proof, a shuffler could put a card of its choosing in place of another (a fresh
encryption of a known card point, or a re-randomized copy of a card it wants to see),
and the table would learn of it only at the round's opening, after the cheat had paid.
With this proof every receiver checks at once, before the step is recorded and before
any card of the deck can be revealed, that the output holds exactly the input's cards.

The proof is the commitment-consistent proof of a shuffle of Wikström and Terelius, in
the form of Haenni, Locher, Koenig and Dubuis ("Pseudo-code algorithms for verifiable
re-encryption mix-nets", 2017), written additively for the group of §8.1 and made
non-interactive with the hashes of §8.1:

1. The prover commits to π with independent generators F, H_0…H_{n−1} (hashed to the
   group, so nobody knows a relation between them): C_j = ρ_j·G + H_{π⁻¹(j)} for each
   input position j.
2. Challenges u_j are hashed from the statement (context, Y, both decks) and C; u'_i =
   u_{π(i)} are the same challenges in output order.
3. A commitment chain Ĉ_i = r̂_i·G + u'_i·Ĉ_{i−1} (Ĉ_{−1} = F) binds the product of the
   u'_i, which equals the product of the u_j only if u' is a permutation of u.
4. One sigma protocol then proves, for the same secrets, that the C commit to a
   permutation matrix (sum and product checks), that the same permuted u' weight the
   output, and that Σ u'_i·out_i = Σ u_j·in_j plus an encryption of the identity: the
   output is a re-encryption of the permuted input. Its challenge e is hashed from
   everything before it, and the prover answers with s1…s4, ŝ_i and s'_i.

Soundness rests on the discrete logarithm problem and the hash as a random oracle; the
proof shows nothing of π or of the scalars (honest-verifier zero knowledge, made
non-interactive). Costs about 5n variable-base multiplications to prove and 8n to verify.
Scalars are Python integers inside; points are 32-byte encodings (`group`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Final

from nacl import bindings as sodium

from .errors import InvalidPoint, MalformedMessage
from .group import IDENTITY, L, POINT_BYTES, SCALAR_BYTES, add, hash_to_point, hash_to_scalar, is_point, mul_base, sub
from .hashing import TAG_SHUFFLE_GENERATOR, TAG_SHUFFLE_PROOF, digest, u32
from .kept import Kept
from .sampling import ByteSource, random_scalar
from .wire import chunks

if TYPE_CHECKING:
    from .shuffle import Ciphertext

SECTION: Final = "§8.4"


def deck_bytes(deck: Sequence[Ciphertext]) -> bytes:
    """A deck as it travels and is hashed: c1 ‖ c2 of each position, in order (§8.8)."""
    return b"".join(c.c1 + c.c2 for c in deck)


def proof_bytes(n: int) -> int:
    """The length of a proof for a deck of n cards: 2n points and 2n + 5 scalars."""
    return POINT_BYTES * 2 * n + SCALAR_BYTES * (2 * n + 5)


@dataclass(frozen=True, repr=False)
class ShuffleProof:
    """A proof of one shuffle step: commitments C and Ĉ, challenge e, responses.

    Wire (one bin, §8.8): C_0‖…‖C_{n−1} ‖ Ĉ_0‖…‖Ĉ_{n−1} ‖ e ‖ s1 ‖ s2 ‖ s3 ‖ s4 ‖ ŝ_0‖…‖ŝ_{n−1} ‖ s'_0‖…‖s'_{n−1}."""

    perm_commit: tuple[bytes, ...]
    chain_commit: tuple[bytes, ...]
    e: int
    s: tuple[int, int, int, int]
    s_hat: tuple[int, ...]
    s_prime: tuple[int, ...]

    def __post_init__(self) -> None:
        n = len(self.perm_commit)
        if n < 1 or any(len(part) != n for part in (self.chain_commit, self.s_hat, self.s_prime)) or len(self.s) != 4:
            raise MalformedMessage(SECTION, "length", "a shuffle proof holds n of each C, Ĉ, ŝ, s' and four s, n ≥ 1")
        if any(not isinstance(p, bytes) or len(p) != POINT_BYTES for p in (*self.perm_commit, *self.chain_commit)):
            raise MalformedMessage(SECTION, "length", "a point of the shuffle proof is not 32 bytes")
        if any(type(v) is not int or not 0 <= v < L for v in (self.e, *self.s, *self.s_hat, *self.s_prime)):
            raise MalformedMessage(SECTION, "scalar", "a scalar of the shuffle proof is not below L")

    def __repr__(self) -> str:
        return f"ShuffleProof(n={len(self.perm_commit)}, e={self.e:064x})"

    def to_bytes(self) -> bytes:
        scalars = (self.e, *self.s, *self.s_hat, *self.s_prime)
        return b"".join(self.perm_commit) + b"".join(self.chain_commit) + b"".join(_enc(v) for v in scalars)

    @classmethod
    def from_bytes(cls, raw: bytes, n: int) -> ShuffleProof:
        """Read a proof for n cards; `MalformedMessage` if its length or a scalar is wrong."""
        if len(raw) != proof_bytes(n):
            raise MalformedMessage(SECTION, "length", f"shuffle proof has {len(raw)} bytes, not {proof_bytes(n)}")
        points = chunks(raw[: 2 * n * POINT_BYTES], POINT_BYTES)
        scalars = [int.from_bytes(b, "little") for b in chunks(raw[2 * n * POINT_BYTES :], SCALAR_BYTES)]
        return cls(points[:n], points[n:], scalars[0], (scalars[1], scalars[2], scalars[3], scalars[4]),
                   tuple(scalars[5 : 5 + n]), tuple(scalars[5 + n :]))


def prove_shuffle(
    context: Sequence[bytes],
    y: bytes,
    inp: Sequence[Ciphertext],
    out: Sequence[Ciphertext],
    perm: Sequence[int],
    scalars: Sequence[bytes],
    source: ByteSource,
) -> ShuffleProof:
    """Prove that out[i] = in[perm[i]] re-encrypted under Y with scalars[i].

    `context` binds the proof (chain id, step, prover); the prover's secrets are drawn
    from `source` in the order of protocol.md §8.4: ρ_j, r̂_i, ω1…ω4, ω̂_i, ω'_i."""
    n = len(perm)
    f, gens = _generator(0), _generators(n)
    rho = [_draw(source) for _ in range(n)]
    goes_to = [0] * n
    for i, j in enumerate(perm):
        goes_to[j] = i
    commit = tuple(add(_mul_g(rho[j]), gens[goes_to[j]]) for j in range(n))
    x = _statement(context, y, inp, out, commit)
    u = [_u(x, j) for j in range(n)]
    u_out = [u[perm[i]] for i in range(n)]
    r_hat = [_draw(source) for _ in range(n)]
    chain: list[bytes] = []
    previous = f
    for i in range(n):
        previous = add(_mul_g(r_hat[i]), _mul(u_out[i], previous))
        chain.append(previous)
    w1, w2, w3, w4 = (_draw(source) for _ in range(4))
    w_hat = [_draw(source) for _ in range(n)]
    w_prime = [_draw(source) for _ in range(n)]
    before = [f, *chain[:-1]]
    t = (
        _mul_g(w1),
        _mul_g(w2),
        _sum([_mul_g(w3), *(_mul(w_prime[i], gens[i]) for i in range(n))]),
        _sum([_mul(-w4, y), *(_mul(w_prime[i], out[i].c2) for i in range(n))]),
        _sum([_mul_g(-w4), *(_mul(w_prime[i], out[i].c1) for i in range(n))]),
    )
    t_hat = [add(_mul_g(w_hat[i]), _mul(w_prime[i], before[i])) for i in range(n)]
    e = _challenge(x, chain, t, t_hat)
    weights = [1] * n  # v_i = u'_{i+1} ⋯ u'_{n−1}: how r̂_i ends up in Ĉ_{n−1}
    for i in range(n - 2, -1, -1):
        weights[i] = u_out[i + 1] * weights[i + 1] % L
    s1 = (w1 - e * sum(rho)) % L
    s2 = (w2 - e * sum(r * v for r, v in zip(r_hat, weights))) % L
    s3 = (w3 - e * sum(r * v for r, v in zip(rho, u))) % L
    s4 = (w4 - e * sum(int.from_bytes(r, "little") * v for r, v in zip(scalars, u_out))) % L
    s_hat = tuple((w_hat[i] - e * r_hat[i]) % L for i in range(n))
    s_prime = tuple((w_prime[i] - e * u_out[i]) % L for i in range(n))
    return ShuffleProof(commit, tuple(chain), e, (s1, s2, s3, s4), s_hat, s_prime)


def verify_shuffle(
    context: Sequence[bytes], y: bytes, inp: Sequence[Ciphertext], out: Sequence[Ciphertext], proof: ShuffleProof
) -> bool:
    """True if `proof` shows that `out` is a permutation and re-encryption of `inp` under Y.

    Every point of `out` must already be valid (the receipt checks of §8.4); the proof's
    own points are checked here (`InvalidPoint`, naming the position). The verdict is
    kept for its exact statement and proof (`Kept`)."""
    statement = (*context, y, deck_bytes(inp), deck_bytes(out), proof.to_bytes())
    return _verdicts(statement, lambda: _verify(context, y, inp, out, proof))


_verdicts: Kept[bool] = Kept(b"shuffle-proof", 1024)


def _verify(
    context: Sequence[bytes], y: bytes, inp: Sequence[Ciphertext], out: Sequence[Ciphertext], proof: ShuffleProof
) -> bool:
    n = len(inp)
    if len(out) != n or len(proof.perm_commit) != n:  # (a proof holds n of each of its parts: `ShuffleProof`)
        return False
    for what, points in (("permutation commitment", proof.perm_commit), ("chain commitment", proof.chain_commit)):
        for i, p in enumerate(points):
            if not is_point(p):
                raise InvalidPoint(SECTION, "shuffle-proof", f"{what} {i} is not a valid group element")
    f, gens = _generator(0), _generators(n)
    commit, chain, e = proof.perm_commit, proof.chain_commit, proof.e
    s1, s2, s3, s4 = proof.s
    x = _statement(context, y, inp, out, commit)
    u = [_u(x, j) for j in range(n)]
    product = 1
    for v in u:
        product = product * v % L
    commit_sum = sub(_sum(commit), _generator_sum(n))  # ρ̄·G when C commits to a permutation
    chain_end = sub(chain[-1], _mul(product, f))
    weighted_commit = _sum([_mul(u[j], commit[j]) for j in range(n)])
    weighted_c2 = _sum([_mul(u[j], inp[j].c2) for j in range(n)])
    weighted_c1 = _sum([_mul(u[j], inp[j].c1) for j in range(n)])
    sp = proof.s_prime
    t = (
        add(_mul(e, commit_sum), _mul_g(s1)),
        add(_mul(e, chain_end), _mul_g(s2)),
        _sum([_mul(e, weighted_commit), _mul_g(s3), *(_mul(sp[i], gens[i]) for i in range(n))]),
        _sum([_mul(e, weighted_c2), _mul(-s4, y), *(_mul(sp[i], out[i].c2) for i in range(n))]),
        _sum([_mul(e, weighted_c1), _mul_g(-s4), *(_mul(sp[i], out[i].c1) for i in range(n))]),
    )
    before = [f, *chain[:-1]]
    t_hat = [_sum([_mul(e, chain[i]), _mul_g(proof.s_hat[i]), _mul(sp[i], before[i])]) for i in range(n)]
    return _challenge(x, list(chain), t, t_hat) == e


# -- hashing ----------------------------------------------------------------------------------


def _statement(
    context: Sequence[bytes], y: bytes, inp: Sequence[Ciphertext], out: Sequence[Ciphertext], commit: Sequence[bytes]
) -> bytes:
    """x = H(shuffle-proof, "x", context…, Y, input deck, output deck, C): what u and e answer."""
    return digest(TAG_SHUFFLE_PROOF, b"x", *context, y, deck_bytes(inp), deck_bytes(out), b"".join(commit))


def _u(x: bytes, j: int) -> int:
    """u_j = Hs(shuffle-proof, "u", x, u32(j))."""
    return int.from_bytes(hash_to_scalar(TAG_SHUFFLE_PROOF, b"u", x, u32(j)), "little")


def _challenge(x: bytes, chain: Sequence[bytes], t: Sequence[bytes], t_hat: Sequence[bytes]) -> int:
    """e = Hs(shuffle-proof, "e", x, Ĉ, T1…T5, T̂) (protocol.md §8.4)."""
    scalar = hash_to_scalar(TAG_SHUFFLE_PROOF, b"e", x, b"".join(chain), *t, b"".join(t_hat))
    return int.from_bytes(scalar, "little")


@lru_cache(maxsize=None)
def _generator(i: int) -> bytes:
    """The i-th independent generator: from_uniform of H(shuffle-generator, u32(i)); F is number 0."""
    return hash_to_point(TAG_SHUFFLE_GENERATOR, u32(i))


@lru_cache(maxsize=64)
def _generators(n: int) -> tuple[bytes, ...]:
    """H_0 … H_{n−1} (generators 1 … n)."""
    return tuple(_generator(i + 1) for i in range(n))


@lru_cache(maxsize=64)
def _generator_sum(n: int) -> bytes:
    return _sum(_generators(n))


# -- group arithmetic on integers ---------------------------------------------------------------


def _draw(source: ByteSource) -> int:
    return int.from_bytes(random_scalar(source), "little")


def _enc(v: int) -> bytes:
    return v.to_bytes(SCALAR_BYTES, "little")


def _mul(s: int, p: bytes) -> bytes:
    """s·P for a valid point P or the identity (the identity when s ≡ 0)."""
    s %= L
    if s == 0 or p == IDENTITY:
        return IDENTITY
    return sodium.crypto_scalarmult_ed25519_noclamp(_enc(s), p)


def _mul_g(s: int) -> bytes:
    return mul_base(_enc(s % L))


def _sum(points: Sequence[bytes]) -> bytes:
    total = IDENTITY
    for p in points:
        total = p if total == IDENTITY else add(total, p)
    return total
