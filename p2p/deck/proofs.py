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

`context` carries everything the proof must be bound to (game, chain, card position,
peer), framed like every other hash input (§8.1). Nonces are hedged (`sampling`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .group import check_scalar, hash_to_scalar, mul, mul_base, scalar_add, scalar_mul, sub
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
    """True if `proof` shows log_G X = log_C D. Raises `InvalidPoint` if X, C or D is not valid."""
    A = sub(mul_base(proof.s), mul(proof.e, X))
    B = sub(mul(proof.s, C), mul(proof.e, D))
    return hash_to_scalar(tag, *context, X, C, D, A, B) == proof.e
