"""Zero-knowledge proofs of the card protocol (protocol.md §8.3, §8.5).

Both proofs are Fiat–Shamir sigma protocols in challenge–response form: the proof is two
scalars (e, s); the verifier recomputes the commitments from them and checks that hashing
gives e back. The commitments never travel, so there is nothing in a proof to validate
but two canonical scalars.

- Schnorr proof of knowledge of x with X = x·G:
      A = k·G,  e = H_s(tag, context…, X, A),  s = k + e·x
      verify: A' = s·G − e·X and e = H_s(tag, context…, X, A')
- Chaum–Pedersen proof that D = x·C uses the same x as X = x·G:
      A = k·G,  B = k·C,  e = H_s(tag, context…, X, C, D, A, B),  s = k + e·x
      verify: A' = s·G − e·X,  B' = s·C − e·D,  and e = H_s(tag, context…, X, C, D, A', B')
- Seal proof: (U, V) = (t·G, x·C + t·Z) is an ElGamal encryption, under the key Z, of
  x·C with the same x as X = x·G (proof of knowledge of x and t; a third scalar r):
      A = k·G,  B = l·G,  W = k·C + l·Z,  e = H_s(tag, context…, X, Z, C, U, V, A, B, W),
      s = k + e·x,  r = l + e·t
      verify: A' = s·G − e·X,  B' = r·G − e·U,  W' = s·C + r·Z − e·V,  e = H_s(…, A', B', W')

`context` carries everything the proof must be bound to (game, chain, card position,
peer), framed like every other hash input (§8.1). Nonces are hedged (`sampling`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .group import add, check_scalar, hash_to_scalar, mul, mul_base, scalar_add, scalar_mul, sub
from .kept import Kept
from .sampling import ByteSource, hedged_nonce


@dataclass(frozen=True)
class Proof:
    """A challenge–response proof: two canonical scalars."""

    e: bytes
    s: bytes

    def __post_init__(self) -> None:
        check_scalar(self.e, "proof challenge e")
        check_scalar(self.s, "proof response s")


def prove_dlog(x: bytes, X: bytes, tag: bytes, context: tuple[bytes, ...], source: ByteSource) -> Proof:
    """Schnorr proof that the prover knows x with X = x·G."""
    k = hedged_nonce(x, source, tag, *context, X)
    e = hash_to_scalar(tag, *context, X, mul_base(k))
    return Proof(e, scalar_add(k, scalar_mul(e, x)))


def verify_dlog(X: bytes, proof: Proof, tag: bytes, context: tuple[bytes, ...]) -> bool:
    """True if `proof` shows knowledge of log_G X. Raises `InvalidPoint` if X is not valid."""
    A = sub(mul_base(proof.s), mul(proof.e, X))
    return hash_to_scalar(tag, *context, X, A) == proof.e


def prove_dleq(
    x: bytes, X: bytes, C: bytes, D: bytes, tag: bytes, context: tuple[bytes, ...], source: ByteSource
) -> Proof:
    """Chaum–Pedersen proof that log_G X = log_C D (= x)."""
    k = hedged_nonce(x, source, tag, *context, X, C, D)
    e = hash_to_scalar(tag, *context, X, C, D, mul_base(k), mul(k, C))
    return Proof(e, scalar_add(k, scalar_mul(e, x)))


def verify_dleq(X: bytes, C: bytes, D: bytes, proof: Proof, tag: bytes, context: tuple[bytes, ...]) -> bool:
    """True if `proof` shows log_G X = log_C D. Raises `InvalidPoint` if X, C or D is not
    valid. The verdict is kept for its exact statement and proof (`Kept`): every seat
    checks every share, and an audit of several logs checks each log's copy."""

    def check() -> bool:
        A = sub(mul_base(proof.s), mul(proof.e, X))
        B = sub(mul(proof.s, C), mul(proof.e, D))
        return hash_to_scalar(tag, *context, X, C, D, A, B) == proof.e

    return _dleq_verdicts((tag, X, C, D, proof.e, proof.s, *context), check)


_dleq_verdicts: Kept[bool] = Kept(b"chaum-pedersen", 8192)


@dataclass(frozen=True)
class SealProof:
    """A seal proof: three canonical scalars (e, s, r)."""

    e: bytes
    s: bytes
    r: bytes

    def __post_init__(self) -> None:
        check_scalar(self.e, "proof challenge e")
        check_scalar(self.s, "proof response s")
        check_scalar(self.r, "proof response r")


def seal(
    x: bytes, X: bytes, C: bytes, Z: bytes, tag: bytes, context: tuple[bytes, ...], source: ByteSource
) -> tuple[bytes, bytes, SealProof]:
    """(U, V, proof): x·C sealed to the key Z, with a proof that it is x·C for log_G X = x.

    The sealing scalar t is hedged like a nonce, so a weak byte source cannot expose x·C."""
    t = hedged_nonce(x, source, tag, *context, X, Z, C)
    U, V = mul_base(t), add(mul(x, C), mul(t, Z))
    k = hedged_nonce(x, source, tag, *context, X, Z, C, U, V)
    l = hedged_nonce(t, source, tag, *context, X, Z, C, U, V)
    e = hash_to_scalar(tag, *context, X, Z, C, U, V, mul_base(k), mul_base(l), add(mul(k, C), mul(l, Z)))
    return U, V, SealProof(e, scalar_add(k, scalar_mul(e, x)), scalar_add(l, scalar_mul(e, t)))


def verify_seal(
    X: bytes, C: bytes, Z: bytes, U: bytes, V: bytes, proof: SealProof, tag: bytes, context: tuple[bytes, ...]
) -> bool:
    """True if (U, V) seals log_G X · C to Z. Raises `InvalidPoint` if a point is not
    valid. The verdict is kept for its exact statement and proof (`Kept`), as a share's."""

    def check() -> bool:
        A = sub(mul_base(proof.s), mul(proof.e, X))
        B = sub(mul_base(proof.r), mul(proof.e, U))
        W = sub(add(mul(proof.s, C), mul(proof.r, Z)), mul(proof.e, V))
        return hash_to_scalar(tag, *context, X, Z, C, U, V, A, B, W) == proof.e

    return _seal_verdicts((tag, X, C, Z, U, V, proof.e, proof.s, proof.r, *context), check)


_seal_verdicts: Kept[bool] = Kept(b"seal", 8192)
