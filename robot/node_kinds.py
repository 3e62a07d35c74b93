"""The registry of node kinds a robot description file may use: per kind, its node keys, the
options its joints take, how many joints and what ID it has, the messages it sends and those it
must hear (named the way the DBC names them) -- data in one place, read by the loader, the DBC
check and the docs.  A node hears a message when the DBC names it a receiver of one of its
signals: the period engine delivers exactly those, so a DBC that leaves a node deaf to what its
kind needs is refused before anything runs.

A message is a name template and what it ranges over:

    "joint"        each joint of the node             MEAS_{n}: MEAS_3 for the board of joint 3
    "id"           the node's own ID                  FEEDBACK_{n}: FEEDBACK_2 for board 2
    "group"        each actuation group of the host   ACTUATION_{n}: ACTUATION_1 .. ACTUATION_G
    "once"         the name as it is                  TICK, COMMAND, SERVO_STATUS
    "every-joint"  every joint of the robot's boards  STATUS_{n}: STATUS_1 .. STATUS_N (the host)
    "peer:KIND"    the ID of every node of KIND       VEL_SP_{n} for each hp-board
    "fours:KIND"   each four of KIND's joints         SERVO_SP_{n}: 8 servo joints, SERVO_SP_1..2
"""

from dataclasses import dataclass
from typing import Any

from servobus.firmware.memory import BOARD_MODES
from servobus.host.pid import ANTI_WINDUP
from servobus.host.tunings import DEFAULT_TUNING
from servobus.presets.board import SENSING_CHOICES
from servobus.presets.guroo import ADC_FIFOS, LOOPS, PDPINTS, T1_PERIOD, T1_PERIODS
from servobus.presets.servos import HSR_5995TG
from servobus.robot.description import NodeSpec

MODES = tuple(BOARD_MODES)  # the board firmware's modes: cascade, local-p
PLANTS = ("switching", "averaged")  # plant.build.PlantKind
SCHEDULES = ("time-triggered", "cyclic")
MEAS_MESSAGE = {2: "MEAS_{n}", 6: "MEAS6_{n}"}  # a board's measurement, by meas_bytes

# per-joint options: key -> default (today's RobotConfig defaults; mode None: the preset's own
# controller's mode); choices where they are named
JOINT_OPTIONS: dict[str, Any] = {
    "preset": HSR_5995TG.name, "mode": None, "sensing": "supply-unipolar",
    "plant": "switching", "alpha": 1.0, "tuning": DEFAULT_TUNING, "anti_windup": "soft",
}
CHOICES: dict[str, tuple[str, ...]] = {
    "mode": MODES, "sensing": SENSING_CHOICES, "plant": PLANTS, "anti_windup": ANTI_WINDUP,
    "loop": LOOPS, "schedule": SCHEDULES, "t1_period": T1_PERIODS, "adc_fifo": ADC_FIFOS,
    "pdpint": PDPINTS,
}
# an hp-board's readings of the printed firmware where the listing is ambiguous
# (docs/guroo-firmware.md): key -> the reading the emulator chose (GurooBoardNode's keywords)
READINGS: dict[str, Any] = {"t1_period": T1_PERIOD, "dead_band": False,
                            "adc_fifo": ADC_FIFOS[0], "pdpint": PDPINTS[0]}
ALPHA_RANGE = (0.01, 100.0)  # load inertia factor, as `servobus run --alpha`
COMPUTE_RANGE_NS = (0, 100_000_000)  # the host's computation per period
GROUP_MAX = 4  # joints per actuation frame: four 16-bit signals in 8 bytes


@dataclass(frozen=True)
class Sends:
    """One message template a kind sends and what its {n} ranges over (module docstring)."""

    template: str
    over: str


@dataclass(frozen=True)
class Kind:
    """A node kind: the keys its [[nodes]] entry takes (with defaults), its joint options,
    its joint count and ID range, which schedule it belongs to, what it sends and what it must
    hear."""

    name: str
    schedule: str
    joints: tuple[int, int]  # fewest, most joints a node of this kind carries
    id_range: tuple[int, int] | None  # its board ID's range; None: the kind has no ID
    node_keys: dict[str, Any]  # extra keys of its [[nodes]] entry -> default
    joint_options: tuple[str, ...]
    sends: tuple[Sends, ...]
    hears: tuple[Sends, ...] = ()


KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("time-trigger", "time-triggered", (0, 0), None, {}, (), (Sends("TICK", "once"),)),
    Kind("board", "time-triggered", (1, 1), (1, 255), {}, tuple(JOINT_OPTIONS),
         (Sends("MEAS", "joint"), Sends("STATUS_{n}", "joint"), Sends("ANNOUNCE_{n}", "joint")),
         (Sends("TICK", "once"), Sends("COMMAND", "once"))),  # and its group's: robot_check
    Kind("host", "time-triggered", (0, 0), None, {"groups": None, "compute": "200us"}, (),
         (Sends("ACTUATION_{n}", "group"), Sends("POSREF_{n}", "group"),
          Sends("COMMAND", "once")),
         (Sends("TICK", "once"), Sends("MEAS", "every-joint"), Sends("STATUS_{n}", "every-joint"),
          Sends("ANNOUNCE_{n}", "every-joint"))),
    Kind("central", "cyclic", (0, 0), None, {}, (),
         (Sends("VEL_SP_{n}", "peer:hp-board"), Sends("SERVO_SP_{n}", "fours:servo-board")),
         (Sends("FEEDBACK_{n}", "peer:hp-board"), Sends("ANNOUNCE_{n}", "peer:hp-board"),
          Sends("ANNOUNCE_{n}", "peer:servo-board"), Sends("SERVO_STATUS", "peer:servo-board"))),
    Kind("hp-board", "cyclic", (1, 3), (1, 15), {"loop": LOOPS[0], **READINGS}, (),
         (Sends("ANNOUNCE_{n}", "id"), Sends("FEEDBACK_{n}", "id"),
          Sends("MBX2_{n}", "id")),  # MBX2: its CAN module's answer to a remote frame
         (Sends("VEL_SP_{n}", "id"),)),
    Kind("servo-board", "cyclic", (1, 8), (1, 15), {}, (),
         (Sends("ANNOUNCE_{n}", "id"), Sends("SERVO_STATUS", "once")),
         (Sends("SERVO_SP_{n}", "fours:servo-board"),)),
)}
"""The kinds: SPEJBL's (time-triggered) and GuRoo's (cyclic).  A board's "MEAS" is MEAS_{n} or
MEAS6_{n} by the robot's meas_bytes."""


def sent_by(spec: NodeSpec, nodes: tuple[NodeSpec, ...], groups: int,
            meas_bytes: int) -> list[str]:
    """The names of the messages node `spec` sends, in a robot of `nodes` with `groups`
    actuation groups and measurements of `meas_bytes` bytes."""
    return _names(spec, KINDS[spec.kind].sends, nodes, groups, meas_bytes)


def heard_by(spec: NodeSpec, nodes: tuple[NodeSpec, ...], groups: int,
             meas_bytes: int) -> list[str]:
    """The names of the messages node `spec` must hear (as ``sent_by`` names them)."""
    return _names(spec, KINDS[spec.kind].hears, nodes, groups, meas_bytes)


def _names(spec: NodeSpec, templates: tuple[Sends, ...], nodes: tuple[NodeSpec, ...],
           groups: int, meas_bytes: int) -> list[str]:
    """The message names `templates` stand for at node `spec` (module docstring)."""
    names = []
    for sends in templates:
        template = MEAS_MESSAGE[meas_bytes] if sends.template == "MEAS" else sends.template
        kind = sends.over.partition(":")[2]
        if sends.over == "once":
            numbers: list[int] = []
            names.append(template)
        elif sends.over == "joint":
            numbers = list(spec.joints)
        elif sends.over == "every-joint":
            numbers = sorted(j for n in nodes if n.kind == "board" for j in n.joints)
        elif sends.over == "id":
            numbers = [spec.board]
        elif sends.over == "group":
            numbers = list(range(1, groups + 1))
        elif sends.over.startswith("peer:"):
            numbers = [n.board for n in nodes if n.kind == kind]
        else:  # fours:KIND
            count = sum(len(n.joints) for n in nodes if n.kind == kind)
            numbers = list(range(1, -(-count // GROUP_MAX) + 1))
        names += [template.format(n=n) for n in numbers]
    return names
