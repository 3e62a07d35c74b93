"""A description's joints: per joint its node and options (servo preset, firmware, plant, host
PID), from today's defaults, the file's [defaults] and its [joint.N] tables, by the node kind's
options (robot.node_kinds)."""

from dataclasses import dataclass, fields
from typing import Any

from servobus.host.tunings import TUNINGS, Tuning
from servobus.presets.board import DEFAULT_BOARD
from servobus.presets.firmware_image import local_p_gains
from servobus.presets.servos import SERVOS, ServoPreset
from servobus.robot.description import NodeSpec, spans
from servobus.robot.file_keys import FileKeys, shown
from servobus.robot.node_kinds import ALPHA_RANGE, CHOICES, JOINT_OPTIONS, KINDS

HOST_WIDE = ("mode", "anti_windup")  # one host serves every joint: one value for all

PRESET_KEYS = tuple(f.name for f in fields(ServoPreset))
# an inline preset's optional controller and sensor numbers: key -> range
CONTROLLER_RANGES = {"k_theta": (0.0, 1e6), "k_omega": (-1e6, 1e6), "pot_lsb_per_pi": (1.0, 1e5),
                     "pot_noise_lsb": (0.0, 100.0), "pot_bow_lsb": (0.0, 100.0)}
TUNING_KEYS = (("omega_d", "omega_i", "k_kp"), ("r_p", "r_i", "r_d"))


@dataclass(frozen=True)
class Gains:
    """A joint's explicit host PID gains: r_P, r_I, r_D in A per pot LSB (SPEC 4.2)."""

    r_p: float
    r_i: float
    r_d: float


@dataclass(frozen=True)
class JointOptions:
    """What a servo board's joint varies: its servo, firmware, plant model and host PID."""

    preset: ServoPreset
    mode: str
    sensing: str
    plant: str
    alpha: float
    tuning: Tuning | Gains
    anti_windup: str


@dataclass(frozen=True)
class JointSpec:
    """One joint: its number, the node that drives it, its options (None: its kind has none)."""

    number: int
    node: str
    options: JointOptions | None


def read_joints(f: FileKeys, doc: dict[str, Any],
                nodes: tuple[NodeSpec, ...]) -> tuple[JointSpec, ...]:
    """Every joint's options: today's defaults, then [defaults], then its own [joint.N] table;
    the options a joint takes are its node kind's."""
    on = {j: n for n in nodes for j in n.joints}
    takes = tuple(o for o in JOINT_OPTIONS if any(o in KINDS[n.kind].joint_options
                                                  for n in nodes))
    defaults = _option_table(f, "defaults", doc.get("defaults", {}), takes, "this robot's joints")
    own = doc.get("joint", {})
    if not isinstance(own, dict):
        raise f.error("joint", f"must be a table of [joint.N] tables, got {shown(own)}")
    for key in own:
        if key not in {str(j) for j in on}:
            raise f.error(f"joint.{key}", f"not a joint of this robot: 1..{len(on)}")
    specs = []
    for j in sorted(on):
        node = on[j]
        options = KINDS[node.kind].joint_options
        table = _option_table(f, f"joint.{j}", own.get(str(j), {}), options,
                              f"a {node.kind}'s joints")
        if not options:
            specs.append(JointSpec(j, node.name, None))
            continue
        values = {k: ("", v) for k, v in JOINT_OPTIONS.items()} | \
            {k: ("defaults.", v) for k, v in defaults.items()} | \
            {k: (f"joint.{j}.", v) for k, v in table.items()}
        specs.append(JointSpec(j, node.name, _options(f, j, values)))
    _host_wide(f, specs)
    return tuple(specs)


def _host_wide(f: FileKeys, specs: list[JointSpec]) -> None:
    """One host serves every joint: refuse joints of different HOST_WIDE options (a joint's
    mode is its preset's own unless the file sets it)."""
    for key in HOST_WIDE:
        by_value: dict[str, list[int]] = {}
        for spec in specs:
            if spec.options is not None:
                by_value.setdefault(getattr(spec.options, key), []).append(spec.number)
        if len(by_value) > 1:
            runs = "; ".join(f"joint{'s' if len(js) > 1 else ''} {spans(js)} {value}"
                             for value, js in by_value.items())
            raise f.error(f"defaults.{key}", f"the host runs one {key} for every joint, these "
                                             f"run {runs} (a joint's mode is its preset's "
                                             "unless set)")


def _option_table(f: FileKeys, key: str, table: Any, takes: tuple[str, ...],
                  whose: str) -> dict[str, Any]:
    """A table of joint options, each one that `takes` names."""
    if not takes and table:
        raise f.error(key, f"{whose} take no options")
    return f.keys(key, table, takes)


def _options(f: FileKeys, j: int, values: dict[str, tuple[str, Any]]) -> JointOptions:
    """One joint's options from (where given, value) pairs; defaults have no key path."""
    def at(key: str) -> str:
        return f"{values[key][0]}{key}"

    out: dict[str, Any] = {}
    out["preset"] = _preset(f, at("preset"), values["preset"][1], j)
    if values["mode"][1] is None:  # the servo's own controller
        values["mode"] = ("", out["preset"].mode)
    for key in ("mode", "sensing", "plant", "anti_windup"):
        out[key] = f.choice(at(key), values[key][1], CHOICES[key])
    out["alpha"] = f.number(at("alpha"), values["alpha"][1], *ALPHA_RANGE)
    out["tuning"] = _tuning(f, at("tuning"), values["tuning"][1], j)
    return JointOptions(**out)


def _preset(f: FileKeys, at: str, value: Any, j: int) -> ServoPreset:
    """A shipped servo preset by name, or one inline: ServoPreset's fields, name and
    derivation optional."""
    if isinstance(value, str):
        return SERVOS[f.choice(at, value, tuple(SERVOS))]
    table = f.keys(at, value, PRESET_KEYS)
    params: dict[str, Any] = {}
    for key in ("supply_v", "kt", "r_a", "b", "j"):
        if key not in table:
            raise f.error(f"{at}.{key}", "missing (an inline preset gives supply_v, kt, r_a, "
                                         "b, j; the others optional)")
        params[key] = f.number(f"{at}.{key}", table[key], 1e-12, 1e6)
    params["coulomb"] = f.number(f"{at}.coulomb", table.get("coulomb", 0.0), 0.0, 1e6)
    for key, (lo, hi) in CONTROLLER_RANGES.items():  # its controller and sensor, optional
        if key in table:
            params[key] = f.number(f"{at}.{key}", table[key], lo, hi)
    params["name"] = f.string(f"{at}.name", table.get("name", f"joint-{j}"))
    params["derivation"] = f.string(f"{at}.derivation",
                                    table.get("derivation", f"inline in {f.path}"))
    if "mode" in table:
        params["mode"] = f.choice(f"{at}.mode", table["mode"], CHOICES["mode"])
    if "loop_hz" in table:
        params["loop_hz"] = f.integer(f"{at}.loop_hz", table["loop_hz"], 1, DEFAULT_BOARD.pwm_hz)
    preset = ServoPreset(**params)
    try:  # its controller's gains in the firmware's integers
        local_p_gains(preset, DEFAULT_BOARD)
    except ValueError as err:
        raise f.error(at, str(err)) from None
    return preset


def _tuning(f: FileKeys, at: str, value: Any, j: int) -> Tuning | Gains:
    """A tuning by name (R2, R2b, designed), relative to K_P {omega_d, omega_i, k_kp}, or
    explicit gains {r_p, r_i, r_d}."""
    if isinstance(value, str):
        return TUNINGS[f.choice(at, value, tuple(TUNINGS))]
    table = f.keys(at, value, [*TUNING_KEYS[0], *TUNING_KEYS[1]])
    for names in TUNING_KEYS:
        if set(table) == set(names):
            numbers = [f.number(f"{at}.{n}", table[n], 0.0, 1e9) for n in names]
            if names == TUNING_KEYS[1]:
                return Gains(*numbers)
            return Tuning(f"joint-{j}", *numbers)
    raise f.error(at, f"give {', '.join(TUNING_KEYS[0])} (relative to K_P) or "
                      f"{', '.join(TUNING_KEYS[1])} (A per LSB), all three, got "
                      f"{', '.join(table) or 'none'}")
