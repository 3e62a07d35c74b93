"""Fault scripts that could not take effect as written are errors at parse time, quoting the
line: IDs outside 11 bits or sent by no node, counts below 1, delays beyond a period."""

import pytest

from servobus.bus.faults import FaultScriptError, parse_fault
from servobus.tools.cli import main


@pytest.mark.parametrize(("line", "message"), [
    ("babble 0x800 at 0.1s for 10ms", "CAN ID 0x800 does not fit 11 bits"),
    ("corrupt 0x1000 at 0.1s", "CAN ID 0x1000 does not fit 11 bits"),
    ("corrupt -1 at 0.1s", "CAN ID -1 does not fit 11 bits"),
    ("corrupt 0x101 at 0.1s count 0", "count 0 must be at least 1"),
    ("noack 0x101 at 0.1s count -3", "count -3 must be at least 1"),
    ("corrupt 0x101 at 0.1s count 2.5", "count '2.5' is not a whole number"),
    ("corrupt 0x101 at 0.1s cuont 3", "unknown part 'cuont'"),
    ("corrupt 0x101 at 0.1s count", "missing a part"),
    ("corrupt 0x101 at 1s at 2s", "repeated part 'at'"),
    ("babble 0x001 at 0.1s for 0s", "duration 0s must be positive"),
    ("late JOINT_3 by 0ns", "delay 0ns must be positive"),
    ("silence JOINT_3 at 1e400s", "beyond any run"),
    ("random-corrupt 0.1 at 1s", "use random-corrupt P"),
])
def test_bad_fault_lines_quote_the_line(line: str, message: str) -> None:
    with pytest.raises(FaultScriptError, match=rf"^fault '{line}': .*{message}"):
        parse_fault(line)


@pytest.mark.parametrize(("command", "line", "message"), [
    ("bussim", "corrupt 0x555 at 0.1s", "no node sends CAN ID 0x555 (sent: 0x010, 0x020"),
    ("bussim", "noack 0x301 at 0.1s", "no node sends CAN ID 0x301"),  # STATUS: not in bussim
    ("bussim", "late JOINT_3 by 10s", "a delay of 10000 ms is not shorter than the 4 ms period"),
    ("bussim", "corrupt 0x101 at 0.1s from GHOST", "unknown node 'GHOST' (nodes: TIME_TRIGGER"),
    ("bussim", "babble 0x800 at 0.1s for 10ms", "CAN ID 0x800 does not fit 11 bits"),
    ("run", "corrupt 0x555 at 0.1s", "no node sends CAN ID 0x555"),
    ("run", "late HOST by 4ms", "a delay of 4 ms is not shorter than the 4 ms period"),
    ("run", "silence NOBODY at 1s", "unknown node 'NOBODY'"),
])
def test_faults_that_could_never_fire_are_errors_before_the_run(capsys, command: str, line: str,
                                                                 message: str) -> None:
    assert main([command, "--duration", "0.01", "--fault", line]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: fault '{line}': ") and message in err and err.count("\n") == 1


def test_the_robot_accepts_a_status_fault_and_bussim_a_measurement_fault(capsys) -> None:
    assert main(["run", "--duration", "0.01", "--fault", "noack 0x301 at 0.005s"]) == 0
    assert main(["bussim", "--duration", "0.01", "--fault", "late JOINT_3 by 3999us"]) == 0
