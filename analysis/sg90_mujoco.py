"""The article's SG90 model in MuJoCo (the `mujoco` extra): one hinge, one cylinder, one motor.

The MJCF is built from the article's figures (``presets.sg90``): a body at the origin with a
hinge about x and a cylinder geom (MuJoCo's default placement: centred on the body, its axis
along z, so the hinge is a diameter through the centre of mass), inertia from the geom as MuJoCo
computes it, no joint damping or armature, Euler integration (MuJoCo's default, semi-implicit:
velocity first, then position with the new velocity). A motor actuator with gear 1 applies
``data.ctrl`` as the joint torque; each step the article's control law (P law, then the motor's
torque at the joint speed) is written to ``data.ctrl`` before ``mj_step``, which is what the
article's ``mjcb_control`` callback computes (it runs inside the step on the same qpos and qvel)
without installing a process-global callback.
"""

from typing import Any

import numpy as np

from servobus.analysis.sg90_model import OutputModel
from servobus.presets.sg90 import ARTICLE, Sg90Figures

INSTALL_HINT = "pip install 'servobus[mujoco]'"


class MujocoUnavailable(RuntimeError):
    """The `mujoco` package (the mujoco extra) is not installed."""


def _mujoco() -> Any:
    """The mujoco module, or MujocoUnavailable naming the pip command."""
    try:
        import mujoco
    except ImportError as exc:
        raise MujocoUnavailable(f"the SG90 MuJoCo model needs mujoco: {INSTALL_HINT}") from exc
    return mujoco


def mjcf(sg90: Sg90Figures = ARTICLE, timestep: float = 1e-4) -> str:
    """The article's model as MJCF text."""
    return f"""\
<mujoco model="sg90">
  <option timestep="{timestep!r}" integrator="Euler"/>
  <worldbody>
    <body name="link">
      <joint name="hinge" type="hinge" axis="1 0 0"/>
      <geom type="cylinder" size="{sg90.link_radius!r} {sg90.link_half_length!r}"
            mass="{sg90.link_mass!r}"/>
    </body>
  </worldbody>
  <actuator>
    <motor name="servo" joint="hinge" gear="1"/>
  </actuator>
</mujoco>
"""


def hinge_inertia(sg90: Sg90Figures = ARTICLE) -> float:
    """The link's inertia about the hinge as MuJoCo computes it from the geom: the x entry of
    ``body_inertia`` (principal moments about the centre of mass, whose frame MuJoCo leaves
    on the body's own here: ``body_ipos`` 0, ``body_iquat`` identity)."""
    model = _mujoco().MjModel.from_xml_string(mjcf(sg90))
    return float(model.body_inertia[1, 0])


def run(model: OutputModel, target: float | None, t_end: float, timestep: float,
        volts: float = 0.0, sg90: Sg90Figures = ARTICLE) -> tuple[np.ndarray, np.ndarray]:
    """theta and omega after each of round(t_end / timestep) MuJoCo steps from rest at 0 (the
    first row is t = 0): under the P law toward `target` (rad), or at constant `volts` when
    `target` is None."""
    mujoco = _mujoco()
    mj_model = mujoco.MjModel.from_xml_string(mjcf(sg90, timestep))
    data = mujoco.MjData(mj_model)
    steps = round(t_end / timestep)
    theta, omega = np.empty(steps + 1), np.empty(steps + 1)
    theta[0] = omega[0] = 0.0
    for n in range(steps):
        v = volts if target is None else model.volts(target - data.qpos[0])
        data.ctrl[0] = model.torque(v, data.qvel[0])
        mujoco.mj_step(mj_model, data)
        theta[n + 1], omega[n + 1] = data.qpos[0], data.qvel[0]
    return theta, omega


def no_load_speed(model: OutputModel, volts: float, t_end: float = 0.02,
                  timestep: float = 1e-4) -> float:
    """The MuJoCo model's speed after `t_end` s at constant `volts` from rest, rad/s (the
    mechanical time constant J / (K_t^2 / R + B) is ~0.3 ms: 0.02 s is its steady state)."""
    return float(run(model, None, t_end, timestep, volts)[1][-1])
