"""`bandit-lan` whose lobby waits fewer seconds for roster signatures (a test double).

``python -m tests.short_sign_wait SECONDS ARGS…`` runs ``bandit-lan ARGS…`` as a real
process whose lobby, and whose ``--resume`` of a seat stopped while the roster was being
signed, gives up on the signatures it lacks after SECONDS instead of `SIGN_WAIT` (30 s):
what a test of that wait checks is the same, and it waits a fraction of the time.
"""

from __future__ import annotations

import sys


def main() -> int:
    from p2p import lobby_runner

    lobby_runner.SIGN_WAIT = float(sys.argv[1])
    from cli.main import main as bandit_lan

    return bandit_lan(sys.argv[2:])


if __name__ == "__main__":
    raise SystemExit(main())
