"""The limit-cycle plot: position, current reference, measured and true winding current; the
legends beside the axes, where they hide no data."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from servobus.analysis.hold_states import WINDOW_S
from servobus.presets.board import DEFAULT_BOARD
from servobus.robot.limit_cycle import HoldConfig, HoldTrace, tuning_label
from servobus.robot.plots import legend_outside, save


def plot_hold(trace: HoldTrace, states: list[str], cfg: HoldConfig, path: str,
              seconds: float = 0.4) -> None:
    """`hold_figure` to a PNG file."""
    save(hold_figure(trace, states, cfg, seconds), path)


def hold_figure(trace: HoldTrace, states: list[str], cfg: HoldConfig,
                seconds: float = 0.4) -> Figure:
    """`seconds` of the hold from the start of its first window that is not at rest (else its
    end): per tick the position and reference, per PWM period the current reference, the
    decimated measured current and the true winding current; titled with the command, the
    seed and the hold's options."""
    settle_s = cfg.settle_s
    f = trace.joint.f
    ticks = round(seconds * f)
    moving = [k for k, s in enumerate(states) if s != "rest"]
    start = (round((settle_s + moving[0] * WINDOW_S) * f) if moving
             else len(trace.position) - ticks)
    per = trace.joint.per_tick
    pwm = slice(start * per, (start + ticks) * per)
    t0 = start / f
    t_tick = (start + np.arange(ticks)) / f
    t_pwm = t0 + np.arange(ticks * per) / DEFAULT_BOARD.pwm_hz
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(10, 6), layout="constrained")
    top.step(t_tick, trace.position[start:start + ticks], where="post", label="reported position")
    top.axhline(trace.reference, color="k", lw=0.8, ls="--", label="reference")
    top.set_ylabel("position (LSB)")
    bottom.step(t_pwm, trace.fine_iw_a[pwm], where="post", color="k", lw=1, label="reference i_w")
    bottom.step(t_pwm, trace.fine_measured_a[pwm], where="post", label="measured (moving sum / 12)")
    bottom.plot(t_pwm, trace.fine_true_a[pwm], alpha=0.7,
                label="true winding current (period mean)")
    bottom.set_ylabel("current (A)")
    bottom.set_xlabel("time in the hold (s)")
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
        legend_outside(ax)
    title = (f"{trace.joint.name} held still: servobus analyze limit-cycle, {cfg.seconds:g} s "
             f"simulated, seed {cfg.seed}\n{cfg.mode}, {trace.joint.options.sensing}, "
             f"{tuning_label(trace.joint)}"
             f"{'' if cfg.integral else ', no I'}, load {cfg.load_torque:g} N m, kick "
             f"{cfg.kick_lsb} LSB")
    fig.suptitle(title, fontsize=10)
    return fig
