"""§11.4 seeing the table off: whom a peer whose game ended still stays for."""

from __future__ import annotations

from p2p.farewell import Farewell


def holding(*seats: int):  # type: ignore[no-untyped-def]
    return lambda seat: seat in seats


def test_s11_4_a_seat_is_seen_off_by_a_frame_after_the_end_and_holding_ours() -> None:
    farewell = Farewell.begin(3, 0, 10.0, up=[1, 2], limit=15.0)
    assert farewell.staying_for(holding(1, 2)) == (1, 2)  # nothing heard since the end yet
    farewell.heard(1)
    assert farewell.staying_for(holding(1, 2)) == (2,)
    assert farewell.staying_for(holding(2)) == (1, 2)  # seat 1 still lacks a message of ours
    farewell.heard(2)
    assert farewell.over(holding(1, 2), 10.5)


def test_s11_4_a_goodbye_sees_a_seat_off_and_one_said_before_the_end_counts() -> None:
    farewell = Farewell.begin(4, 1, 0.0, up=[0, 2], gone=[3])
    farewell.link_down(0, clean=True)
    assert farewell.staying_for(holding()) == (2,)
    farewell.link_down(2, clean=True)
    assert farewell.over(holding(), 0.1)


def test_s11_4_a_link_that_drops_is_waited_for_and_its_return_needs_a_new_frame() -> None:
    farewell = Farewell.begin(2, 0, 0.0, up=[1], limit=15.0)
    farewell.heard(1)
    farewell.link_down(1, clean=False)  # a crash or a cable: it may come back and need us
    assert farewell.staying_for(holding(1)) == (1,)
    farewell.heard(1)  # (nothing can come on a link that is down)
    assert farewell.staying_for(holding(1)) == (1,)
    farewell.link_up(1)
    assert farewell.staying_for(holding(1)) == (1,)  # what it held before may be stale
    farewell.heard(1)
    assert farewell.over(holding(1), 5.0)


def test_s11_4_the_stay_is_bounded() -> None:
    farewell = Farewell.begin(3, 2, 100.0, up=[], limit=15.0)
    assert not farewell.over(holding(), 114.9)
    assert farewell.over(holding(), 115.0)
    assert farewell.staying_for(holding()) == (0, 1)  # (those it leaves without)

