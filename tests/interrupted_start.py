"""`python -m tests.interrupted_start MODULE ARGS…`: the `bandit-lan` console script run
with ARGS, this process sent a real SIGINT (what a terminal sends at Ctrl-C) the moment
MODULE starts to be imported: a Ctrl-C at that instant of start-up."""

from __future__ import annotations

import importlib.abc
import os
import signal
import sys


class InterruptAt(importlib.abc.MetaPathFinder):
    """Finds nothing; sends SIGINT once, when `module` is first looked for."""

    def __init__(self, module: str) -> None:
        self.module = module

    def find_spec(self, fullname, path, target=None):  # type: ignore[no-untyped-def]
        if fullname == self.module:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)  # (Python raises KeyboardInterrupt here, at once)
        return None


if __name__ == "__main__":
    module, *sys.argv[1:] = sys.argv[1:]
    sys.argv[0] = "bandit-lan"
    sys.meta_path.insert(0, InterruptAt(module))
    from cli.main import main  # (as the console script does: `cli.main` first, then `main()`)

    sys.exit(main())
