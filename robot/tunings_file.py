"""Regenerate the identified block of host/tunings.py (`servobus identify --write-tunings`):
the default robot's P(z) and the tuning designed from it are the output of a command, never
pasted numbers."""

from pathlib import Path

from servobus.host import tunings
from servobus.host.position_loop import PositionPlant, design
from servobus.host.tunings import DESIGN_OVERSHOOT_PCT, Tuning
from servobus.presets.board import DEFAULT_BOARD

BEGIN = "# BEGIN GENERATED"
END = "# END GENERATED"


def designed_for(kp: float, q: float) -> tuple[Tuning, bool]:
    """`designed`: the SPEC's design rule on P(z) with gain kp and pole q at the bus rate."""
    plant = PositionPlant(kp, q, float(DEFAULT_BOARD.can_hz))
    return design(plant, DESIGN_OVERSHOOT_PCT, name="designed")


def render(result: dict) -> str:
    """The generated block's body (Python source) for an `identify` result."""
    tuning, met = designed_for(result["kp"], result["q"])
    settings = "".join(f"    {k!r}: {v!r},\n" for k, v in result["settings"].items())
    se = result["std_error"]
    return (f"IDENTIFICATION = {{\n{settings}}}\n"
            f"DEFAULT_ROBOT_KP = {result['kp']!r}\n"
            f"DEFAULT_ROBOT_KP_SE = {se['kp']!r}\n"
            f"DEFAULT_ROBOT_Q = {result['q']!r}\n"
            f"DEFAULT_ROBOT_Q_SE = {se['q']!r}\n"
            f"DESIGNED = Tuning(\"designed\", omega_d={tuning.omega_d!r},\n"
            f"                  omega_i={tuning.omega_i!r}, k_kp={tuning.k_kp!r})\n"
            f"DESIGN_MET = {met!r}  # whether `designed` reaches DESIGN_OVERSHOOT_PCT\n")


def write_tunings(result: dict, path: Path | None = None) -> str:
    """Replace the generated block of host/tunings.py (or `path`) by `render(result)`."""
    target = path or Path(tunings.__file__)
    text = target.read_text()
    head, sep, rest = text.partition(BEGIN)
    line, nl, rest = rest.partition("\n")
    _, end, tail = rest.partition(END)
    if not (sep and nl and end):
        raise ValueError(f"{target}: no '{BEGIN}' ... '{END}' block to regenerate")
    target.write_text(head + sep + line + nl + render(result) + end + tail)
    return str(target)
