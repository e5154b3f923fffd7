"""§6 end to end over real TLS sockets on 127.0.0.1: host + joiners in one trio process."""

from __future__ import annotations

from pathlib import Path

import trio

from p2p.roster import game_id_of, parse_canonical, roster_signature_valid
from transport_support import make_identities, meshes, run_table


async def test_four_peers_seat_sign_and_agree_on_the_game_id(tmp_path: Path) -> None:
    ids = make_identities(tmp_path, 4)
    async with meshes(ids) as ms:
        with trio.fail_after(20):
            results = await run_table(ms)
        assert len({r.game_id for r in results}) == 1
        first = results[0]
        assert first.game_id == game_id_of(first.canonical)
        roster = parse_canonical(first.canonical)
        assert [m.cert.peer_id for m in roster.members] == [i.peer_id for i in ids]
        for m, sig in zip(roster.members, first.signatures):
            assert roster_signature_valid(m.cert, first.canonical, sig)
        assert sorted(r.seat for r in results) == [0, 1, 2, 3]
        for m in ms:  # full mesh: everybody linked to everybody
            assert m.linked() == {i.peer_id for i in ids} - {m.me}
