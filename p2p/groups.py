"""Unwrapping trio's exception groups where exactly one thing went wrong.

Trio nurseries wrap every error in an ExceptionGroup. Callers of this package expect
the typed error (a `ProtocolError`, an `OSError`) when a single task failed, so the
context managers that own nurseries re-raise a lone exception as itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def lone_exception_unwrapped() -> Iterator[None]:
    try:
        yield
    except BaseExceptionGroup as group:
        leaves = _leaves(group)
        if len(leaves) == 1:
            raise leaves[0] from None
        raise


def _leaves(group: BaseExceptionGroup) -> list[BaseException]:  # type: ignore[type-arg]
    out: list[BaseException] = []
    for exc in group.exceptions:
        out.extend(_leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return out
