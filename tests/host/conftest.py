"""Load the compiled host step (numba, ~0.5 s on first use) before any timed example runs."""

import numpy as np

from servobus.host.pid import PidBank
from servobus.host.trajectory import Player, default_gait

PidBank(np.zeros((1, 3))).step(np.zeros(1), np.zeros(1))
Player(default_gait()).position()
