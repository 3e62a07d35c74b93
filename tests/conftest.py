"""Shared fixtures: firmware ROM images of the default board, one per sensing variant; no
hypothesis deadline (a wall-clock limit per example fails at random on a loaded machine); under
CI (the CI environment variable 1 or true, as .ci/run sets it) hypothesis derandomized: the
same examples every run, so a red CI is reproducible, while local runs go on exploring."""

import os

import numpy as np
import pytest
from hypothesis import settings

from servobus.presets.board import DEFAULT_BOARD, SENSING_CHOICES
from servobus.presets.firmware_image import build_rom
from servobus.presets.servos import HSR_5995TG

settings.register_profile("servobus", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True)
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true")
settings.load_profile("ci" if UNDER_CI else "servobus")

ROMS = {s: build_rom(HSR_5995TG, DEFAULT_BOARD, s) for s in SENSING_CHOICES}


@pytest.fixture(params=SENSING_CHOICES, scope="module")
def rom(request: pytest.FixtureRequest) -> np.ndarray:
    """The ROM of one sensing variant (tests using it run for both; read-only)."""
    return ROMS[request.param]
