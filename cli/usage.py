"""How a command's usage errors are said: argparse's words (its usage line, then
`bandit-lan COMMAND: error: …`, exit status 2); for a command whose output scripts read
(`audit --json`), also the one JSON object its last line holds (`ok: false`, `error`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import NoReturn


class CommandParser(argparse.ArgumentParser):
    """A command's parser (`add_subparsers(parser_class=…)`): one whose `json_option` is set
    ends a usage error asked for with that option in the JSON object, as its other
    failures end."""

    json_option: str | None = None
    json_asked: bool = False

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        if self.json_option is not None:
            words = list(sys.argv[1:] if args is None else args)
            words = words[:words.index("--")] if "--" in words else words
            # (argparse takes an option's prefix too, `--js`; no other option of `audit` begins so)
            self.json_asked = any(len(w) > 2 and self.json_option.startswith(w) for w in words)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        if self.json_asked:
            from cli.lobby_common import tell

            tell(json.dumps({"ok": False, "error": message}), sys.stdout)
        super().error(message)
