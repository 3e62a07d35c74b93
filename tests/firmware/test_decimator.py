"""Moving-sum decimator: the running sum always equals the sum of the last 12 samples."""

from hypothesis import given
from hypothesis import strategies as st

from servobus.firmware import decimator
from servobus.firmware import memory as m

CODES = st.integers(min_value=0, max_value=1023)


@given(st.integers(0, 1023), st.lists(CODES, max_size=60))
def test_running_sum_is_sum_of_last_twelve(preload: int, samples: list[int]) -> None:
    ram = m.new_ram()
    decimator.fill(ram, preload)
    history = [preload] * m.MA_LEN
    for code in samples:
        decimator.push(ram, code)
        history.append(code)
        assert ram[m.MA_SUM] == sum(history[-m.MA_LEN:])
        window = sorted(int(v) for v in ram[m.MA_BUF0:m.MA_BUF0 + m.MA_LEN])
        assert window == sorted(history[-m.MA_LEN:])


def test_sum_bounds_fit_easily_in_int32() -> None:
    ram = m.new_ram()
    decimator.fill(ram, 0)
    for _ in range(30):
        decimator.push(ram, 1023)
    assert ram[m.MA_SUM] == 12 * 1023
