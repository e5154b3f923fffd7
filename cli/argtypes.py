"""Argument types for the command line: values argparse refuses with exit status 2 and
a message naming the option, before anything starts."""

from __future__ import annotations

import argparse
import ipaddress
import math


def port(text: str) -> int:
    """A TCP port, 0 for any free one."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (0-65535; 0: any free port)")
    return value


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
    try:
        return str(ipaddress.IPv4Address(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IPv4 address") from None


def player(text: str) -> str:
    """A player's name at a table (§6.2): 1-24 printable characters."""
    from p2p.errors import ProtocolError
    from p2p.roster import PLAYER_NAME

    try:
        PLAYER_NAME.check(text, "--name", "§6.2")
    except ProtocolError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a name: 1-{PLAYER_NAME.max_len} printable characters") from None
    return text
