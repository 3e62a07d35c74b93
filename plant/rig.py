"""One servo board on its hardware: the firmware interrupts interleaved with the plant.

Per PWM period k (T = 3000 PCLK counts):

    kT: PWM peripheral latches the shadow duty; ADC sample at kT (the RC filter's state at the
        period boundary); PWM interrupt (encoder, pot, thermometer, PI on the moving sum that
        ends with that sample: the thesis' timing, PlantOptions.adc_window "ends-at-edge")
    the shaft advanced over the period's switching segments (mean winding current per segment)
    kT + j*500 (j = 1..5): the RC filter advanced to the sample, driven by those currents; ADC
    interrupt; then the filter to (k+1)T; thermal model; trace row

With adc_window "previous-period" the PWM interrupt runs before the sample at kT is taken, so
the PI reads the samples of periods k-2 and k-1 (T/6 more latency).

``run_periods`` is one plain function.  The fast path compiles it with numba and runs many
periods per call; the reference path runs the very same function in CPython one period per
call, so the two must give bit-identical traces (tests check it).  Without a trace,
``BoardRig.run`` runs the lean kernel (``bank_kernel``) and ``BoardRig.drive`` whole sequences
of ticks in one call (``board_drive``): the same results, bit for bit.
"""

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numba.extending import register_jitable

from servobus.firmware import board
from servobus.firmware import memory as m
from servobus.plant import frontend, hbridge, motor, sensors
from servobus.plant import layout as p
from servobus.plant.build import PlantOptions, build_params, build_state, build_tables
from servobus.plant.kernel_cache import cached_njit
from servobus.presets.board import DEFAULT_BOARD, BoardHardware
from servobus.presets.firmware_image import Q12_AMP, build_rom, current_loop_design
from servobus.presets.servos import HSR_5995TG, ServoPreset

# trace columns
TI_IREF, TI_MEAS, TI_DUTY, TI_STATUS, TI_ENC, TI_POS = range(6)
TF_I_WINDING, TF_THETA, TF_OMEGA, TF_VC, TF_TEMP = range(5)
N_TI, N_TF = 6, 5


@register_jitable
def _filter_to(target, t, seg, ends, sensed, state, tables):
    """Advance the RC filter from t to target through the segments' sensed currents."""
    while t < target:
        end = min(ends[seg], target)
        frontend.rc_update(state, tables, end - t, sensed[seg])
        t = end
        if t == ends[seg]:
            seg += 1
    return t, seg


@register_jitable
def run_periods(ram, rom, params, state, istate, tables, n, trace_i, trace_f, record):
    """Simulate n PWM periods of firmware + plant; rows of the traces when record is set."""
    top = int(params[p.PWM_TOP])
    n_adc = int(params[p.ADC_PER_PWM])
    step = top // n_adc
    ends = np.zeros(hbridge.MAX_SEGMENTS, dtype=np.int64)
    states = np.zeros(hbridge.MAX_SEGMENTS, dtype=np.int64)
    sensed = np.zeros(hbridge.MAX_SEGMENTS)
    first = 1 if params[p.ADC_AT_EDGE] != 0.0 else 0
    for k in range(n):
        duty = ram[m.PWM_SHADOW]
        floating = ram[m.BRIDGE_SHADOW] == m.BRIDGE_FLOAT
        if first:  # conversion of kT ends (~2.4 us) before the controller runs
            board.adc_isr(ram, frontend.adc_code(params, state[p.VC]))
        board.pwm_isr(ram, rom, sensors.pot_code(params, state, istate),
                      sensors.encoder_counter(params, state),
                      sensors.encoder_index(params, state, istate),
                      sensors.thermometer_code(params, state))
        n_seg = hbridge.build_segments(duty, floating, params, ends, states)
        i_sum = 0.0
        i2_sum = 0.0
        start = 0
        for s in range(n_seg):  # the shaft, segment by segment
            counts = ends[s] - start
            i = motor.advance(params, tables, state, states[s], duty, counts)
            sensed[s] = frontend.sensed_current(params, states[s], i)
            i_sum += i * counts
            i2_sum += i * i * counts
            start = ends[s]
        t = 0
        seg = 0
        for j in range(first, n_adc):  # the RC filter to each ADC instant
            t, seg = _filter_to(j * step, t, seg, ends, sensed, state, tables)
            board.adc_isr(ram, frontend.adc_code(params, state[p.VC]))
        t, seg = _filter_to(top, t, seg, ends, sensed, state, tables)
        state[p.I_MEAN] = i_sum / top
        sensors.thermal_update(params, state, i2_sum / top, top / params[p.PCLK_HZ])
        if record:
            trace_i[k, TI_IREF] = ram[m.IW_REF]
            trace_i[k, TI_MEAS] = ram[m.PI_MEAS]
            trace_i[k, TI_DUTY] = duty if not floating else 0
            trace_i[k, TI_STATUS] = ram[m.STATUS]
            trace_i[k, TI_ENC] = ram[m.ENC_POS]
            trace_i[k, TI_POS] = ram[m.POS_OUT]
            trace_f[k, TF_I_WINDING] = state[p.I_MEAN]
            trace_f[k, TF_THETA] = state[p.THETA]
            trace_f[k, TF_OMEGA] = state[p.OMEGA]
            trace_f[k, TF_VC] = state[p.VC]
            trace_f[k, TF_TEMP] = state[p.TEMP_C]


run_periods_fast = cached_njit(run_periods)


@register_jitable
def run_bank(rams, roms, params, states, istates, tables, counts, trace_i, trace_f):
    """Advance each board b of a bank (rows of the 2-D arrays) by counts[b] PWM periods."""
    for b in range(rams.shape[0]):
        if counts[b] > 0:
            run_periods(rams[b], roms[b], params[b], states[b], istates[b], tables[b],
                        counts[b], trace_i, trace_f, False)


run_bank_fast = cached_njit(run_bank)


@dataclass
class Trace:
    """Per-PWM-period record: integer firmware values and float plant values."""

    ints: np.ndarray  # (n, N_TI) int64
    floats: np.ndarray  # (n, N_TF) float64

    def __len__(self) -> int:
        return len(self.ints)


def q12(amps: float) -> int:
    """An ACTUATION frame's reference in amperes as the Q12 value the board stores."""
    return round(amps * Q12_AMP)


class BoardRig:
    """One board's firmware on its simulated hardware; state persists across ``run`` calls."""

    def __init__(self, servo: ServoPreset = HSR_5995TG, hw: BoardHardware = DEFAULT_BOARD,
                 options: PlantOptions | None = None, mode: int = m.MODE_CURRENT) -> None:
        self.servo, self.hw = servo, hw
        self.options = options or PlantOptions()
        self.rom = build_rom(servo, hw, self.options.sensing)
        self.ram = m.new_ram()
        board.reset(self.ram, self.rom, mode)
        self.params = build_params(servo, hw, self.options)
        self.tables = build_tables(servo, hw, self.options)
        self.state, self.istate = build_state(hw, self.options)
        self.counts_per_amp = current_loop_design(servo, hw, self.options.sensing).counts_per_amp
        self.periods = 0

    def actuate(self, amps: float) -> None:
        """An ACTUATION frame's reference for this board (A, or duty in duty mode)."""
        board.can_actuation(self.ram, q12(amps))

    def command_current(self, amps: float) -> None:
        """Deliver a current reference as the bus would: actuation, then the next tick."""
        self.actuate(amps)
        board.can_tick(self.ram, self.rom)

    def drive(self, amps_per_tick: Iterable[float]) -> None:
        """``command_current(a)`` then ``run(periods_per_tick, record=False)`` for each a, all
        in one compiled call (``board_drive``); the same RAM, state and istate bit for bit."""
        self.drive_q12(np.array([q12(a) for a in amps_per_tick], dtype=np.int64))

    def drive_q12(self, refs: np.ndarray) -> None:
        """``drive`` with the actuation frames' Q12 values (what ``actuate`` writes)."""
        from servobus.plant.board_drive import as_bank, drive_lean

        refs = np.asarray(refs)
        if refs.ndim != 1 or (refs.size and refs.dtype.kind not in "iu"):
            raise ValueError("drive_q12 takes a 1-D array of integer Q12 references")
        drive_lean(*as_bank(self.ram, self.rom, self.params, self.state, self.istate,
                            self.tables),
                   refs.astype(np.int64).reshape(-1, 1), self.hw.periods_per_tick)
        self.periods += len(refs) * self.hw.periods_per_tick

    def run(self, periods: int, record: bool = True, fast: bool = True) -> Trace:
        """Advance `periods` PWM periods; the reference path runs one period per CPython call,
        the fast one without a trace on the lean kernel (``bank_kernel``, the same results)."""
        rows = periods if record else 1
        ints = np.zeros((rows, N_TI), dtype=np.int64)
        floats = np.zeros((rows, N_TF))
        args = (self.ram, self.rom, self.params, self.state, self.istate, self.tables)
        if fast and not record:
            from servobus.plant.bank_kernel import run_bank_lean_fast
            from servobus.plant.board_drive import as_bank

            run_bank_lean_fast(*as_bank(*args),
                               np.array([periods], dtype=np.int64), ints, floats)
        elif fast:
            run_periods_fast(*args, periods, ints, floats, record)
        else:
            for k in range(periods):
                run_periods(*args, 1, ints[k:k + 1] if record else ints,
                            floats[k:k + 1] if record else floats, record)
        self.periods += periods
        return Trace(ints, floats)

    def amps(self, sum_counts: np.ndarray | int) -> np.ndarray:
        """Moving-sum counts of the firmware's current measurement in amperes."""
        return np.asarray(sum_counts) / self.counts_per_amp
