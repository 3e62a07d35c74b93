"""A description's legs (`[[legs]]`, docs/robot-file.md): which joints form each 6R leg, in the
inverse kinematics' axis order q1..q6, and how their pots read the angles; for
`servobus cartesian` (``host.cartesian``)."""

from collections.abc import Callable
from typing import Any, TypeVar

from servobus.host.cartesian import Leg
from servobus.host.trajectory import POT_CODES
from servobus.presets.board import DEFAULT_BOARD
from servobus.presets.servos import ServoPreset
from servobus.robot.file_keys import FileKeys, shown
from servobus.robot.joint_options import JointSpec

LEG_KEYS = ("name", "joints", "zero", "direction", "limits")
AXES = 6
T = TypeVar("T")


def pot_lsb_per_rad(preset: ServoPreset | None) -> float:
    """A joint's pot scale: its servo preset's own sensor's where it has one, else the board's
    (presets/board.py: 832 LSB per pi rad)."""
    return (DEFAULT_BOARD if preset is None else preset.sensed_by(DEFAULT_BOARD)).pot_lsb_per_rad


def read_legs(f: FileKeys, raw: Any, joints: tuple[JointSpec, ...]) -> tuple[Leg, ...]:
    """The `legs` array: each a table of six distinct joints, none in an earlier leg, their
    standing pots, directions and limits."""
    if not isinstance(raw, list) or not raw:
        raise f.error("legs", "must be an array of tables ([[legs]] entries), one per leg")
    legs: list[Leg] = []
    for k, entry in enumerate(raw):
        at = f"legs[{k + 1}]"
        table = f.keys(at, entry, LEG_KEYS)
        for key in ("joints", "zero", "direction"):
            if key not in table:
                raise f.error(f"{at}.{key}", "missing (a leg gives joints, zero, direction; "
                                             "name and limits optional)")
        name = f.string(f"{at}.name", table.get("name", f"leg {k + 1}"))
        if name in (leg.name for leg in legs):
            raise f.error(f"{at}.name", f"{name} is also an earlier leg's")
        numbers = _six(f, f"{at}.joints", table["joints"],
                       lambda key, v: f.integer(key, v, 1, len(joints)))
        for j in numbers:
            if numbers.count(j) > 1:
                raise f.error(f"{at}.joints", f"{list(numbers)} names joint {j} twice")
            if owner := next((leg.name for leg in legs if j in leg.joints), None):
                raise f.error(f"{at}.joints", f"joint {j} is already in leg {owner}")
        zero = _six(f, f"{at}.zero", table["zero"],
                    lambda key, v: f.integer(key, v, 0, POT_CODES - 1))
        direction = _six(f, f"{at}.direction", table["direction"], _sign(f))
        limits = _limits(f, f"{at}.limits", table.get("limits"), zero)
        options = [joints[j - 1].options for j in numbers]
        scale = tuple(pot_lsb_per_rad(o.preset if o else None) for o in options)
        legs.append(Leg(name, numbers, zero, direction, limits, scale))
    return tuple(legs)


def _six(f: FileKeys, at: str, raw: Any, read: Callable[[str, Any], T]) -> tuple[T, ...]:
    """An array of one value per axis q1..q6, each read by `read(key, value)`."""
    if not isinstance(raw, list) or len(raw) != AXES:
        raise f.error(at, f"must be an array of {AXES} values (q1..q6: hip yaw, hip roll, hip "
                          f"pitch, knee, ankle pitch, ankle roll), got {shown(raw)}")
    return tuple(read(f"{at}[{i + 1}]", value) for i, value in enumerate(raw))


def _sign(f: FileKeys) -> Callable[[str, Any], int]:
    """A reader of a direction: +1 or -1."""
    def read(key: str, value: Any) -> int:
        if value not in (1, -1) or isinstance(value, bool):
            raise f.error(key, f"{shown(value)}: a direction is 1 or -1")
        return int(value)
    return read


def _limits(f: FileKeys, at: str, raw: Any,
            zero: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """Each joint's [lowest, highest] pot LSB (default the pot's 0..1023), around its zero."""
    if raw is None:
        return ((0, POT_CODES - 1),) * AXES

    def pair(key: str, value: Any) -> tuple[int, int]:
        if not isinstance(value, list) or len(value) != 2:
            raise f.error(key, f"must be [lowest, highest] pot LSB, got {shown(value)}")
        lo, hi = (f.integer(key, v, 0, POT_CODES - 1) for v in value)
        if lo >= hi:
            raise f.error(key, f"[{lo}, {hi}]: the lowest must be below the highest")
        return lo, hi

    limits = _six(f, at, raw, pair)
    for i, ((lo, hi), z) in enumerate(zip(limits, zero, strict=True)):
        if not lo <= z <= hi:
            raise f.error(f"{at}[{i + 1}]", f"[{lo}, {hi}] leaves out the standing pose's "
                                            f"{z} (zero[{i + 1}])")
    return limits
