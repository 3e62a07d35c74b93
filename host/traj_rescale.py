"""A trajectory carried to another position sensor's scale: the same joint angles, counted in
the other sensor's LSB.

Every sensor of a preset reads 512 at 0 rad (plant.sensors.pot_code), so a position x in a
sensor of s LSB per pi rad is the angle (x - 512) pi / s; in a sensor of s' it is
512 + (x - 512) s' / s, rounded to the nearest LSB (ties to even): each angle kept within half
an LSB of the new sensor.  SPEJBL's gait (the board's pot, 832 LSB per pi rad) on AX-12s
(1023 LSB over 300 degrees) is `rescaled(default_gait(6), 832, AX-12's)`: the shipped
`ax12-leg-gait.traj` (host/data); tests/robot/test_preset_robots.py checks it is exactly that.
"""

import numpy as np

from servobus.host.trajectory import POT_CODES, Trajectory, TrajectoryError

MID = POT_CODES // 2  # the code of 0 rad on every sensor


def rescaled(traj: Trajectory, from_lsb_per_pi: float, to_lsb_per_pi: float) -> Trajectory:
    """`traj`'s poses in a sensor of `to_lsb_per_pi` (TrajectoryError: a pose the new sensor
    cannot read, outside 0..1023)."""
    poses = np.rint(MID + (traj.poses - MID) * (to_lsb_per_pi / from_lsb_per_pi))
    bad = np.argwhere((poses < 0) | (poses >= POT_CODES))
    if len(bad):
        line, joint = (int(k) + 1 for k in bad[0])
        raise TrajectoryError(f"{traj.source}: sample {line}, joint {joint}: "
                              f"{int(traj.poses[line - 1, joint - 1])} LSB at "
                              f"{from_lsb_per_pi:g} per pi rad is {int(poses[line - 1, joint - 1])}"
                              f" at {to_lsb_per_pi:g}, outside 0..{POT_CODES - 1}")
    return Trajectory(poses, traj.durations.copy(), traj.source)
