"""The folders a seat keeps its files in (`--state-dir`, `--log-dir`): checked before
anything starts, by one checker, so that a folder that cannot be written reads the same
whichever it is, names the option that chooses another, and is a usage error (status 2)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from cli.lobby_common import complain
from p2p.identity import default_state_dir

USAGE_ERROR = 2
"""The exit status of a folder that cannot be used, as of any option argparse refuses."""


def folder_problem(folder: Path, keeps: str, option: str, mode: int = 0o777) -> str | None:
    """Why `folder` cannot keep `keeps` (it is made if missing, with `mode`, and a file is
    written there and removed), naming `option` to choose another; None if it can."""
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=mode)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".bandit-lan-", suffix=".probe"):
            pass
    except OSError as exc:
        return f"cannot keep {keeps} in {folder}: {_why(folder, exc)}; choose another folder with {option}"
    return None


def _why(folder: Path, error: OSError) -> str:
    """The reason, in words: a file where the folder, or one of the folders it is in, would be."""
    for place in (folder, *folder.parents):
        if place.exists():
            if place.is_dir():
                break
            return "it is a file, not a folder" if place == folder else f"{place} is a file, not a folder"
    return error.strerror or str(error)


def state_unwritable(args: argparse.Namespace) -> bool:
    """Say so (before anything starts) if the state folder cannot keep this player's identity."""
    problem = folder_problem(args.state_dir or default_state_dir(), "this player's identity", "--state-dir",
                             mode=0o700)  # (as `p2p.identity` makes it: the key's folder is the user's alone)
    if problem is not None:
        complain(problem)
    return problem is not None
