"""What each shipped kind of sweep concludes from its rows: alpha_max by running next to the linear
one, the tuning map's best and worst cells, the fault campaign's detection table."""

from collections import defaultdict
from typing import Any

from servobus.sweep.task import finished

Rows = list[dict[str, Any]]


def linear_alpha_max(tuning_name: str) -> dict[str, float]:
    """`servobus analyze position-loop`'s alpha_max (thesis q) and the same for the identified q
    the robot's gains are computed from."""
    from servobus.host.position_loop import PositionPlant, alpha_max
    from servobus.host.tunings import DEFAULT_ROBOT_Q, THESIS_Q, TUNINGS
    from servobus.presets.board import DEFAULT_BOARD

    out = {}
    for label, q in (("thesis_q", THESIS_Q), ("identified_q", DEFAULT_ROBOT_Q)):
        plant = PositionPlant(1.0, q, float(DEFAULT_BOARD.can_hz))
        out[label] = alpha_max(plant, TUNINGS[tuning_name].gains(plant.kp, plant.f))
    return out


def alpha_scan(rows: Rows) -> dict[str, Any]:
    """Per tuning: the last stable alpha below the first unstable one (None: none found), and
    the linear alpha_max."""
    result: dict[str, Any] = {}
    for name in sorted({r["tuning"] for r in rows}):
        scan = sorted((r for r in finished(rows) if r["tuning"] == name), key=lambda r: r["alpha"])
        first_bad = next((r["alpha"] for r in scan if not r["stable"]), None)
        stable = [r["alpha"] for r in scan if r["stable"]
                  and (first_bad is None or r["alpha"] < first_bad)]
        linear = linear_alpha_max(name)
        result[name] = {
            "alpha_max_running": max(stable) if stable else None,
            "first_unstable_alpha": first_bad,
            "alpha_max_linear": linear["thesis_q"],
            "alpha_max_linear_identified_q": linear["identified_q"]}
    return result


def heatmap(rows: Rows, value: str) -> dict[str, Any]:
    """The best and worst cell of the map by `value`."""
    good = [r for r in finished(rows) if r.get(value) is not None]
    if not good:
        return {}
    best, worst = min(good, key=lambda r: r[value]), max(good, key=lambda r: r[value])
    keep = ("omega_d", "omega_i", value, "current_limit_events")
    return {"best": {k: best.get(k) for k in keep}, "worst": {k: worst.get(k) for k in keep}}


def fault_campaign(rows: Rows) -> list[dict[str, Any]]:
    """Per (corrupt rate, silence): runs, detection rate of the silences, detected / injected
    periods, false-alarm periods, slips, deadline misses, bus-off per run, mean recovery (None
    where a figure does not apply: no silence injected)."""
    groups: dict[tuple[float, float], Rows] = defaultdict(list)
    for r in finished(rows):
        groups[(float(r.get("corrupt_rate", 0.0)), float(r.get("silence_ms", 0.0)))].append(r)
    table = []
    for (rate, silence), group in sorted(groups.items()):
        n = len(group)
        injected = sum(r["injected_periods"] for r in group)
        table.append({
            "corrupt_rate": rate, "silence_ms": silence, "runs": n,
            "detection_rate": (sum(bool(r["detected"]) for r in group) / n
                               if silence > 0 else None),
            "detected_per_injected": (sum(r["detected_periods"] for r in group) / injected
                                      if injected else None),
            "false_alarms_per_run": sum(r["false_alarm_periods"] for r in group) / n,
            "runs_with_false_alarm": sum(r["false_alarm_periods"] > 0 for r in group),
            "slips_per_run": sum(r.get("slips", 0) for r in group) / n,
            "deadline_misses_per_run": sum(r.get("deadline_misses", 0) for r in group) / n,
            "bus_off_per_run": sum(r.get("bus_off_events", 0) for r in group) / n,
            "recovery_s_mean": (sum(r["recovery_s"] for r in group) / n
                                if silence > 0 else None)})
    return table


def summarise(kind: str, rows: Rows, measure: dict[str, Any]) -> Any:
    """The conclusion of a sweep of plot kind `kind` (None for other kinds)."""
    if kind == "alpha-scan":
        return alpha_scan(rows)
    if kind == "heatmap":
        return heatmap(rows, str(measure["value"]))
    if kind == "fault-campaign":
        return fault_campaign(rows)
    return None
