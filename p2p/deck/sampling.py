"""Randomness from an explicit byte source (protocol.md §8.1).

The card protocol never reaches for a random number generator on its own: every function
that needs randomness takes a `ByteSource`, a callable returning that many fresh bytes.
A live peer passes `os.urandom`; tests pass a seeded stream, so every run can be replayed.

Proof nonces are *hedged*: derived by hashing the secret, 32 fresh bytes and the
statement, so a weak byte source can never make two proofs share a nonce for different
statements (which would leak the secret key).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from .errors import UsageError
from .group import ZERO, hash_to_scalar, reduce64
from .hashing import TAG_NONCE

ByteSource = Callable[[int], bytes]
"""A callable returning `n` fresh random bytes, e.g. `os.urandom` or `secrets.token_bytes`."""


def random_scalar(source: ByteSource) -> bytes:
    """A uniform non-zero scalar: 64 bytes from the source reduced modulo L."""
    while True:
        s = reduce64(_draw(source, 64))
        if s != ZERO:
            return s


def random_below(source: ByteSource, n: int) -> int:
    """A uniform integer in [0, n), by rejection sampling 4-byte big-endian draws."""
    if not 0 < n <= 2**32:
        raise UsageError("§8.1", "range", "random_below draws from 1..2**32 values")
    limit = 2**32 - (2**32 % n)
    while True:
        v = int.from_bytes(_draw(source, 4), "big")
        if v < limit:
            return v % n


def random_permutation(source: ByteSource, n: int) -> tuple[int, ...]:
    """A uniform permutation of range(n) (Fisher–Yates, from the top index down)."""
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        j = random_below(source, i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return tuple(perm)


def hedged_nonce(secret: bytes, source: ByteSource, *statement: bytes) -> bytes:
    """k = H_s(TAG_NONCE, secret, 32 fresh bytes, statement…), never zero."""
    while True:
        k = hash_to_scalar(TAG_NONCE, secret, _draw(source, 32), *statement)
        if k != ZERO:
            return k


def _draw(source: ByteSource, n: int) -> bytes:
    data = source(n)
    if not isinstance(data, bytes) or len(data) != n:
        raise UsageError("§8.1", "byte-source", f"byte source gave no {n} bytes")
    return data


class SeededSource:
    """A deterministic `ByteSource`: for tests and test vectors, and at a live table only
    keyed by a secret seat seed (§9.12), never by anything others could know.

    The stream is SHA-512(seed ‖ u64be(0)) ‖ SHA-512(seed ‖ u64be(1)) ‖ … read in order."""

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._block = 0
        self._buffer = b""

    def __call__(self, n: int) -> bytes:
        while len(self._buffer) < n:
            self._buffer += hashlib.sha512(self._seed + self._block.to_bytes(8, "big")).digest()
            self._block += 1
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data
