"""Each servo preset's published figures beside the same figures measured on the emulated board
(``servo_runs``; where a source gives a model and no recording, against that model integrated
on its own, ``servo_model``), behind `servobus preset check` and docs/presets.md's table.

A source's figure keeps the digits it was printed with: its tolerance is half a unit of the
last printed digit (2.30 pi: +-0.005 pi), unless a figure states its own (printed "+- x": a
product's, or an identified model's whose precision the experiment sets), and a figure
"agrees" when the emulator's value is within it (for a bound, "<= 1 LSB", when it is at most
the bound).  Figures the emulator does
not reproduce stay in the table with agrees "no" and a note on the cause.

``CHECKS`` maps a preset's name to the functions that measure its figures, each taking the
preset and returning rows: another module's rows are one more function in its tuple.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from servobus.analysis.servo_model import model_step
from servobus.analysis.servo_runs import (
    at_supply,
    duty_step,
    first_order_fit,
    locked_current,
    position_step,
    reading_spread,
)
from servobus.presets.board import DEFAULT_BOARD
from servobus.presets.firmware_image import Q12_AMP
from servobus.presets.servos import AX12, HSR_5995TG, NXT, SERVOS, SG90, ServoPreset

AX12_L_A = 5e-3  # H, Lima et al.'s armature inductance (not in the preset: its derivation)
STEP_DEG = 90.0  # the AX-12 paper's step, 0 -> 90 deg; the SG90's P step the same (chosen)
AX12_STEP_S = 1.0  # the step's window (the paper's is not given): overshoot and settling
SG90_STEP_S = 0.4
NXT_RUN_PERIODS = 2000  # 0.1 s: 40 of the NXT's mechanical time constants
RUN_PERIODS = 4000  # 0.2 s: 14 of the HSR-5995TG's, 10 of the AX-12's


@dataclass(frozen=True)
class Figure:
    """One published figure and the emulator's."""

    name: str
    unit: str
    measured: float
    cite: str
    printed: str | None = None  # the source's figure as printed; None: nothing published
    value: float | None = None  # its value when it is not the printed text itself
    tolerance: float | None = None  # its precision when not the printed text's
    bound: bool = False  # the source gives an upper bound
    note: str = ""

    @property
    def source_value(self) -> float | None:
        """The source's figure as a number."""
        if self.value is not None or self.printed is None:
            return self.value
        return float(self.printed)

    @property
    def precision(self) -> float | None:
        """Half a unit of the printed figure's last digit."""
        if self.tolerance is not None or self.printed is None:
            return self.tolerance
        return half_digit(self.printed)

    @property
    def agrees(self) -> bool | None:
        """Within the printed precision (at most the bound); None with nothing published."""
        source, precision = self.source_value, self.precision
        if source is None or precision is None:
            return None
        if self.bound:
            return self.measured <= source
        return abs(self.measured - source) <= precision

    @property
    def ratio(self) -> float | None:
        """The emulator's figure over the source's."""
        source = self.source_value
        return None if not source else self.measured / source


def half_digit(printed: str) -> float:
    """Half a unit of the last digit of a number as printed: "2.30" -> 0.005, "59" -> 0.5."""
    decimals = len(printed.partition(".")[2])
    return 0.5 * 10.0 ** -decimals


def hsr_figures(servo: ServoPreset) -> list[Figure]:
    """SPEC 3: the thesis' full-duty step fit, locked rotor, no-load current, pot noise."""
    run = duty_step(servo, 1.0, RUN_PERIODS)
    b1, tau = first_order_fit(run)
    stall = locked_current(servo, 1.0)
    cite = "thesis (SPEC 3)"
    return [
        Figure("static velocity gain (full-duty step, fit b1 / duty)", "pi rad/s", b1 / math.pi,
               cite, "2.30",
               note=f"the preset's Coulomb friction {servo.coulomb} N m (SPEC 3: 'small, e.g.') "
                    f"takes {servo.coulomb / servo.damping:.3f} rad/s; without it "
                    f"{servo.kt * servo.supply_v / servo.r_a / servo.damping / math.pi:.4g} pi"),
        Figure("mechanical time constant (the same fit)", "ms", tau * 1e3, cite, "14.3"),
        Figure("stall torque (locked rotor, full duty: K_t x current)", "N m",
               servo.kt * stall, cite, "2.4", note="about 2.4"),
        Figure("no-load current (full duty)", "A", run.tail_mean(run.current), cite, "0.4",
               note="about 0.4"),
        Figure("position noise at rest (reading - median)", "LSB",
               float(reading_spread(servo)), cite, "1", bound=True, note="<= +-1 LSB"),
    ]


def step_difference(servo: ServoPreset, seconds: float, inductance: float = 0.0
                    ) -> tuple[float, float]:
    """The mean quadratic difference (deg^2) between the emulated board's position step,
    0 -> STEP_DEG, and the source's model's, with and without `inductance`."""
    run = position_step(servo, math.radians(STEP_DEG), seconds)
    with_l = model_step(servo, math.radians(STEP_DEG), run.t, inductance)
    without = model_step(servo, math.radians(STEP_DEG), run.t) if inductance else with_l
    return (float(np.mean(np.degrees(run.theta - with_l) ** 2)),
            float(np.mean(np.degrees(run.theta - without) ** 2)))


def ax12_figures(servo: ServoPreset) -> list[Figure]:
    """SPEC 6.1: the step against the paper's model; the datasheet's speed and torque."""
    with_l, without = step_difference(servo, AX12_STEP_S, AX12_L_A)
    speed = duty_step(servo, 1.0, RUN_PERIODS)
    step = f"0 -> {STEP_DEG:g} deg step, {AX12_STEP_S:g} s"
    return [
        Figure(f"{step}: mean quadratic difference from the paper's model (L_a = 5 mH)",
               "deg^2", with_l, "Lima et al. (SPEC 6.1)", "0.66", bound=True,
               note="the paper's 0.66: its model against the real servo"),
        Figure(f"{step}: the same without L_a (the emulator's plant omits it)", "deg^2",
               without, "-"),
        Figure("no-load speed at 12 V (full duty)", "rpm",
               speed.tail_mean(speed.omega) * 60.0 / (2.0 * math.pi), "AX-12 datasheet", "59",
               note="the paper's K_s x 254, R_a and B_v give 6.7 rad/s (preset derivation)"),
        Figure("stall torque at 12 V (locked rotor, full duty)", "N m",
               servo.kt * locked_current(servo, 1.0), "AX-12 datasheet", "1.5",
               note="the model's K V / R_a; no torque limit in the preset"),
    ]


def _deg_per_ms(rad_per_s: float) -> float:
    """rad/s as deg/ms (the SG90's datasheet unit)."""
    return math.degrees(rad_per_s) / 1e3


def sg90_figures(servo: ServoPreset) -> list[Figure]:
    """SPEC 6.3: the article's model's no-load speed and stall at 5 and 6 V; its P step."""
    six = at_supply(servo, 6.0)
    free5, free6 = duty_step(servo, 1.0, RUN_PERIODS), duty_step(six, 1.0, RUN_PERIODS)
    stall5, stall6 = locked_current(servo, 1.0), locked_current(six, 1.0)
    speed5, speed6 = (_deg_per_ms(r.tail_mean(r.omega)) for r in (free5, free6))
    model = "the article's model (SPEC 6.3)"
    sheet = "SG90 datasheet (the article)"
    step, _ = step_difference(servo, SG90_STEP_S)
    return [
        Figure("no-load speed at 5 V (full duty)", "deg/ms", speed5, model, "0.68"),
        Figure("no-load speed at 6 V (full duty)", "deg/ms", speed6, model, "0.81"),
        Figure("no-load speed at 6 V, datasheet", "deg/ms", speed6, sheet, "0.66",
               note="k_e = k_t: the preset reproduces the article's model, not this"),
        Figure("stall torque at 6 V (locked rotor)", "N m", six.kt * stall6, sheet, "0.15"),
        Figure("stall torque at 5 V (locked rotor)", "N m", servo.kt * stall5,
               "0.15 x 5/6 (the model at 5 V)", "0.125"),
        Figure("stall current at 6 V (locked rotor)", "A", stall6, sheet, "0.6"),
        Figure("no-load current at 6 V (full duty)", "A", free6.tail_mean(free6.current), sheet,
               "0.2", note="the article's fitted b at the model's no-load speed"),
        Figure(f"P step 0 -> {STEP_DEG:g} deg, {SG90_STEP_S:g} s: mean quadratic difference "
               "from the article's model", "deg^2", step, "-"),
    ]


def sg90_mujoco_figures(servo: ServoPreset) -> list[Figure]:
    """The article's MuJoCo model and the emulator's plant on the same 0 -> 90 deg P step, each
    against RK4 and within its own integration bound (analysis/sg90_compare.py); without the
    `mujoco` extra the row says so."""
    from servobus.analysis.sg90_compare import compare_step
    from servobus.analysis.sg90_mujoco import MujocoUnavailable

    cite = "integration bound (docs/presets.md, SG90 in MuJoCo)"
    try:
        runs = compare_step()
    except MujocoUnavailable as exc:
        return [Figure("P step 0 -> 90 deg in MuJoCo", "mrad", math.nan, cite, note=str(exc))]
    mujoco, emulator = runs["mujoco"], runs["emulator"]
    return [
        Figure(f"P step 0 -> 90 deg in MuJoCo (h = {mujoco['timestep_s']:g} s): max |theta "
               "- RK4|", "mrad", 1e3 * mujoco["max_abs_rad"], cite,
               "w_nl h", 1e3 * mujoco["bound_rad"], bound=True),
        Figure(f"P step 0 -> 90 deg on the emulator's plant ({emulator['pwm_hz']} Hz PWM, no "
               "dead time): max |theta - RK4|", "mrad", 1e3 * emulator["max_abs_rad"], cite,
               "w_nl T", 1e3 * emulator["bound_rad"], bound=True),
    ]


def nxt_figures(servo: ServoPreset) -> list[Figure]:
    """SPEC 6.2: the steady speed at Table 2's voltages beside Table 3's DC gains x V.  The
    paper's voltages are the motor's mean terminal voltages, so the duty is the one whose mean
    terminal voltage, the bridge's dead time included, is each (``nxt_steps.level_duty``)."""
    from servobus.analysis.nxt_steps import level_duty, q12_duty
    from servobus.presets.nxt import LEVEL_VOLTS, PAPER_MODELS

    figures = []
    for level, volts in LEVEL_VOLTS.items():
        counts = level_duty(servo, DEFAULT_BOARD, volts)
        run = duty_step(servo, q12_duty(counts, DEFAULT_BOARD) / Q12_AMP, NXT_RUN_PERIODS)
        paper = PAPER_MODELS.get(level)
        gain = f"{paper.gain:.3f}" if paper else None  # as the paper's models print it
        source = float(gain) * volts if gain else None
        precision = (half_digit(gain) * volts + float(gain) * half_digit(f"{volts:.2f}")
                     if gain else None)
        figures.append(Figure(
            f"steady speed at {volts:.2f} V (power level {level})", "rad/s",
            run.mean_speed(), "Pinto & Bermudez Tables 2, 3" if gain else "-",
            f"{gain} x {volts:.2f}" if gain else None, source, precision))
    return figures


def nxt_identification_figures(servo: ServoPreset) -> list[Figure]:
    """SPEC 6.2's Table 3 repeated (``nxt_steps``: power-level steps, the brick's tachometer,
    the paper's output-error fit): each model's DC gain within 0.15 % (its b printed to four
    digits, the preset's straight line through the three gains) and time constant within 10 %
    (it rests on the first sample's whole counts; docs/presets.md, NXT)."""
    from servobus.analysis.nxt_steps import identify_level
    from servobus.presets.nxt import PAPER_MODELS

    cite = "Pinto & Bermudez Table 3"
    figures = []
    for level, paper in PAPER_MODELS.items():
        model, _ = identify_level(level)
        printed = f"{paper.s_num:g}/(s + {paper.s_den:g})"
        figures += [
            Figure(f"identified DC gain, power level {level} (Ts {paper.ts_s:g} s)",
                   "(rad/s)/V", model.gain, cite, printed, paper.gain, 1.5e-3 * paper.gain),
            Figure(f"identified time constant, power level {level} (Ts {paper.ts_s:g} s)",
                   "ms", 1e3 * model.tau_s, cite, printed, 1e3 * paper.tau_s,
                   0.1e3 * paper.tau_s, note="-Ts / ln|f|: the emulator's f < 0 (a pole > 0), the "
                   "paper's f > 0 (docs/presets.md, NXT)")]
    return figures


CHECKS: dict[str, tuple[Callable[[ServoPreset], list[Figure]], ...]] = {
    HSR_5995TG.name: (hsr_figures,),
    AX12.name: (ax12_figures,),
    NXT.name: (nxt_figures, nxt_identification_figures),
    SG90.name: (sg90_figures, sg90_mujoco_figures),
}


def check(name: str) -> list[Figure]:
    """Every figure of the preset `name`, measured now."""
    if name not in SERVOS:
        raise ValueError(f"unknown preset {name!r}; presets: {', '.join(SERVOS)}")
    return [f for measure in CHECKS[name] for f in measure(SERVOS[name])]


def _fmt(value: float | None, digits: int = 4) -> str:
    """A number to `digits` significant digits; "-" for none."""
    return "-" if value is None else f"{value:.{digits}g}"


def row(figure: Figure) -> dict[str, str]:
    """A figure as the table's cells."""
    agrees = {None: "-", True: "yes", False: "no"}[figure.agrees]
    printed = figure.printed or "-"
    if figure.value is not None:
        printed = f"{printed} = {_fmt(figure.value)}"
    if figure.tolerance is not None:
        printed = f"{printed} +- {_fmt(figure.tolerance, 2)}"
    if figure.bound and figure.printed:
        printed = f"<= {printed}"
    return {"figure": figure.name, "unit": figure.unit, "source": printed,
            "emulator": _fmt(figure.measured), "ratio": _fmt(figure.ratio), "agrees": agrees,
            "cited": figure.cite, "note": figure.note}


def as_json(figure: Figure) -> dict[str, object]:
    """A figure with its numbers unformatted."""
    measured = None if math.isnan(figure.measured) else figure.measured  # not run: null
    return {"figure": figure.name, "unit": figure.unit, "source_printed": figure.printed,
            "source_value": figure.source_value, "precision": figure.precision,
            "bound": figure.bound, "emulator": measured, "ratio": figure.ratio,
            "agrees": figure.agrees, "cited": figure.cite, "note": figure.note}


def markdown(checks: dict[str, list[Figure]]) -> str:
    """Presets' figures (name -> ``check(name)``) as one Markdown table, docs/presets.md's."""
    lines = ["| preset | figure | unit | source | emulator | ratio | agrees | cited | note |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, figures in checks.items():
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in [name, *row(f).values()])
                  + " |" for f in figures]  # a cell's own | (|theta|) escaped
    return "\n".join(lines) + "\n"
