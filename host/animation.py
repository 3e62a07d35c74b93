"""Recording a trajectory by puppet animation (SPEC 4.3): the joints are floated, somebody moves
the limbs, and the host captures the pose at a fixed interval as trajectory lines."""

from dataclasses import dataclass, field

import numpy as np

from servobus.bus.node import Clock
from servobus.host.host_node import HostNode
from servobus.host.trajectory import Trajectory


@dataclass
class AnimationRecorder:
    """Floats every joint at start, then captures the host's measured pose every `every_s`."""

    host: HostNode
    every_s: float = 0.5
    poses: list[np.ndarray] = field(default_factory=list)

    def start(self, clock: Clock) -> None:
        """Release all joints and arm the first capture one interval later."""
        if self.every_s <= 0:
            raise ValueError(f"capture interval must be positive, got {self.every_s}")
        self.clock = clock
        self.host.release(0)
        clock.call_at(clock.now_ns() + round(self.every_s * 1e9), self._capture)

    def _capture(self) -> None:
        self.poses.append(self.host.capture())
        self.clock.call_at(self.clock.now_ns() + round(self.every_s * 1e9), self._capture)

    def trajectory(self) -> Trajectory:
        """The captured poses, each reached from the previous one in `every_s`."""
        if not self.poses:
            raise ValueError("no pose captured yet")
        return Trajectory(np.array(self.poses, dtype=float),
                          np.full(len(self.poses), self.every_s), "<animation>")
