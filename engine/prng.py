"""A small deterministic PRNG (SplitMix64) for bots and the simulator.

The engine may not use `random`: seeded runs must give the same games on every Python
version and platform. SplitMix64 (Steele, Lea and Flood, 2014) is tiny, fast in pure
Python and fully specified by integer arithmetic modulo 2**64, so its outputs are fixed
by the seed alone. Test vectors: tests/test_engine_prng.py.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    """The SplitMix64 output function: a bijective avalanche of a 64-bit integer."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class Prng:
    """SplitMix64: `next64()` advances the state by the golden gamma and mixes it.

    Mutable by nature (each draw advances it); give each consumer its own instance
    (`derive` makes independent child streams from a seed and labels).
    """

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        if type(seed) is not int:
            raise TypeError(f"seed must be an int, not {type(seed).__name__}")
        self._state = seed & _MASK

    @classmethod
    def derive(cls, seed: int, *labels: int) -> Prng:
        """An independent stream for (seed, labels...), e.g. one per simulated game."""
        state = mix64((seed & _MASK) ^ 0x6A09E667F3BCC908)
        for label in labels:
            state = mix64((state + _GAMMA * ((label & _MASK) + 1)) & _MASK)
        return cls(state)

    def next64(self) -> int:
        """The next 64-bit output."""
        self._state = s = (self._state + _GAMMA) & _MASK
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) (rejection sampling, so exactly unbiased)."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, got {n}")
        if n & (n - 1) == 0:
            return self.next64() & (n - 1)
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def random(self) -> float:
        """A uniform float in [0, 1) with 53 random bits."""
        return (self.next64() >> 11) * (1.0 / 9007199254740992.0)

    def chance(self, p: float) -> bool:
        """True with probability p."""
        return self.random() < p

    def choice(self, items: Sequence[T]) -> T:
        """A uniformly chosen element of a non-empty sequence."""
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates shuffle in place (descending index, swap with j in [0, i])."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
