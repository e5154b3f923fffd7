"""Answers of pure checks, kept by their statement.

A check of the card protocol whose answer depends on nothing but its inputs (a shuffle
proof, a share's proof, a sealed share's, a step's opening) is often asked again in one
process with the very same inputs: the audit of several logs of one game checks each
log's copy of every proof, and peers run together in one process (the in-memory
simulator) each check what the others check. `Kept` remembers each answer under a
digest of every input byte (the framed SHA-512 transcript of §8.1, so two different
statements never share a key) and does the work once. It keeps a bounded number,
forgetting the oldest first. An exception is not an answer: a check that raises is asked
afresh every time.

A live peer holds one seat, so it hardly ever asks twice; the cost of asking is one
digest of the inputs, far below one scalar multiplication. Nothing here goes on the wire
or into a log: `TAG_KEPT` names these digests for this process alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Generic, TypeVar

from .hashing import digest

T = TypeVar("T")

TAG_KEPT: Final = b"bandit-lan/v1/kept"


class Kept(Generic[T]):
    """The answers of one check (`name`), at most `size` of them."""

    def __init__(self, name: bytes, size: int) -> None:
        self.name = name
        self.size = size
        self._answers: dict[bytes, T] = {}

    def __call__(self, statement: tuple[bytes, ...], check: Callable[[], T]) -> T:
        """The answer for `statement` (every input of the check, as bytes): kept, or `check()`."""
        key = digest(TAG_KEPT, self.name, *statement)
        try:
            return self._answers[key]
        except KeyError:
            pass
        answer = check()
        self._answers[key] = answer
        if len(self._answers) > self.size:
            del self._answers[next(iter(self._answers))]
        return answer

    def __len__(self) -> int:
        return len(self._answers)
