"""A description's nodes built by kind: the time trigger, servo boards (one compiled bank for
the boards of a process) and PID host of a time-triggered robot, the central and boards of a
cyclic one.  `servobus run` assembles them on the simulated bus and `servobus node` serves any
of them on a real bus, with the same options and seeds, so a node on a real bus matches its
twin in a simulated run.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from servobus.bus.schema import TIME_TRIGGERED_REQUIRED, Schema
from servobus.bus.tick_node import TickNode
from servobus.firmware.memory import BOARD_MODES
from servobus.host.host_node import HostNode
from servobus.host.pid import AntiWindup, PidBank
from servobus.host.trajectory import Player, Trajectory, default_gait, load
from servobus.plant.board_bank import BoardBank
from servobus.plant.board_node import BoardNode
from servobus.plant.build import PlantOptions
from servobus.robot.description import NodeSpec
from servobus.robot.joint_options import JointOptions
from servobus.robot.joint_setup import host_gains, joint_options, plant_seed
from servobus.robot.robot_file import RobotFile


def board_nodes(robot: RobotFile, joints: Sequence[int], options: Sequence[JointOptions],
                schema: Schema, seed: int, meas_bytes: int, *,
                theta0: Sequence[float] | None = None, max_step_ns: int | None = None,
                filter_bus: bool = True) -> list[BoardNode]:
    """The boards of `joints` (options[k]: joint joints[k]'s) as one compiled bank: shafts at
    `theta0` (rad; None: mid-scale); `max_step_ns` None: simulated time, else following wall
    time, at most that much simulated per tick; `filter_bus`: each sets its bus's filter."""
    angles = theta0 if theta0 is not None else [0.0] * len(joints)
    plants = [PlantOptions(sensing=o.sensing, plant=o.plant,  # type: ignore[arg-type]
                           rotor="free", alpha=o.alpha, theta0=float(t),
                           seed=plant_seed(seed, j))
              for j, o, t in zip(joints, options, angles, strict=True)]
    bank = BoardBank(plants, [BOARD_MODES[o.mode] for o in options], seed=seed,
                     max_step_ns=max_step_ns, servos=[o.preset for o in options])
    names = {j: n.name for n in robot.nodes if n.kind == "board" for j in n.joints}
    return [BoardNode(bank, k, schema, meas_bytes, BOARD_MODES[o.mode], joint=j,
                      filter_bus=filter_bus, name=names[j])
            for k, (j, o) in enumerate(zip(joints, options, strict=True))]


def trajectory_of(robot: RobotFile, path: str | None = None) -> Trajectory:
    """The host's trajectory: `path`, else the description's, else the shipped gait (joint j
    the gait's joint (j - 1) mod 12 + 1)."""
    n = len(robot.joints)
    return load(path, n) if path else load(robot.trajectory, n) if robot.trajectory else \
        default_gait(n)


def host_node(robot: RobotFile, schema: Schema, options: Sequence[JointOptions],
              trajectory: Trajectory, meas_bytes: int, compute_ns: int,
              **fields: Any) -> HostNode:
    """The PID host of every joint (`options`: theirs; one mode and anti-windup for all), the
    gains scaled by the default robot's identified K_P at the robot's bus rate
    (``joint_setup.host_gains``); `fields`: HostNode's others."""
    anti_windup: AntiWindup = options[0].anti_windup  # type: ignore[assignment]  # checked
    return HostNode(schema, PidBank(host_gains(list(options), robot),
                                    anti_windup=anti_windup),
                    Player(trajectory), meas_bytes, compute_ns,
                    local_p=options[0].mode == "local-p",
                    name=next(n.name for n in robot.nodes if n.kind == "host"), **fields)


def tick_node(robot: RobotFile, schema: Schema, seed: int) -> TickNode:
    """The time trigger: a TICK every period."""
    return TickNode(schema, robot.period_ns, seed=seed,
                    name=next(n.name for n in robot.nodes if n.kind == "time-trigger"))


@dataclass(frozen=True)
class NodeOptions:
    """What a real-bus node takes besides its description: the run's seed and a trajectory
    (the host's, or the central's gait)."""

    seed: int = 0
    trajectory: str | None = None


def node_names(robot: RobotFile, words: Sequence[str]) -> list[str]:
    """The node names `words` stand for, each once, in the description's order: a DBC node name
    as it is, a kind as all its nodes (ValueError naming the robot's nodes for any other)."""
    chosen: set[str] = set()
    for word in words:
        named = [n.name for n in robot.nodes if word in (n.name, n.kind)]
        if not named:
            raise ValueError(f"{word}: {robot.name} has no such node or kind (its nodes: "
                             f"{', '.join(n.name for n in robot.nodes)})")
        chosen.update(named)
    return [n.name for n in robot.nodes if n.name in chosen]


def real_bus_nodes(robot: RobotFile, names: Sequence[str], options: NodeOptions) -> list[Any]:
    """The nodes `names` (``node_names``'s) for a real bus, in their order; the boards among
    them one bank (filtering the bus only when one is alone in the process)."""
    specs = {n.name: n for n in robot.nodes}
    if robot.schedule == "cyclic":
        return [_cyclic(robot, specs[name], options) for name in names]
    schema = Schema(robot.dbc, required=TIME_TRIGGERED_REQUIRED)
    every = joint_options(robot)
    joints = [j for name in names if specs[name].kind == "board" for j in specs[name].joints]
    boards = iter(board_nodes(robot, joints, [every[j - 1] for j in joints], schema,
                              options.seed, robot.meas_bytes, max_step_ns=robot.period_ns,
                              filter_bus=len(joints) == len(names) == 1) if joints else [])
    host = robot.node_keys[next(n.name for n in robot.nodes if n.kind == "host")]
    builders: dict[str, Callable[[], Any]] = {
        "time-trigger": lambda: tick_node(robot, schema, options.seed),
        "board": lambda: next(boards),
        "host": lambda: host_node(robot, schema, every, trajectory_of(robot, options.trajectory),
                                  robot.meas_bytes, host["compute_ns"]),
    }
    return [builders[specs[name].kind]() for name in names]


def _cyclic(robot: RobotFile, spec: NodeSpec, options: NodeOptions) -> Any:
    """A cyclic robot's node, as its assembly builds it."""
    from servobus.robot.described import DescribedConfig, build_node

    return build_node(spec, robot, Schema(robot.dbc, required=()),
                      DescribedConfig(seed=options.seed, gait_path=options.trajectory))
