"""What every screen and log says of a seat's `leave` (§9.8): its reason, as the
leaver's own words where it accuses anyone."""

from __future__ import annotations

from pathlib import Path

import trio

from p2p.audit import audit
from tests.live_support import running, seat_live_table, until


async def test_9_8_a_leave_naming_another_player_reads_on_screen_as_the_leaver_s_words(tmp_path: Path) -> None:
    """Mal left "because Ada cheated": the others' screens read "Mal left the table
    (because Ada cheated)", as if the table said so. They quote it as Mal's words, and
    each log's end says it alike."""
    stack, peers = await seat_live_table(tmp_path, 3, person=False)
    ann, bo, mal = peers
    async with stack:
        with trio.fail_after(30):
            async with running(peers) as summaries:
                await until(lambda: ann.machine.playing, ann)
                reason = f"because {ann.names[ann.me].upper()} cheated"
                await mal.leave(reason)
                said = f'{bo.names[mal.me]} left the table, saying: "{reason}"; the game ends here'
                await until(lambda: any(line.text.startswith(said) for line in bo.lines), bo)
    assert not any(f"left the table ({reason})" in line.text for peer in peers for line in peer.lines)
    result = audit(summaries[bo.me].log_path)
    assert result.left is not None and result.left.why == f'left the table, saying: "{reason}"', result.left
