"""The bus log of a robot run (`--log`), whichever medium carries it: the reference medium's
recorder (error frames included), or a writer tapped on the period engine's LeanBus."""

import can

from servobus.bus.medium import Medium
from servobus.bus.period_engine import LeanBus
from servobus.bus.recorder import MediumRecorder, open_writer
from servobus.robot.engine_run import log_tap


class RunLog:
    """Opened on the run's medium; `close` flushes it (again: nothing)."""

    def __init__(self, path: str, medium: Medium | None, lean: LeanBus | None) -> None:
        self.recorder: MediumRecorder | None = None
        self.writer: can.Listener | None = None
        if medium is not None:
            self.recorder = MediumRecorder(medium, path)
        elif lean is not None:
            self.writer = open_writer(path)
            lean.taps.append(log_tap(self.writer, lean.fd_ids))

    def close(self) -> None:
        """Flush and close the file."""
        if self.recorder is not None:
            self.recorder.close()
            self.recorder = None
        if self.writer is not None:
            self.writer.stop()
            self.writer = None
