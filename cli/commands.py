"""Command lines the program shows its user, ready to paste into a shell."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Sequence
from fnmatch import fnmatch
from pathlib import Path

DOUBLE_QUOTE_SPECIALS = frozenset('"$`\\!')
"""What a shell's double quotes do not keep as typed (`!`: an interactive bash's history)."""


def shell_word(text: str) -> str:
    """`text` as one word of a command line, quoted for people to read and type: bare
    if the shell needs no quotes ("Friday"), in double quotes if it holds a single quote
    and nothing double quotes change ("Ana's table"), else in single quotes."""
    quoted = shlex.quote(text)
    if quoted == text:
        return text
    if "'" in text and not DOUBLE_QUOTE_SPECIALS & set(text):
        return f'"{text}"'
    return quoted


def this_program() -> str:
    """The words that run this program again, to begin every command it prints for its
    user: `bandit-lan` where the shell's PATH finds this very program; else the path it
    was started by (relative to the current folder if under it, as `.venv/bin/bandit-lan`
    after the README's quick start, which activates no environment); started as
    `python -m cli`, that form, with this interpreter as the shell would find it."""
    main = sys.modules.get("__main__")
    if getattr(getattr(main, "__spec__", None), "name", None) == "cli.__main__":
        return f"{as_typed(sys.executable)} -m cli"
    started = sys.argv[0] if sys.argv else ""
    if os.path.basename(started) != "bandit-lan" or not os.path.isfile(started):
        return "bandit-lan"  # (not its console script: the program called from within another, as in tests)
    return as_typed(started)


def as_typed(path: str) -> str:
    """`path`, an executable, as one shell word: its bare name if PATH finds that very file."""
    name = os.path.basename(path)
    found = shutil.which(name)
    if found is not None and (os.path.abspath(found) == os.path.abspath(path)
                              or not os.path.islink(found) and not os.path.islink(path)
                              and os.path.samefile(found, path)):
        return name
    absolute = os.path.abspath(path)
    here = os.getcwd()
    if os.path.commonpath([absolute, here]) == here:
        relative = os.path.relpath(absolute, here)
        return shell_word(relative if os.sep in relative else os.path.join(".", relative))
    return shell_word(absolute)


def logs_together(logs: Sequence[Path | str], seats: int) -> tuple[str, str] | None:
    """How to check a seat's log (`logs[0]`) together with the other logs of its game kept
    on this machine (its bots'): what to say before the command, and the command; None
    if there are no others."""
    if len(logs) < 2:
        return None
    if len(logs) == seats:  # (`play`: every seat's)
        return "Every seat's log is here; check them together:", audit_command(logs)
    return "Your bots' logs are here too; check them together with yours:", audit_command(logs)  # (people keep theirs)


def audit_command(logs: Sequence[Path | str]) -> str:
    """`bandit-lan audit` (as `this_program` is run) over `logs`, every path quoted for people (`shell_word`); one
    game's seats in one folder become one pattern (`<game>-seat*.bandit-log`, §10.3)."""
    paths = [Path(p) for p in logs]
    first = paths[0]
    pattern = f"{first.name.rsplit('-seat', 1)[0]}-seat*.bandit-log"
    if len(paths) > 1 and "-seat" in first.name and all(p.parent == first.parent and fnmatch(p.name, pattern)
                                                        for p in paths):
        return f"{this_program()} audit {shell_word(str(first.parent))}/{pattern}"
    return f"{this_program()} audit " + " ".join(shell_word(str(p)) for p in paths)
