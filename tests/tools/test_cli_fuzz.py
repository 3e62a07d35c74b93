"""Every numeric option of every command against NaN, infinities, 0, negatives, huge values and
malformed text (hypothesis): exit status 2, one `error: ...` line, no traceback.

Each command starts from arguments that keep a wrongly accepted value short (tiny durations), and
values an option legitimately takes (0 for --seed, a negative --iw) are not drawn for it.  The
bad inputs tried are counted per command and printed by the last test (`pytest -s`).
"""

import contextlib
import io
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servobus.tools.cli import main

TRIED: Counter[str] = Counter()
SPECIAL = ["nan", "NaN", "-nan", "inf", "-inf", "+inf", "Infinity", "1e309", "-1e309", "",
           "one", "0x10", "1,2"]


def _text(x: float) -> str:
    return repr(x)


HUGE = st.floats(min_value=1e7, max_value=1e300).map(_text)
NEGATIVE = st.floats(max_value=-1e-300, min_value=-1e300).map(_text)
ZERO = st.sampled_from(["0", "0.0", "-0", "0e5", "0s", "0ms"])
NOT_WHOLE = st.floats(min_value=0.01, max_value=1e6).filter(lambda x: x != int(x)).map(_text)
TINY_PERIOD = st.sampled_from(["1ns", "1us", "50us", "1e-9", "99us"])

# kinds of option -> the strategies of values that make no sense for it
POSITIVE = [HUGE, NEGATIVE, ZERO]  # a positive float with a sane upper bound
SIGNED = [HUGE, HUGE.map(lambda s: "-" + s)]  # any sign, bounded
COUNT = [HUGE, NEGATIVE, ZERO, NOT_WHOLE]  # a positive whole number
SEED = [HUGE, NEGATIVE, NOT_WHOLE]  # 0 is a seed
PERIOD = [HUGE, NEGATIVE, ZERO, TINY_PERIOD]
JOINT_LIST = [st.sampled_from(["1,,2", ",", "0", "13", "-1", "1,1", "1;2", "1.5", "nan"])]

SHORT_RUN = ["--duration", "0.01", "--no-progress"]
CASES: list[tuple[str, list[str], str, list[st.SearchStrategy[str]]]] = [
    ("run", ["run", *SHORT_RUN], "--duration", POSITIVE),
    ("run", ["run", *SHORT_RUN], "--alpha", POSITIVE),
    ("run", ["run", *SHORT_RUN], "--seed", SEED),
    ("run", ["run", *SHORT_RUN], "--realtime", POSITIVE),
    ("run", ["run", *SHORT_RUN], "--plot-joints", JOINT_LIST),
    ("bussim", ["bussim", "--duration", "0.01"], "--duration", POSITIVE),
    ("bussim", ["bussim", "--duration", "0.01"], "--seed", SEED),
    ("bussim", ["bussim", "--duration", "0.01"], "--realtime", POSITIVE),
    ("busload", ["busload"], "--period", PERIOD),
    ("busload", ["busload"], "--bitrate", [*POSITIVE, st.sampled_from(["1", "9999", "2M"])]),
    ("busload", ["busload", "--log", "none.blf"], "--window", PERIOD),
    ("busload", ["busload", "--interface", "virtual"], "--duration", POSITIVE),
    ("step", ["step", "--periods", "2"], "--iw", SIGNED),
    ("step", ["step", "--periods", "2"], "--periods", COUNT),
    ("step", ["step", "--periods", "2"], "--alpha", POSITIVE),
    ("step", ["step", "--periods", "2"], "--seed", SEED),
    ("identify", ["identify", "--joint", "1", "--seconds", "0.001"], "--seconds", POSITIVE),
    ("identify", ["identify", "--joint", "1", "--seconds", "0.001"], "--alpha", POSITIVE),
    ("identify", ["identify", "--joint", "1", "--seconds", "0.001"], "--amplitude", POSITIVE),
    ("identify", ["identify", "--joint", "1", "--seconds", "0.001"], "--seed", SEED),
    ("identify", ["identify", "--seconds", "0.001"], "--joint", COUNT),
    ("analyze", ["analyze", "position-loop"], "--q", POSITIVE),
    ("analyze", ["analyze", "limit-cycle", "--seconds", "6"], "--load-torque", SIGNED),
    ("analyze", ["analyze", "limit-cycle", "--seconds", "6"], "--zero-offset", SIGNED),
    ("analyze", ["analyze", "limit-cycle", "--seconds", "6"], "--kick", [*SIGNED,
                                                                             NOT_WHOLE]),
    ("analyze", ["analyze", "limit-cycle", "--seconds", "6"], "--seconds", POSITIVE),
    ("analyze", ["analyze", "limit-cycle", "--seconds", "6"], "--seed", SEED),
    ("bench", ["bench", "board"], "--seconds", POSITIVE),
    ("bench", ["bench", "run"], "--seconds", POSITIVE),
    ("bench", ["bench", "bus"], "--frames", COUNT),
    ("budget", ["budget", "--cpu"], "--ticks", COUNT),
    ("record", ["record", "--out", "fuzz.traj", "--duration", "0.01"], "--duration", POSITIVE),
    ("record", ["record", "--out", "fuzz.traj", "--duration", "0.01"], "--every", POSITIVE),
    ("record", ["record", "--out", "fuzz.traj", "--duration", "0.01"], "--torque", POSITIVE),
    ("record", ["record", "--out", "fuzz.traj", "--duration", "0.01"], "--seed", SEED),
    ("node", ["node", "time-trigger", "--duration", "0.01"], "--seed", SEED),
    ("node", ["node", "time-trigger", "--duration", "0.01"], "--duration", POSITIVE),
    ("remote-server", ["remote-server"], "--port", [HUGE, NEGATIVE, NOT_WHOLE]),
    ("log", ["log", "record", "--out", "fuzz.blf"], "--duration", POSITIVE),
]


@pytest.mark.parametrize(("command", "base", "option", "kinds"), CASES,
                         ids=[f"{c[0]} {c[2]}" for c in CASES])
def test_bad_numbers_are_refused(command: str, base: list[str], option: str,
                                 kinds: list[st.SearchStrategy[str]]) -> None:
    special = [v for v in SPECIAL if not (kinds is JOINT_LIST and v == "1,2")]

    @settings(max_examples=30, deadline=None, database=None)
    @given(st.one_of(st.sampled_from(special), *kinds))
    def check(value: str) -> None:
        TRIED[command] += 1
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main([*base, f"{option}={value}"])
        assert status == 2, f"{option}={value!r} was accepted: {out.getvalue()[:300]}"
        text = err.getvalue()
        assert text.startswith("error: ") and text.count("\n") == 1, text
        assert "Traceback" not in text and option in text, text

    check()


def test_zz_bad_inputs_tried_per_command() -> None:
    if not TRIED:
        pytest.skip("run with the tests above")
    print("\nbad inputs tried per command:")
    for command, n in sorted(TRIED.items()):
        print(f"  {command:<14} {n:>5}")
    print(f"  {'total':<14} {sum(TRIED.values()):>5}")
    options = Counter(c[0] for c in CASES)
    assert set(TRIED) == set(options)
    assert all(TRIED[c] >= 10 * n for c, n in options.items())
