"""`busload`, `budget` and `step` on the servo presets: the shipped preset robots' schedules and
board budgets, a position step of each local-p servo's own loop."""


import pytest

from tests.tools.cli_io import DAVIS, cli_error, cli_json

# per robot: the set-point frames' data bytes (4 joints a frame, 2 bytes a joint)
SETPOINTS = {"spejbl-leg-ax12": (8, 4), "sg90-arm": (6,), "nxt-joint": (2,)}
JOINTS = {"spejbl-leg-ax12": 6, "sg90-arm": 3, "nxt-joint": 1}






@pytest.mark.parametrize("name", SETPOINTS)
def test_busload_of_each_preset_robot(capsys: pytest.CaptureFixture[str], name: str) -> None:
    out = cli_json(capsys, ["busload", "--robot", name, "--json"])
    n, groups = JOINTS[name], len(SETPOINTS[name])
    assert [f["name"] for f in out["schedule"]] == \
        ["TICK", *(f"MEAS_{j}" for j in range(1, n + 1)),
         *(f"POSREF_{k}" for k in range(1, groups + 1))]  # their boards' set-points
    bits = DAVIS[1] + n * DAVIS[2] + sum(DAVIS[b] for b in SETPOINTS[name])
    assert out["models"]["worst_case"]["frame_bits"] == bits
    assert out["models"]["worst_case"]["load_pct"] == pytest.approx(bits / 4000 * 100)
    assert all(m["meets_deadline"] for m in out["messages"])
    timed = {m["name"] for m in out["messages"]}
    assert {f"POSREF_{k}" for k in range(1, groups + 1)} <= timed
    assert not any(name.startswith("ACTUATION_") for name in timed)


@pytest.mark.parametrize(("name", "servo", "block"), [
    ("spejbl-leg-ax12", "ax-12", 20), ("sg90-arm", "sg90", 1), ("nxt-joint", "nxt", 20)])
def test_budget_of_each_preset_robots_boards(capsys: pytest.CaptureFixture[str], name: str,
                                             servo: str, block: int) -> None:
    out = cli_json(capsys, ["budget", "--cpu", "--robot", name, "--ticks", "3", "--json"])
    assert (out["robot"], out["servo"], out["mode"]) == (name, servo, "local-p")
    assert out["joints"] == list(range(1, JOINTS[name] + 1))
    isr = out["interrupts"]
    assert list(isr) == ["adc_isr", "pwm_isr", "can_tick", "can_posref"]
    assert isr["can_posref"]["calls_counted"] == 3 and isr["pwm_isr"]["calls_counted"] == 240
    # the loop's three multiplies (set-point x block, gain, speed gain) once a block of
    # 20 kHz / loop_hz PWM periods, nothing else multiplies in local-p
    assert isr["pwm_isr"]["ops_per_call"]["mul"] == pytest.approx(3 / block)
    # the POSREF handler: IRQ entry/exit (50), the CAN driver's read (6 loads, 2 stores, 2
    # compares: 30), two stores (XW_REF, ACT_SILENT: 2 cycles each)
    assert isr["can_posref"]["cycles_per_call"] == 50 + 30 + 2 * 2
    # the C firmware ran the same calls to the same RAM (arm_budget.replay checks it)
    machine = out["machine_code"]
    if "unavailable" not in machine:
        assert "can_posref" in machine["arm"]["interrupts"]


def test_budget_of_the_default_robot_names_its_board(capsys: pytest.CaptureFixture[str]) -> None:
    out = cli_json(capsys, ["budget", "--cpu", "--ticks", "1", "--hand-only", "--json"])
    assert (out["robot"], out["servo"], out["mode"]) == ("spejbl", "hsr-5995tg", "cascade")
    assert list(out["interrupts"]) == ["adc_isr", "pwm_isr", "can_tick", "can_actuation"]


def test_budget_of_a_robot_of_two_servos_has_a_board_each(
        capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    path = tmp_path / "mixed.toml"
    path.write_text('base = "sg90-arm"\nname = "mixed"\n[joint.3]\npreset = "nxt"\n')
    out = cli_json(capsys, ["budget", "--cpu", "--robot", str(path), "--ticks", "1",
                         "--hand-only", "--json"])
    assert out["robot"] == "mixed"
    assert [(b["servo"], b["joints"]) for b in out["boards"]] == [("sg90", [1, 2]),
                                                                    ("nxt", [3])]


def test_budget_of_a_cyclic_robot_has_each_hp_board_loop(
        capsys: pytest.CaptureFixture[str]) -> None:
    out = cli_json(capsys, ["budget", "--cpu", "--robot", "guroo-arm", "--ticks", "2", "--json"])
    assert out["robot"] == "guroo-arm" and [b["loop"] for b in out["boards"]] == ["2002", "2khz"]
    assert "--loop applies to a robot with hp-boards" in cli_error(
        capsys, ["budget", "--cpu", "--robot", "nxt-joint", "--loop", "2khz"])


def test_the_ax12_step_of_the_paper(capsys: pytest.CaptureFixture[str]) -> None:
    """SPEC 6.1's 0 -> 90 deg: 307 AX-12 LSB (1023 over 300 deg) is 90.03 deg."""
    out = cli_json(capsys, ["step", "--preset", "ax-12", "--position-deg", "90", "--json"])
    assert (out["servo"], out["mode"], out["setpoint_lsb"]) == ("ax-12", "local-p", 512 + 307)
    assert out["step_deg"] == pytest.approx(307 * 300 / 1023)
    assert 0.1 < out["rise_time_s"] < 0.3 and 0 < out["overshoot_pct"] < 20
    assert out["settling_time_s"] < 0.8 and abs(out["final_error_deg"]) < 1.0


@pytest.mark.parametrize("servo", ["nxt", "sg90"])
def test_position_steps_up_and_down_mirror(capsys: pytest.CaptureFixture[str],
                                           servo: str) -> None:
    up = cli_json(capsys, ["step", "--preset", servo, "--position-deg", "45", "--periods",
                        "10000", "--json"])
    down = cli_json(capsys, ["step", "--preset", servo, "--position-deg", "-45", "--periods",
                          "10000", "--json"])
    assert up["step_deg"] == pytest.approx(-down["step_deg"])
    assert up["rise_time_s"] is not None and down["rise_time_s"] is not None
    assert abs(up["final_error_deg"]) < 2.0 and abs(down["final_error_deg"]) < 2.0


def test_a_current_step_on_another_preset(capsys: pytest.CaptureFixture[str]) -> None:
    default = cli_json(capsys, ["step", "--json"])
    assert cli_json(capsys, ["step", "--preset", "hsr-5995tg", "--json"]) == default
    ax = cli_json(capsys, ["step", "--preset", "ax-12", "--iw", "0.5", "--json"])
    assert ax["iw_a"] == 0.5 and ax["steady_state_a"] == pytest.approx(0.5, abs=0.01)
    # the AX-12's 12 V over 8 ohm: 0.5 A locked takes a third of full duty
    assert ax["duty_steady_state"] == pytest.approx(0.5 * 8.0 / 12.0, abs=0.05)


@pytest.mark.parametrize(("argv", "message"), [
    (["--position-deg", "10"], "hsr-5995tg's position loop runs on the host (cascade)"),
    (["--preset", "ax-12", "--position-deg", "10", "--iw", "0.5"], "--iw is the current step's"),
    (["--preset", "ax-12", "--position-deg", "10", "--rotor", "locked"], "the shaft free"),
    (["--preset", "ax-12", "--position-deg", "200"], "+-150 deg"),
    (["--preset", "nxt", "--position-deg", "0.2"], "it must move"),
    (["--preset", "nope"], "invalid choice"),
])
def test_step_errors(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert message in cli_error(capsys, ["step", *argv])
