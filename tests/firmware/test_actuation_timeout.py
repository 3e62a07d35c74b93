"""Issue 9: the board's actuation timeout (a silent or stalled host is detected by the boards)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.analysis.op_counter import OpCounter
from servobus.firmware import board
from servobus.firmware import memory as m


def test_three_periods_without_actuation_time_out_to_zero_current(rom) -> None:
    ram = m.new_ram()
    board.reset(ram, rom, m.MODE_CURRENT)
    for _ in range(5):  # a healthy host: one actuation per period
        board.can_actuation(ram, 2048)
        board.can_tick(ram, rom)
        assert ram[m.IW_REF] == 2048 and not board.actuation_timed_out(ram)
    board.can_tick(ram, rom)  # first and second period without actuation: stale reference held
    board.can_tick(ram, rom)
    assert ram[m.IW_REF] == 2048 and not board.actuation_timed_out(ram)
    board.can_tick(ram, rom)  # the third: timed out, zero current
    assert board.actuation_timed_out(ram) and ram[m.IW_REF] == 0 and ram[m.ACT_TIMEOUTS] == 1
    for _ in range(100):
        board.can_tick(ram, rom)
    assert ram[m.ACT_TIMEOUTS] == 1 and ram[m.IW_REF] == 0 and ram[m.DUTY_REF] == 0
    board.can_actuation(ram, -1024)  # the host is back
    assert not board.actuation_timed_out(ram)
    board.can_tick(ram, rom)
    assert ram[m.IW_REF] == -1024 and ram[m.ACT_TIMEOUTS] == 1


def test_position_references_keep_a_local_p_board_alive(rom) -> None:
    ram = m.new_ram()
    board.reset(ram, rom, m.MODE_LOCAL_P)
    for _ in range(10):
        board.can_posref(ram, 600)
        board.can_tick(ram, rom)
    assert ram[m.XW_REF] == 600 and ram[m.ACT_TIMEOUTS] == 0
    for _ in range(3):
        board.can_tick(ram, rom)
    assert board.actuation_timed_out(ram) and ram[m.XW_REF] == 600  # holds its last position


@settings(max_examples=50)
@given(st.lists(st.sampled_from(["tick", "act"]), max_size=300))
def test_timeouts_count_runs_of_silence_and_never_wrap(rom, events) -> None:
    ram = m.new_ram()
    board.reset(ram, rom, m.MODE_CURRENT)
    silent, expected = 0, 0
    with OpCounter() as counter:
        for event in events:
            if event == "act":
                board.can_actuation(ram, 100)
                silent = 0
            else:
                board.can_tick(ram, rom)
                silent += 1
                expected += silent == m.ACT_TIMEOUT_PERIODS + 1
    assert counter.wraps == []
    assert ram[m.ACT_TIMEOUTS] == expected
    assert board.actuation_timed_out(ram) == (silent > m.ACT_TIMEOUT_PERIODS)
