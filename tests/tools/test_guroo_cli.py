"""`servobus run --robot guroo` and GuRoo's nodes as `servobus node` (CENTRAL, HP_b,
SERVO_BOARD) from the command line: reports, plots, options that belong to the other robot,
and the node processes' code talking on one real (virtual) python-can bus."""

import json
import threading
from pathlib import Path

import pytest

from servobus.bus import factory
from servobus.robot.described import DescribedConfig, build_node, robot_schema
from servobus.robot.robot_file import load as load_robot
from servobus.tools.cli import main
from tests.processes import when_opened


def _reports(text: str) -> list[dict]:
    """Every JSON object printed, in order."""
    decoder, out, at = json.JSONDecoder(), [], 0
    while (start := text.find("{", at)) >= 0:
        obj, at = decoder.raw_decode(text, start)
        out.append(obj)
    return out


def test_run_guroo_report_and_plot(capsys, tmp_path: Path) -> None:
    plot = tmp_path / "guroo.png"
    assert main(["run", "--robot", "guroo", "--duration", "0.2", "--json", "--plot", str(plot),
                 "--plot-joints", "4,10", "--loop", "2khz"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["robot"] == "guroo" and report["engine"] == "compiled"
    assert report["frames"] == 50 * 20 and report["nodes"]["HP_2"]["loop"] == "2khz"
    assert report["nodes"]["CENTRAL"]["broadcasts"] == 101 and plot.stat().st_size > 10_000


@pytest.mark.parametrize(("argv", "message"), [
    (["--robot", "guroo", "--mode", "local-p"], "--mode applies to a time-triggered robot"),
    (["--robot", "guroo", "--alpha", "2"], "--alpha applies to a time-triggered robot"),
    (["--robot", "guroo", "--engine", "compiled", "--fault", "node 3 silent at 1s"],
     "engine compiled: bus-level faults"),
    (["--loop", "2khz"], "--loop applies to a robot with hp-boards"),
    (["--loop", "2002"], "--loop applies to a robot with hp-boards"),  # the default: refused
    (["--robot", "guroo", "--fault", "node 7 silent at 1s"], "guroo has boards 1..6, not 7"),
    (["--robot", "guroo", "--plot-joints", "20", "--plot", "x.png"], "feedback carries joints"),
    (["--plot-joints", "13", "--plot", "x.png"], "spejbl has joints 1..12"),
    (["--robot", "guroo", "--plot-joints", "24"], "feedback carries joints 1..15"),
])
def test_options_of_the_other_robot_are_errors(capsys, tmp_path: Path, argv: list[str],
                                               message: str) -> None:
    argv = [str(tmp_path / a) if a == "x.png" else a for a in argv]
    code = main(["run", "--duration", "0.05", "--json", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def test_a_bad_gait_file_is_an_error(capsys, tmp_path: Path) -> None:
    gait = tmp_path / "gait.toml"
    gait.write_text("[joint.4]\nstart = [[10.0, -1.0]]\n")
    assert main(["run", "--robot", "guroo", "--duration", "0.05", "--trajectory",
                 str(gait)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and str(gait) in err and "Traceback" not in err


def test_central_and_boards_as_node_commands_on_one_bus(capsys, monkeypatch) -> None:
    """Four `servobus node` commands' code on one virtual channel, each in its own thread (as
    processes on a real bus would be); the central listens first, so it hears the boards
    announce."""
    guroo = load_robot("guroo")
    for spec in guroo.nodes:  # compile or load the kernels first: threads share the GIL
        build_node(spec, guroo, robot_schema(guroo), DescribedConfig())
    opened = when_opened(monkeypatch, factory)
    common = ["--robot", "guroo", "--duration", "1.5", "--interface", "virtual", "--channel",
              "guroo-nodes", "--json"]
    central = threading.Thread(target=main, args=(["node", "CENTRAL", *common],))
    central.start()
    assert opened.wait(timeout=60)
    threads = [threading.Thread(target=main, args=(["node", name, *common],))
               for name in ("HP_1", "HP_2", "servo-board")]
    for thread in threads:
        thread.start()
    for thread in (*threads, central):
        thread.join(timeout=60)
    reports = {name: report for run in _reports(capsys.readouterr().out)
               for name, report in run["nodes"].items()}
    central, hp1 = reports["CENTRAL"], reports["HP_1"]
    assert set(reports) == {"CENTRAL", "HP_1", "HP_2", "SERVO_BOARD"}
    assert central["boards_announced"] == [1, 2, 6] and central["rx_faults"] == 0
    # wall-clock stalls of a loaded machine (threads sharing the GIL) can make a talking board
    # look silent for a while, so count what was heard: boards 1 and 2's feedback, never 3's
    rms = central["tracking"]["rms_counts"]
    assert all(r is not None for r in rms[:6]) and rms[6:9] == [None, None, None]
    assert central["servo_faults"]["HP_3"] == 1  # never heard: one silence
    # what the boards took from the bus, no more than the central sent (one VEL_SP_1 and one
    # SERVO_SP_1 and _2 per 2 ms broadcast): four real-time nodes sharing one GIL on a loaded
    # machine read what CPU they get before their 1.5 s are up (a stress run read 258 of
    # 750); the rate itself is checked in simulated time (test_guroo_node.py: 150 in 0.3 s)
    assert 0 < hp1["setpoints_received"] <= central["broadcasts"] and hp1["rx_faults"] == 0
    assert 0 < reports["SERVO_BOARD"]["frames"] <= 2 * central["broadcasts"]
    assert central["servo_board"]["updates_mod_256"] is not None  # its SERVO_STATUS heard


def test_feathering_and_board_bench_commands(capsys) -> None:
    assert main(["analyze", "feathering", "--step", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["resolution_counts"] == 1 / 16 and len(out["loops"]) == 6
    for loop in out["loops"]:  # every 16-period window applies the output to 1/16 count
        assert loop["window_mean_compares"] == [100 + loop["output_q4"] / 16]  # zero at 100
    assert {loop["setpoint_cnt_s"] for loop in out["loops"]} == {16000, 16032}
    assert main(["bench", "board", "--robot", "guroo", "--seconds", "0.01", "--json"]) == 0
    bench = json.loads(capsys.readouterr().out)
    assert bench["loop"] == "2002" and bench["ns_per_period"]["min"] > 0


def test_a_short_hp_board_process_sends_its_feedback_from_the_start(capsys) -> None:
    """The board's compiled kernel loads before its clock starts: a 0.2 s process sends its 50
    FEEDBACK frames (before, the first load ate the first ~0.3 s and it sent 2)."""
    assert main(["node", "HP_2", "--robot", "guroo", "--interface", "virtual", "--channel",
                 "guroo-short", "--duration", "0.2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["nodes"]["HP_2"]
    assert out["feedback_sent"] >= 40 and out["periods"] >= 19_000


@pytest.mark.parametrize("target", ["board", "run"])
@pytest.mark.parametrize("loop", ["2khz", "2002"])
def test_bench_loop_belongs_to_guroo(capsys, target: str, loop: str) -> None:
    assert main(["bench", target, "--seconds", "0.01", "--loop", loop]) == 2
    assert "error: --loop applies to a robot with hp-boards" in capsys.readouterr().err


def test_budget_loop_belongs_to_guroo(capsys) -> None:
    """The SPEJBL budget has no loop modes: --loop is refused, not ignored."""
    assert main(["budget", "--cpu", "--hand-only", "--loop", "2khz"]) == 2
    assert "error: --loop applies to a robot with hp-boards" in capsys.readouterr().err


def _section(text: str, header: str) -> dict[str, list[str]]:
    """The indented lines under `header:` of a printed report, by their first word."""
    lines = text.splitlines()
    at = lines.index(f"{header}:") + 1
    rows = {}
    while at < len(lines) and lines[at].startswith(" "):
        words = lines[at].split()
        rows[words[0]] = words[1:]
        at += 1
    return rows


def test_budget_of_guroo_prints_the_printed_firmwares_loop_time(capsys) -> None:
    """The 2002 loop's budget: the per-routine table, the loop time beside the measured 1.28 ms,
    the rewrite's rate beside ~1.5 kHz, and the unexplained excess per external read."""
    assert main(["budget", "--cpu", "--robot", "guroo"]) == 0
    text = capsys.readouterr().out
    printed, rewritten, thesis, unexplained = (_section(text, name) for name in (
        "printed", "rewritten", "thesis", "unexplained"))
    assert printed["explained_s"] == ["0.000393819"]
    assert printed["with_fitted_excess_s"] == ["0.00128"]
    assert rewritten["with_fitted_excess_rate_hz"] == ["1636.53"]
    assert thesis["max_rate_printed_hz"] == ["700"] and thesis["max_rate_rewritten_hz"] == ["1500"]
    assert unexplained["excess_per_in_cycles"] == ["631.12"]
    table = _section(text, "routines of the printed firmware (cycles per call; per loop with the"
                           " printed read_enc and with the rewrite)")
    assert table["read_enc"] == ["True", "214", "2", "0", "3", "642", "0", "0"]
    assert table["read_qdec"] == ["False", "176", "2", "0", "0", "0", "1", "176"]
    assert main(["budget", "--cpu", "--robot", "guroo", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["robot"] == "guroo" and out["loop"] == "2002"
    assert out["printed"]["with_fitted_excess_s"] == pytest.approx(1.28e-3)
    assert len(out["routines"]) == 11 and out["unexplained"]["s"] == pytest.approx(886.2e-6,
                                                                                   abs=0.1e-6)


def test_a_node_command_takes_another_description_and_refuses_a_board_it_lacks(capsys) -> None:
    bus = ["--interface", "virtual", "--channel", "nodes-of-the-arm", "--duration", "0.02"]
    assert main(["node", "HP_2", "--robot", "guroo-arm", *bus, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["robot"] == "guroo-arm" and list(report["nodes"]) == ["HP_2"]
    assert report["nodes"]["HP_2"]["loop"] == "2khz"  # the arm file's loop
    assert main(["node", "HP_7", "--robot", "guroo", *bus]) == 2
    assert capsys.readouterr().err == "error: HP_7: guroo has no such node or kind (its nodes: " \
                                      "CENTRAL, HP_1, HP_2, HP_3, HP_4, HP_5, SERVO_BOARD)\n"
