"""Regenerate the identified block of host/tunings.py, a developer's step after a change to the
plant or firmware: the default robot's P(z) and the tuning designed from it are the output of
the identification, never pasted numbers.

    python -m servobus.robot.tunings_file host/tunings.py

reruns the stored experiment (`IDENTIFICATION`) and rewrites the block of the source file named
(never the installed package's copy: `servobus identify --write-tunings` writes the user's
description instead, robot/joint_tuning.py).
"""

import sys
from pathlib import Path

from servobus.host.position_loop import PositionPlant, design
from servobus.host.tunings import DESIGN_OVERSHOOT_PCT, IDENTIFICATION, Tuning
from servobus.presets.board import DEFAULT_BOARD

BEGIN = "# BEGIN GENERATED"
END = "# END GENERATED"


def designed_for(kp: float, q: float, f: float = DEFAULT_BOARD.can_hz) -> tuple[Tuning, bool]:
    """`designed`: the SPEC's design rule on P(z) with gain kp and pole q at the bus rate f."""
    return design(PositionPlant(kp, q, float(f)), DESIGN_OVERSHOOT_PCT, name="designed")


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


def write_tunings(result: dict, path: Path) -> str:
    """Replace the generated block of `path` (a copy of host/tunings.py) by `render(result)`."""
    text = path.read_text()
    head, sep, rest = text.partition(BEGIN)
    line, nl, rest = rest.partition("\n")
    _, end, tail = rest.partition(END)
    if not (sep and nl and end):
        raise ValueError(f"{path}: no '{BEGIN}' ... '{END}' block to regenerate")
    path.write_text(head + sep + line + nl + render(result) + end + tail)
    return str(path)


if __name__ == "__main__":
    from servobus.robot.identification import Settings, identify_settings

    if len(sys.argv) != 2:
        sys.exit("usage: python -m servobus.robot.tunings_file PATH/TO/host/tunings.py")
    settings = Settings(**IDENTIFICATION)  # type: ignore[arg-type]
    print(write_tunings(identify_settings(settings), Path(sys.argv[1])))
