"""Opening this seat's mesh where `--bind ADDR` and `--port PORT` say: a failure to
listen there is said with the address, the port, and what to choose instead."""

from __future__ import annotations

import errno
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager

from p2p.transport import Mesh


class CannotListen(OSError):
    """This seat cannot listen at the address and port it was given; its words say what to do."""

    def __str__(self) -> str:
        return str(self.args[0])


def port_taken_words(bind: str, port: int) -> str:
    """That another program listens at `bind`:`port` (EADDRINUSE)."""
    return f"another program uses port {port} (at {bind})"


def cannot_listen_words(error: OSError, bind: str, port: int) -> str:
    """What went wrong listening at `bind`:`port`, and which option to change."""
    where = f"{bind}:{port}" if port else bind
    if error.errno == errno.EADDRINUSE:
        return f"{port_taken_words(bind, port)}: choose another --port, or leave --port out to let the system choose"
    if error.errno == errno.EADDRNOTAVAIL:
        from p2p.discovery import local_addresses

        ours = ", ".join(local_addresses()) or "none"
        return (f"{bind} is not an address of this machine: choose one of its own with --bind ({ours}), "
                "or leave --bind out to listen on all of them")
    if error.errno == errno.EACCES:
        return (f"this user may not listen at {where} (ports below 1024 are the system's): choose another "
                "--port, or leave --port out to let the system choose")
    return f"cannot listen at {where}: {error.strerror or error}"


@asynccontextmanager
async def listening(opening: AbstractAsyncContextManager[Mesh], bind: str, port: int) -> AsyncIterator[Mesh]:
    """`opening` (an `open_mesh`) entered; an OSError while it starts to listen is raised
    as `CannotListen`."""
    async with AsyncExitStack() as stack:
        try:
            mesh = await stack.enter_async_context(opening)
        except OSError as exc:
            raise CannotListen(cannot_listen_words(exc, bind, port)) from exc
        yield mesh
