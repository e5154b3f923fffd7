"""Argument types for the command line: values argparse refuses with exit status 2 and
a message naming the option, before anything starts."""

from __future__ import annotations

import argparse
import ipaddress
import math
import re
from dataclasses import dataclass
from pathlib import Path

from engine.errors import SkillsError
from engine.game import MAX_TARGET
from engine.skills import MAX_PLAYERS, MIN_PLAYERS, Skills, load_skills
from p2p.roster import DEFAULT_RULES, MAX_GRACE_S, MAX_SEATS, MAX_TURN_S, MIN_GRACE_S, MIN_SEATS, MIN_TURN_S


_WHOLE = re.compile(r"[+-]?[0-9]+")

SEATS_RANGE = f"{MIN_SEATS}-{MAX_SEATS}"
PLAY_BOTS_RANGE = f"1-{MAX_SEATS - 1}"
TARGET_RANGE = f"1-{MAX_TARGET:,}"
TURN_RANGE = f"{MIN_TURN_S}-{MAX_TURN_S} s"
GRACE_RANGE = f"{MIN_GRACE_S}-{MAX_GRACE_S:,} s"
"""What a table allows (§6.8), as refusals (below) and `--help` say it alike."""


def _whole(text: str, low: float, high: float, kind: str, limits: str) -> int:
    """A whole number in [low, high], in ASCII digits (not the other scripts' digits, or
    the ``1_000`` that Python's `int` reads); refused as "not {kind}", or out of them as
    "not {limits}"."""
    if not _WHOLE.fullmatch(text.strip()):
        raise argparse.ArgumentTypeError(f"{text!r} is not {kind}")
    value = int(text)
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"{value} is not {limits}")
    return value


def port(text: str) -> int:
    """A TCP port, 0 for any free one."""
    return _whole(text, 0, 65535, "a port number", "a port (0-65535; 0: any free port)")


def integer(text: str) -> int:
    """Any whole number (a seed)."""
    return _whole(text, -math.inf, math.inf, "a whole number", "a whole number")


def seats(text: str) -> int:
    """The seats of a table a host opens, as a table allows them."""
    return _whole(text, MIN_SEATS, MAX_SEATS, "a whole number", f"a number of seats ({SEATS_RANGE})")


def play_bots(text: str) -> int:
    """`play --bots`: the bots against you, every seat but yours."""
    return _whole(text, 1, MAX_SEATS - 1, "a whole number", f"a number of bots ({PLAY_BOTS_RANGE})")


def host_bots(text: str) -> int:
    """`host --bots`: bots in some of a table's seats (fewer than its --seats, checked with them)."""
    return _whole(text, 0, MAX_SEATS - 1, "a whole number", f"a number of bots (0-{MAX_SEATS - 1})")


def players(text: str) -> int:
    """`simulate --players`: the players of a game (R1)."""
    return _whole(text, MIN_PLAYERS, MAX_PLAYERS, "a whole number",
                  f"a number of players ({MIN_PLAYERS}-{MAX_PLAYERS})")


def count(text: str) -> int:
    """A whole number, at least 1 (games, runs, messages)."""
    return _whole(text, 1, math.inf, "a whole number", "a count (1 or more)")


def target(text: str) -> int:
    """The total that ends a game (R1), as a table's rules allow it (§6.8)."""
    return _whole(text, 1, MAX_TARGET, "a number of points", f"a target ({TARGET_RANGE} points)")


def turn_seconds(text: str) -> int:
    """A turn's timer (R5), as a table's rules allow it (§6.8)."""
    return _whole(text, MIN_TURN_S, MAX_TURN_S, "a number of seconds", f"a turn time ({TURN_RANGE})")


def grace_seconds(text: str) -> int:
    """How long a table waits for a player away (§11.3), as a table's rules allow it (§6.8)."""
    return _whole(text, MIN_GRACE_S, MAX_GRACE_S, "a number of seconds", f"a grace period ({GRACE_RANGE})")


def add_grace_option(parser: argparse.ArgumentParser) -> None:
    """`--grace S`: a rule of the table its host sets (§6.8), for every seat alike."""
    parser.add_argument("--grace", type=grace_seconds, default=DEFAULT_RULES.grace_s, metavar="S", action=NewTableOption,
                        help="how long the table waits for a player whose link is lost before it ends the game, "
                             f"{GRACE_RANGE} (default {DEFAULT_RULES.grace_s} s)")


class NewTableOption(argparse.Action):
    """An option that shapes a new table (its rules, its seats): stored as by default,
    and noted as typed (`new_table_options`), since a game taken back (`--resume`) keeps
    what its seating was signed with and refuses it."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        typed = getattr(namespace, "new_table_typed", ())
        setattr(namespace, "new_table_typed", (*typed, max(self.option_strings, key=len)))


def new_table_options(args: argparse.Namespace) -> list[str]:
    """The options of a new table (`NewTableOption`) typed on the command line, once each."""
    return list(dict.fromkeys(getattr(args, "new_table_typed", ())))


def host_sets_grace(text: str) -> int:
    """`join --grace`: refused, saying who sets it (a joiner's was its own, before §6.8)."""
    raise argparse.ArgumentTypeError("the grace period is a rule of the table, set by its host (host --grace S)")


def split_address(text: str) -> tuple[str, int]:
    """HOST:PORT (an IPv6 host in brackets) as (host, port); ValueError says what is wrong."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host:
        raise ValueError(f"expected HOST:PORT, got {text!r}")
    if not _WHOLE.fullmatch(port) or not port[0].isdigit():  # (ASCII digits only: `_whole`)
        raise ValueError(f"{port!r} is not a port number (in {text!r})")
    if not 0 < int(port) < 65536:
        raise ValueError(f"{int(port)} is not a port (1-65535)")
    return host.strip("[]"), int(port)


def address(text: str) -> tuple[str, int]:
    """`split_address`, for the command line."""
    try:
        return split_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def seconds(text: str) -> float:
    """A time in seconds: finite, and not negative."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text} is not a number of seconds (0 or more)")
    return value


def ipv4(text: str) -> str:
    """The IPv4 address of one of this machine's interfaces."""
    from p2p.discovery import local_addresses

    try:
        address = str(ipaddress.IPv4Address(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IPv4 address") from None
    if address not in (ours := local_addresses()):
        raise argparse.ArgumentTypeError(f"{address} is not an address of this machine "
                                         f"(its IPv4 addresses: {', '.join(ours) or 'none'})")
    return address


def player(text: str) -> str:
    """A person's name at a table, written plainly (§6.4): up to 24 characters, none of
    them invisible, no word mixing Latin, Cyrillic or Greek letters; and not ending in
    "(bot)", which marks the bots a host seats (`bot_player`; the command line's
    courtesy, not a rule of the protocol)."""
    from p2p.names import reads_as_a_bot

    name = bot_player(text)
    if reads_as_a_bot(name):
        raise argparse.ArgumentTypeError(f"{text!r} cannot be a player's name: a name ending in \"(bot)\" is kept "
                                         "for the bots a host seats (play, host --bots), so pick another")
    return name


def bot_player(text: str) -> str:
    """The name of a bot a host seats ("Ada (bot)", `cli.bots`): a player's name as §6.4
    has it, "(bot)" and all."""
    from p2p.roster import PLAYER_NAME

    return plain(text, "player's name", PLAYER_NAME.max_len)


def plain(text: str, what: str, max_len: int) -> str:
    """`text` written plainly as a name (§6.4), or why it cannot be a `what`."""
    from p2p.names import name_problem, plain_name

    name = plain_name(text)
    if (problem := name_problem(name, max_len)) is not None:
        raise argparse.ArgumentTypeError(f"{text!r} cannot be a {what}: it {problem}")
    return name


@dataclass(frozen=True)
class SkillsFile:
    """A user's skills table (TOML), read and checked: its text (what a host sends in
    the table's rules, §6.8) and the deck it describes."""

    path: Path
    text: str
    skills: Skills


SKILLS_FILE_BYTES = 64 * 1024
"""Far more than any skills table (the default is under 2 KiB; a table's rules carry at
most 4,096 characters, §6.8): a larger file is not one, and is not read whole."""


def skills_file(text: str) -> SkillsFile:
    """A readable UTF-8 file holding a valid skills table (R4, engine/skills.toml)."""
    path = Path(text)
    try:
        with path.open("rb") as file:
            data = file.read(SKILLS_FILE_BYTES + 1)
        if len(data) > SKILLS_FILE_BYTES:
            raise argparse.ArgumentTypeError(f"{path} is larger than {SKILLS_FILE_BYTES // 1024} KiB: "
                                             "not a skills table")
        table = data.decode("utf-8")
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise argparse.ArgumentTypeError(f"{path} is not UTF-8 text (a TOML file is)") from None
    try:
        return SkillsFile(path, table, load_skills(table, str(path)))
    except SkillsError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
