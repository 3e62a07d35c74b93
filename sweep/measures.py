"""Metrics a sweep computes from a finished Robot beyond its report: the oscillation after a
step (stability by running), fault detection against the injected silence, bus-off events.

Stability (docs/decisions.md, "Sweeps"): after the step, the tracking error's peak-to-peak over
the last ``window`` seconds of the run, worst joint; unstable when it exceeds
``threshold_lsb`` while ``growth`` (that peak-to-peak over the one of the window just before
it) is at least ``min_growth``: an oscillation that grows, or is sustained (held by the current
limit or undamped), not one still decaying.  The limit cycle at rest is about ±1 LSB, so the
default 8 LSB is well above it.
"""

from typing import Any

import numpy as np

from servobus.bus.scheduler import NS_PER_S

# every [measure] key of a sweep file and its default (spec.parse merges the file's on top)
MEASURE_DEFAULTS: dict[str, Any] = {
    "window_s": 1.0, "threshold_lsb": 8.0, "min_growth": 0.9,  # oscillation
    "joint": 5, "at_s": 0.5,  # the silenced joint and when (fault axes, fault_detection)
    "value": "max_tracking_rms_lsb",  # the heat map's column
}
# the derived metrics (computed from the finished robot, not read from its report): columns
DERIVED: dict[str, tuple[str, ...]] = {
    "oscillation": ("osc_ptp_lsb", "osc_growth", "stable"),
    "fault_detection": ("injected_periods", "detected_periods", "false_alarm_periods",
                        "detected", "recovery_s"),
    "bus_off_events": ("bus_off_events",), "servo_faults_total": ("servo_faults_total",)}


def oscillation(robot: Any, measure: dict[str, Any]) -> dict[str, Any]:
    """Peak-to-peak error (LSB, worst joint) in the last window, its growth, and `stable`."""
    m = {**MEASURE_DEFAULTS, **measure}
    window = float(m["window_s"])
    records = list(robot.host.records)
    t = np.array([r.tick_ns for r in records], dtype=float) / NS_PER_S
    err = np.array([r.reference - r.measured for r in records])
    end = t[-1]
    last = t > end - window
    before = (t > end - 2 * window) & ~last
    if end - t[0] < 2 * window:
        raise ValueError(f"oscillation: the run is shorter than two windows of {window} s")
    ptp_last = float(np.ptp(err[last], axis=0).max())
    ptp_before = float(np.ptp(err[before], axis=0).max())
    growth = ptp_last / ptp_before if ptp_before > 0 else 1.0
    return {"osc_ptp_lsb": ptp_last, "osc_growth": growth,
            "stable": not unstable(ptp_last, growth, m)}


def unstable(ptp_lsb: float, growth: float, measure: dict[str, Any]) -> bool:
    """The stability rule (module docstring): an oscillation above ``threshold_lsb`` that grows
    or is sustained (``growth`` >= ``min_growth``); the table's `stable` and the plot use it."""
    m = {**MEASURE_DEFAULTS, **measure}
    return ptp_lsb > float(m["threshold_lsb"]) and growth >= float(m["min_growth"])


def unstable_rule(measure: dict[str, Any]) -> str:
    """`unstable` in words, with the sweep's numbers (the plot's label)."""
    m = {**MEASURE_DEFAULTS, **measure}
    return (f"unstable: peak-to-peak > {float(m['threshold_lsb']):g} LSB "
            f"and growth >= {float(m['min_growth']):g}")


def fault_detection(robot: Any, measure: dict[str, Any], silence_ms: float) -> dict[str, Any]:
    """Servo-fault periods of the silenced joint inside its silence (detected) against the
    periods it was silent (injected); fault periods anywhere else are false alarms; recovery
    is the time from the silence's end to the last fault period of that joint, plus one."""
    m = {**MEASURE_DEFAULTS, **measure}
    joint, at = int(m["joint"]), float(m["at_s"])
    sup = robot.host.supervisor
    if sup.fault_period_count > len(sup.fault_periods):
        raise ValueError("fault_detection: more fault periods than the supervisor lists")
    period = robot.schema.tick_period_ns / NS_PER_S
    start, stop = at, at + silence_ms / 1000.0
    injected = round((stop - start) / period)
    detected = false_alarms = 0
    last_fault = None
    for k, joints in sup.fault_periods:
        when = k * period
        inside = start - period <= when < stop + period
        for j in joints:
            if j == joint and inside:
                detected += 1
                last_fault = when
            else:
                false_alarms += 1
    recovery = (last_fault + period - stop) if last_fault is not None and injected else 0.0
    return {"injected_periods": injected, "detected_periods": detected,
            "false_alarm_periods": false_alarms,
            "detected": bool(injected) and detected > 0,
            "recovery_s": round(max(recovery, 0.0), 6)}


def bus_off_events(robot: Any) -> int:
    """Bus-off entries of every controller (the period engine models no error counters: 0)."""
    medium = robot.medium
    return 0 if medium is None else sum(c.counters.bus_off_events for c in medium.controllers)
