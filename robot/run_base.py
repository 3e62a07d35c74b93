"""What every assembled robot shares, whatever its schedule: its description, clock and load
meter, the engine it runs on (and why auto fell back), the robot-level fault every robot has
(``node N silent at T [for D]``: the board of ID N stops talking and listening), the reference
medium with its bus faults, the log, the run loop and the report's fields about the run and the
bus.

The two schedules' assemblies build on it: ``robot.assembly.Robot`` (time-triggered: a time
trigger, servo boards, the PID host) and ``robot.described.DescribedRobot`` (cyclic: a central,
high-power boards, a servo board); what differs is their nodes' own fault lines and actions, how
their nodes sit on the period engine's LeanBus and which compiled engine takes their steady
periods.
"""

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from servobus.bus.fault_runner import apply_script
from servobus.bus.faults import FaultPlan, FaultScriptError, check_before_end
from servobus.bus.load_meter import LoadMeter
from servobus.bus.medium import Medium
from servobus.bus.node import attach_sim
from servobus.bus.period_engine import LeanBus
from servobus.bus.scheduler import NS_PER_S, Environment
from servobus.bus.schema import Schema
from servobus.robot.advance import ENGINES, chunk_for, engine_fields, run_and_close
from servobus.robot.charge_batch import BatchedCharges
from servobus.robot.description import spans
from servobus.robot.engine_run import NodeBus, python_handler
from servobus.robot.robot_file import RobotFile
from servobus.robot.run_log import RunLog
from servobus.robot.script_lines import script_time, script_words

NODE_FAULT = {"node": "node N silent at T [for D]"}  # every robot's own fault line


class RobotRun:
    """The shared part of an assembled robot (module docstring); a subclass calls ``_start``,
    builds its nodes, then ``_choose_engine``, ``_check_times`` and ``_reference_medium`` or
    ``_wire``, and ``_open_log`` last."""

    description: RobotFile
    schema: Schema
    compiled: Any  # the compiled engine, when it runs the steady periods

    def _start(self, description: RobotFile, schema: Schema, realtime_factor: float | None,
               keep_records: bool) -> None:
        """The description, schema, clock and load meter (windows kept for a plot)."""
        self.description, self.schema = description, schema
        self.env = Environment(realtime_factor)
        self.meter = LoadMeter(schema.bitrate, description.period_ns / NS_PER_S,
                               keep_windows=keep_records, data_bitrate=schema.data_bitrate)
        self.medium: Medium | None = None
        self.lean: LeanBus | None = None
        self.compiled = None
        self.log: RunLog | None = None
        self._charges: BatchedCharges | None = None
        # robot-level fault lines (line, at, what): each checked against the run's end
        self._timed: list[tuple[str, int, str]] = []

    def _node_fault(self, line: str) -> str:
        """'node N silent at T [for D]' as the bus fault silencing the node of board ID N."""
        board, at, *span = script_words("fault", line, NODE_FAULT)
        boards = {n.board: n.name for n in self.description.nodes if n.joints}
        if not board.isdigit():
            raise FaultScriptError(f"fault {line!r}: board {board!r} is not a number")
        if int(board) not in boards:
            raise FaultScriptError(f"fault {line!r}: {self.description.name} has boards "
                                   f"{spans(sorted(boards))}, not {board}")
        self._timed.append((line, script_time("fault", line, at), "at"))
        return f"silence {boards[int(board)]} at {at}" + (f" for {span[0]}" if span else "")

    def _check_times(self, end_ns: int | None) -> None:
        """Every robot-level fault at a time before the run's end (a tick drop: the tick it
        drops), once the lines and the engine are known to be right."""
        for line, at, what in self._timed:
            try:
                check_before_end(at, end_ns, what)
            except FaultScriptError as err:
                raise FaultScriptError(f"fault {line!r}: {err}") from None

    def _choose_engine(self, engine: str, bus_faults: list[str],
                       unsupported: Callable[[], str | None]) -> tuple[str, str | None]:
        """The engine that runs this robot, and why auto fell back from the compiled one:
        a bus fault script needs the reference path; `unsupported` says why the compiled
        engine cannot take this robot's periods (None: it can)."""
        if engine not in ENGINES:
            raise ValueError(f"engine {engine!r}: use {', '.join(ENGINES)}")
        why = ("bus-level faults (error frames, silent nodes) run on the reference path"
               if bus_faults else None)
        if engine in ("period", "compiled") and why is not None:
            raise ValueError(f"engine {engine}: {why}; use --engine auto or reference")
        if engine == "reference" or why is not None:
            return "reference", why if engine == "auto" else None
        if engine == "period":
            return "period", None
        why = unsupported()
        if engine == "compiled" and why is not None:
            raise ValueError(f"engine compiled: {why}; use --engine auto, period or reference")
        return ("period", why) if why is not None else ("compiled", None)

    def _reference_medium(self, nodes: Iterable[Any], bus_faults: list[str], ids: set[int],
                          seed: int, end_ns: int | None) -> None:
        """The reference path: the nodes on a python-can medium with the bus faults' plan
        (rules on `ids`, the IDs the nodes can send)."""
        timing = self.schema.bit_timing
        self.medium = Medium(self.env, timing.bitrate, faults=FaultPlan(seed=seed),
                             data_bitrate=timing.data_bitrate)
        self.medium.taps.append(self.meter.tap)
        self.buses = [attach_sim(node, self.medium) for node in nodes]
        apply_script(self.medium, bus_faults, ids, self.description.period_ns, end_ns)

    def _wire(self, nodes: Mapping[str, Any]) -> LeanBus:
        """The nodes on the period engine's LeanBus, started: each hears what the DBC names it a
        receiver of, its hot frames on raw payloads (a node's ``byte_handlers``), the rest as
        can.Message; the compiled engine, if any, bound to the bus and giving each node its
        clock; the load meter charged in batches."""
        lean = LeanBus(self.env, self.schema.bit_timing, self.schema.fd_ids)
        for name, node in nodes.items():
            heard = [int(m.frame_id) for m in self.schema.db.messages
                     if any(name in s.receivers for s in m.signals)]
            handlers = dict.fromkeys(heard, python_handler(node, lean.fd_ids))
            fast = getattr(node, "byte_handlers", None)  # hot frames on raw payloads
            if fast is not None:
                handlers.update({i: h for i, h in fast().items() if i in handlers})
            lean.attach(name, handlers)
        if self.compiled is not None:
            self.compiled.bind(lean)
        for k, (name, node) in enumerate(nodes.items()):
            clock = self.env if self.compiled is None else self.compiled.clock(name)
            node.start(NodeBus(lean, k), clock)
        self._charges = BatchedCharges(self.meter)  # charged in compiled batches
        lean.charges.append(self._charges.add)
        return lean

    def _open_log(self, path: str | None) -> None:
        """The bus log (last, so that a bad line leaves no half-written log behind)."""
        self.log = RunLog(path, self.medium, self.lean) if path else None

    @property
    def frames(self) -> int:
        """Frames delivered on the bus so far."""
        return self.medium.frames if self.medium is not None else self.lean.frames  # type: ignore[union-attr]

    def run(self, duration_s: float, chunk_s: float = 0.1, progress=None) -> None:
        """Advance the simulation; the log is closed even when interrupted.  `progress` hears
        every `chunk_s` (on the compiled engine at least every ``advance.CHUNK_S``), each pause
        at a period's start, so that a period is never cut by a pause."""
        run_and_close(self.env, duration_s, self.description.period_ns,
                      chunk_for(chunk_s, self.compiled is not None), progress, self.close)

    def flush_charges(self) -> None:
        """Charge the meter with every frame so far (the LeanBus's charges are batched)."""
        if self._charges is not None:
            self._charges.flush()

    def close(self) -> None:
        """Charge the meter with every frame so far; flush and close the log."""
        self.flush_charges()
        if self.log is not None:
            self.log.close()

    def run_fields(self, wall_s: float, compile_s: float) -> dict[str, Any]:
        """The report's fields about the run: simulated and wall time (`wall_s`), the real-time
        factor, numba's compiles for it (`compile_s`, not in `wall_s`)."""
        sim_s = self.env.now / NS_PER_S
        return {"sim_time_s": sim_s, "wall_time_s": wall_s,
                "rtf": sim_s / wall_s if wall_s > 0 else 0.0, "compile_s": compile_s}

    def bus_fields(self, predicted_pct: float) -> dict[str, Any]:
        """The report's fields about the bus: measured and predicted load, error frames, the
        engine and its periods."""
        self.flush_charges()
        return {"bus_load_pct": self.meter.report()["load_pct"],
                "bus_load_predicted_pct": predicted_pct,
                "error_frames": self.medium.error_frames if self.medium is not None else 0,
                **engine_fields(self)}
