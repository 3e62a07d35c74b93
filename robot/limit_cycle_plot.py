"""The limit-cycle plot: position, current reference, measured and true winding current."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from servobus.analysis.hold_states import WINDOW_S
from servobus.presets.board import DEFAULT_BOARD
from servobus.robot.limit_cycle import HoldTrace


def plot_hold(trace: HoldTrace, states: list[str], settle_s: float, path: str, title: str,
              seconds: float = 0.4) -> None:
    """`seconds` of the hold from the start of its first window that is not at rest (else its
    end): per tick the position and reference, per PWM period the current reference, the
    decimated measured current and the true winding current."""
    f = float(DEFAULT_BOARD.can_hz)
    ticks = round(seconds * f)
    moving = [k for k, s in enumerate(states) if s != "rest"]
    start = (round((settle_s + moving[0] * WINDOW_S) * f) if moving
             else len(trace.position) - ticks)
    per = DEFAULT_BOARD.periods_per_tick
    pwm = slice(start * per, (start + ticks) * per)
    t0 = start / f
    t_tick = (start + np.arange(ticks)) / f
    t_pwm = t0 + np.arange(ticks * per) / DEFAULT_BOARD.pwm_hz
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    top.step(t_tick, trace.position[start:start + ticks], where="post", label="reported position")
    top.axhline(trace.reference, color="k", lw=0.8, ls="--", label="reference")
    top.set_ylabel("position (LSB)")
    top.legend(loc="upper right")
    bottom.step(t_pwm, trace.fine_iw_a[pwm], where="post", color="k", lw=1, label="reference i_w")
    bottom.step(t_pwm, trace.fine_measured_a[pwm], where="post", label="measured (moving sum / 12)")
    bottom.plot(t_pwm, trace.fine_true_a[pwm], alpha=0.7,
                label="true winding current (period mean)")
    bottom.set_ylabel("current (A)")
    bottom.set_xlabel("time in the hold (s)")
    bottom.legend(loc="upper right", fontsize=8)
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
    top.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
