"""The period engine's bank kernel keeps the reference's ZeroDivisionError: a ROM block of 0 that
the pot's count reaches only after the engine has taken over raises from the compiled engine,
as the reference path raises (without the check, numpy's error model would divide to 0)."""

import pytest

from servobus.firmware import memory as m
from servobus.robot.assembly import Robot, RobotConfig


@pytest.mark.parametrize("engine", ["reference", "auto"])
def test_zero_block_raises_in_engine(engine: str) -> None:
    """Board 3's position block is 0 and its count -800: the count reaches 0, and the block
    divides by it, in the 10th 4 ms period after the change (80 PWM periods each)."""
    robot = Robot(RobotConfig(engine=engine))
    robot.run(0.1)
    robot.bank.roms[3, m.POS_BLOCK] = 0
    robot.bank.rams[3, m.POS_COUNT] = -800
    before = robot.compiled.counts["compiled"] if robot.compiled is not None else 0
    with pytest.raises(ZeroDivisionError):
        robot.run(0.2)
    compiled = robot.compiled is not None and robot.compiled.counts["compiled"] > before
    assert compiled == (engine == "auto")  # the periods it raised in were taken compiled
