"""What the CLI tests share: a command's JSON report, a command's `error:` line, and the Davis
2007 worst-case stuffed bits of a standard frame of 1, 2, 4, 6, 8 data bytes
(34 + 8n + 13 + floor((33 + 8n) / 4)) the bus reports are checked against."""

import json

import pytest

from servobus.tools.cli import main

DAVIS = {1: 65, 2: 75, 4: 95, 6: 115, 8: 135}


def cli_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    """`servobus ARGV` exits 0; its standard output parsed as JSON."""
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def cli_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """`servobus ARGV` exits 2 with an `error:` line and no traceback; the standard error."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err
    return err
