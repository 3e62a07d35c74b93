"""`servobus budget --cpu`: firmware cycles per interrupt and CPU load of a robot's boards: the
LPC2119 of a time-triggered robot's servo boards (SPEJBL's kind), per servo and firmware mode
its joints use, or the GuRoo high-power board's TMS320F243 of a cyclic robot (its 2002 loop:
the thesis' printed firmware by its cycle model, the control routine's time beside the measured
1.28 ms; its 2 kHz loop: the emulated firmware's counted ops)."""

import argparse
from typing import TYPE_CHECKING, cast

from servobus.presets.board import DEFAULT_BOARD, Sensing
from servobus.tools import units
from servobus.tools.bus_options import robot_of
from servobus.tools.cli import Commands
from servobus.tools.errors import ServobusError
from servobus.tools.output import emit, emit_rows
from servobus.tools.robot_options import LOOP_OPTION, robot_loop

if TYPE_CHECKING:
    from servobus.presets.servos import ServoPreset
    from servobus.robot.robot_file import RobotFile


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("budget")
    parser.add_argument("--cpu", action="store_true", help="firmware CPU budget")
    parser.add_argument("--ticks", type=units.integer(1, 10_000), default=None,
                        help="CAN periods of counted workload, 1 .. 10000 (a time-triggered "
                             "robot: 4 ms ticks, default 25; a cyclic one's 2 kHz loop: 2 ms "
                             "set-point broadcasts, default 50; its 2002 loop is the printed "
                             "firmware's cycle model, no workload)")
    parser.add_argument("--hand-only", action="store_true",
                        help="skip the machine-code cycle count (oracle extra) beside the table")
    parser.add_argument("--robot", metavar="NAME|FILE", default="spejbl",
                        help="whose board firmware: a shipped robot or a description .toml "
                             "(default spejbl: the LPC2119 servo board; guroo: the TMS320F243 "
                             "high-power board)")
    parser.add_argument("--loop", **LOOP_OPTION)
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_do_budget)


def _do_budget(args: argparse.Namespace) -> None:
    if not args.cpu:
        raise ServobusError("say which budget: --cpu")
    robot = robot_of(args)
    assert robot is not None  # --robot has a default
    loop = robot_loop(args, robot)
    routines: list[dict] = []
    if robot.schedule == "cyclic":
        from servobus.analysis.guroo_budget import measure as measure_guroo
        from servobus.analysis.guroo_budget import printed_budget

        loops = [loop] if loop else sorted({str(robot.node_keys[n.name]["loop"])
                                            for n in robot.nodes if n.kind == "hp-board"})
        budgets = [printed_budget() if each == "2002" else measure_guroo(each, args.ticks or 50)
                   for each in loops]
        if not args.json:  # the routine table as a table, after the figures
            routines = next((b.pop("routines") for b in budgets if "routines" in b), [])
        title = f"{robot.name}: GuRoo high-power board CPU budget"
    else:
        kinds = _board_kinds(robot)
        budgets = [_board_budget(firmware, joints, args) for firmware, joints in kinds.items()]
        title = f"{robot.name}: firmware CPU budget"
    result = budgets[0] if len(budgets) == 1 else {"boards": budgets}
    result.pop("robot", None)  # the GuRoo budget names GuRoo: here the robot's name leads
    emit({"robot": robot.name, **result}, args.json, title=title)
    emit_rows("routines of the printed firmware (cycles per call; per loop with the printed"
              " read_enc and with the rewrite)",
              [{k: r[k] for k in _ROUTINE_COLUMNS} for r in routines])


_ROUTINE_COLUMNS = ("routine", "printed", "cycles_per_call", "in_per_call", "adc_waits",
                    "calls_printed", "cycles_printed", "calls_rewritten", "cycles_rewritten")


Firmware = tuple["ServoPreset", str, str]  # what a board's count depends on: servo, mode, sensing


def _board_kinds(robot: "RobotFile") -> dict[Firmware, list[int]]:
    """The robot's servo boards by what their firmware runs (servo preset, mode, current
    sensing), each with its joints: boards alike count alike."""
    kinds: dict[Firmware, list[int]] = {}
    for joint in robot.joints:
        o = joint.options
        assert o is not None  # a time-triggered robot's joints are all on boards
        kinds.setdefault((o.preset, o.mode, o.sensing), []).append(joint.number)
    return kinds


def _board_budget(firmware: Firmware, joints: list[int], args: argparse.Namespace) -> dict:
    """One board's budget: its interrupts counted on the workload of its mode, with the
    machine-code count beside them unless --hand-only."""
    from servobus.analysis.arm_budget import recording_if_available
    from servobus.analysis.cpu_budget import budget_dict, machine_code_dict, measure

    servo, mode, sensing = firmware
    record = None if args.hand_only else recording_if_available()
    costs, pct = measure(DEFAULT_BOARD, args.ticks or 25, record, servo, mode,
                         cast(Sensing, sensing))
    result = {"servo": servo.name, "mode": mode, "sensing": sensing, "joints": joints,
              **budget_dict(costs, pct, DEFAULT_BOARD)}
    if not args.hand_only:
        result["machine_code"] = machine_code_dict(DEFAULT_BOARD, costs, record)
    return result
