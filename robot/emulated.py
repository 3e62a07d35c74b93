"""Emulated SPEJBL nodes for a host you write yourself: boards and the time trigger on a bus.

The same boards serve `servobus board`/`boards` on a real bus (in real time) and, through
`emulate`, a simulated ``can.Bus(interface="servobus", channel=…)`` of this process (in
simulated time: the simulation runs forward while your code waits in ``recv``).
"""

from collections.abc import Sequence

from servobus.bus.node import attach_sim
from servobus.bus.schema import Schema
from servobus.bus.sim_interface import shared_medium
from servobus.bus.tick_node import TickNode
from servobus.plant.board_bank import BoardBank
from servobus.plant.board_node import BoardNode
from servobus.plant.build import PlantOptions
from servobus.presets.board import Sensing
from servobus.robot.joint_setup import BOARD_MODES, plant_seed

TICK_PERIOD_NS = 4_000_000  # SPEJBL's 250 Hz time trigger


def board_nodes(joints: Sequence[int], mode: str = "cascade",
                sensing: Sensing = "supply-unipolar", alpha: float = 1.0, meas_bytes: int = 2,
                seed: int = 0, period_ns: int = TICK_PERIOD_NS) -> list[BoardNode]:
    """Boards `joints` (1..12) as one compiled bank that idles until the first tick and then
    simulates up to one `period_ns` per tick; board j's plant seed is ``seed * 100 + j - 1``, as
    in `servobus run`."""
    engage = BOARD_MODES[mode]
    options = [PlantOptions(sensing=sensing, rotor="free", alpha=alpha,
                            seed=plant_seed(seed, j)) for j in joints]
    bank = BoardBank(options, [engage] * len(joints), seed=seed, max_step_ns=period_ns)
    return [BoardNode(bank, k, Schema(), meas_bytes, engage, joint=j,
                      filter_bus=len(joints) == 1)
            for k, j in enumerate(joints)]


def emulate(channel: str, joints: Sequence[int], tick: bool = True, seed: int = 0,
            mode: str = "cascade") -> list[BoardNode]:
    """Put boards `joints` (and, with `tick`, the 4 ms time trigger) on the simulated bus
    `channel` of this process; your own ``can.Bus(interface="servobus", channel=channel)`` is
    then the host.  The boards are returned for inspection (their reports, their RAM)."""
    medium = shared_medium(channel)
    boards = board_nodes(joints, mode=mode, seed=seed)
    for board in boards:
        attach_sim(board, medium)
    if tick:
        attach_sim(TickNode(Schema(), TICK_PERIOD_NS), medium)
    return boards
