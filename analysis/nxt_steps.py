"""The NXT motor's identification experiment (Pinto & Bermudez, SPEC 6.2) on the emulated board.

The paper steps the motor from rest at a brick power level (Table 2: the level's motor voltage),
measures the output speed as the brick does, as tachometer count differences over the sample
time T_s, and fits a first-order output-error model voltage -> speed (Table 3).  Here the NXT
preset runs on one board in duty mode (``plant.rig.BoardRig``, switching H-bridge, the board's
firmware reading its encoder every PWM period):

* the tachometer: the board's quadrature encoder set to 360 counts per output revolution, 1
  degree per count as the NXT's, unwrapped by the firmware into a 32-bit count (ENC_POS); the
  pot (1 degree per LSB too) saturates after 1,023 degrees, too short a record
* the power level: the integer PWM duty whose mean terminal voltage at the steady speed is the
  level's voltage.  With the bridge's dead time an open segment carries no current and the
  terminals then show the back-EMF e, so the mean current is (V_mean - e) / R_a exactly: the
  motor runs as a DC motor at V_mean.  One duty count is 7.63 V / 3000 = 2.5 mV
* the step: the duty acts from a PWM period boundary, which is sample 0; sample k reads the
  count at k T_s; speed y(k) = (count(k) - count(k-1)) / T_s, y(0) = 0 (at rest)
* the shaft starts ``start_deg`` into its first count (default half a count): at 2 to 65 counts
  per sample the first sample's count, which is all the time constant shows at these sample
  times, depends on it (docs/presets.md, "NXT")
"""

import math
from dataclasses import replace
from typing import Any

import numpy as np

from servobus.analysis.first_order_fit import FirstOrderModel, fit_first_order
from servobus.analysis.nxt_paper import FIT_RANGE_PERCENT, LEVEL_VOLTS, PAPER_MODELS, white_box
from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.plant.build import PlantOptions
from servobus.plant.rig import TI_ENC, BoardRig
from servobus.presets.board import DEFAULT_BOARD, BoardHardware
from servobus.presets.firmware_image import Q12_AMP
from servobus.presets.servos import NXT, ServoPreset

TACHO_COUNTS_PER_REV = 360
DEFAULT_SECONDS = 20.0  # level 1 turns 4,200 counts: one count is 0.024 % of its gain
DEFAULT_START_DEG = 0.5  # half a count: the shaft at rest mid-way between two counts
MIN_SAMPLES = 10
CALL_PERIODS = 20_000  # PWM periods traced per rig call: 1.8 MB of trace however long the run
OTHER_TS_S = 0.1  # sample time at the levels the paper identified no model at


def tachometer_board(servo: ServoPreset = NXT, hw: BoardHardware = DEFAULT_BOARD) -> BoardHardware:
    """The board with the servo's sensor and its encoder as the NXT tachometer: 1 degree per
    count on the output shaft."""
    return replace(servo.sensed_by(hw), encoder_counts_per_motor_rev=TACHO_COUNTS_PER_REV,
                   encoder_gear=1.0)


def level_duty(servo: ServoPreset, hw: BoardHardware, volts: float) -> int:
    """PWM duty counts whose mean terminal voltage at the steady speed is `volts`: V t_drive +
    e 2 t_dead = volts T (edge-aligned PWM, module docstring)."""
    top, dead = hw.pwm_top, hw.dead_counts
    emf = servo.kt * servo.steady_speed(volts)
    drive = (volts * top - 2 * dead * emf) / servo.supply_v
    counts = dead + round(drive)
    if not dead < counts <= top - dead:
        raise ValueError(f"{volts} V needs {counts} duty counts, outside {dead + 1}..{top - dead}"
                         f" on a {servo.supply_v} V supply")
    return counts


def terminal_volts(servo: ServoPreset, hw: BoardHardware, counts: int) -> float:
    """Mean terminal voltage at steady speed with `counts` of duty (the inverse of level_duty,
    up to the duty's one-count resolution)."""
    top, dead, v = hw.pwm_top, hw.dead_counts, servo.supply_v
    # V_mean = (v (counts - dead) + 2 dead K w(V_mean)) / top, w affine in V_mean above friction
    slope = 2 * dead * servo.kt * servo.kt / servo.r_a / servo.damping / top
    offset = 2 * dead * servo.kt * servo.coulomb / servo.damping / top
    return (v * (counts - dead) / top - offset) / (1.0 - slope)


def q12_duty(counts: int, hw: BoardHardware) -> int:
    """The actuation frame's Q12 value that the firmware turns into exactly `counts`
    ((q12 * top) >> 12)."""
    return -(-counts * Q12_AMP // hw.pwm_top)


def step_record(volts: float, ts_s: float, seconds: float, start_deg: float = DEFAULT_START_DEG,
                servo: ServoPreset = NXT) -> tuple[np.ndarray, np.ndarray, int]:
    """The motor stepped from rest to `volts`: input u (V) and measured speed y (rad/s) at
    k T_s, k = 0..seconds / T_s, and the duty counts applied."""
    hw = tachometer_board(servo)
    per_sample = round(ts_s * hw.pwm_hz)
    if abs(per_sample - ts_s * hw.pwm_hz) > 1e-9 * per_sample or per_sample < 1:
        raise ValueError(f"sample time {ts_s} s is not a whole number of {hw.pwm_hz} Hz "
                         "PWM periods")
    if not 0.0 <= start_deg < 1.0:
        raise ValueError(f"--start-deg must be in [0, 1) degree, got {start_deg}")
    n = round(seconds / ts_s)
    if n < MIN_SAMPLES:
        raise ValueError(f"--seconds {seconds} gives {n} samples of {ts_s} s: at least "
                         f"{MIN_SAMPLES} are needed")
    rig = BoardRig(servo, hw, PlantOptions(theta0=math.radians(start_deg)), mode=m.MODE_DUTY)
    counts = level_duty(servo, hw, volts)
    board.can_actuation(rig.ram, q12_duty(counts, hw))
    board.can_tick(rig.ram, rig.rom)
    rig.run(1, record=False)  # period 0 latches the duty; period 1 drives from t = 0
    samples_per_call = max(1, CALL_PERIODS // per_sample)
    readings: list[np.ndarray] = []
    for first in range(0, n + 1, samples_per_call):  # the count read at each period's start
        trace = rig.run(min(samples_per_call, n + 1 - first) * per_sample)
        readings.append(trace.ints[::per_sample, TI_ENC])
    tacho = np.concatenate(readings)
    y = np.concatenate([[0.0], np.diff(tacho) * (2.0 * math.pi / TACHO_COUNTS_PER_REV) / ts_s])
    return np.full(n + 1, volts), y, counts


def sample_time(level: int) -> float:
    """The paper's sample time at a level (0.1 s where it identified no model)."""
    return PAPER_MODELS[level].ts_s if level in PAPER_MODELS else OTHER_TS_S


def identify_level(level: int, seconds: float = DEFAULT_SECONDS,
                   start_deg: float = DEFAULT_START_DEG) -> tuple[FirstOrderModel, int]:
    """The emulator's first-order model at a power level, and the duty counts it ran at."""
    if level not in LEVEL_VOLTS:
        raise ValueError(f"power level {level}: the paper's levels are 1..5")
    ts_s = sample_time(level)
    u, y, counts = step_record(LEVEL_VOLTS[level], ts_s, seconds, start_deg)
    return fit_first_order(u, y, ts_s), counts


def _figures(b: float, f: float, gain: float, tau_s: float) -> dict[str, float]:
    return {"b": b, "f": f, "gain": gain, "tau_ms": tau_s * 1e3}


def identify_levels(levels: list[int], seconds: float = DEFAULT_SECONDS,
                    start_deg: float = DEFAULT_START_DEG) -> dict[str, Any]:
    """Table 3 beside the emulator's models at the given power levels."""
    hw = tachometer_board()
    rows = []
    for level in levels:
        model, counts = identify_level(level, seconds, start_deg)
        row: dict[str, Any] = {
            "level": level, "volts": LEVEL_VOLTS[level], "ts_s": model.ts_s,
            "duty_counts": counts, "terminal_volts": terminal_volts(NXT, hw, counts),
            "emulator": {**_figures(model.b, model.f, model.gain, model.tau_s),
                         "fit_percent": model.fit_percent}}
        paper = PAPER_MODELS.get(level)
        if paper is not None:
            row["paper"] = {**_figures(paper.b, paper.f, paper.gain, paper.tau_s),
                            "fit_percent": FIT_RANGE_PERCENT}
            row["gain_error_percent"] = (model.gain / paper.gain - 1.0) * 100.0
            row["tau_error_percent"] = (model.tau_s / paper.tau_s - 1.0) * 100.0
        rows.append(row)
    winding = NXT.damping - NXT.b  # the back-EMF's share: K^2 / R_a
    conducting = 1.0 - 2.0 * hw.dead_counts / hw.pwm_top  # the open segments carry no current
    return {"preset": NXT.name, "model": "b / (z + f), voltage -> output speed (rad/s)",
            "seconds": seconds, "start_deg": start_deg,
            "tau_true_ms": NXT.j / NXT.damping * 1e3,
            "tau_on_board_ms": NXT.j / (winding * conducting + NXT.b) * 1e3,
            "levels": rows, "white_box": white_box()}
