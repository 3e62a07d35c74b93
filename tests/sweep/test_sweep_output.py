"""The sweep's text tables: rows printed aligned, cells as the rest of the CLI writes values."""

import pytest

from servobus.tools.output import emit_rows


def test_rows_print_aligned_with_the_union_of_keys_as_columns(
        capsys: pytest.CaptureFixture[str]) -> None:
    emit_rows("head", [{"point": 0, "alpha": 1.23456789, "status": "ok"},
                       {"point": 11, "status": "error: X", "stable": None}])
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["head:",
                     "  point    alpha    status  stable",
                     "      0  1.23457        ok    none",
                     "     11     none  error: X    none"]
    emit_rows("empty", [])
    assert capsys.readouterr().out == ""
