"""Command-line options shared by the commands that simulate one board."""

import argparse

from servobus.plant.build import PlantOptions
from servobus.presets.board import ADC_WINDOW_CHOICES, SENSING_CHOICES
from servobus.tools import units


def add_plant_arguments(parser: argparse.ArgumentParser,
                        rotor_default: str | None = "locked") -> None:
    """--sensing/--plant/--pwm/--rotor/--alpha/--seed/--adc-window (--rotor's default None:
    the command's experiment picks it)."""
    parser.add_argument("--sensing", choices=SENSING_CHOICES, default="supply-unipolar",
                        help="current front end: as built, or the corrected design")
    parser.add_argument("--plant", choices=("switching", "averaged"), default="switching",
                        help="switching waveform per PWM period, or the duty-averaged design view")
    parser.add_argument("--pwm", choices=("edge", "centre"), default="edge",
                        help="PWM alignment")
    parser.add_argument("--rotor", choices=("locked", "free"), default=rotor_default)
    parser.add_argument("--alpha", type=units.ALPHA, default=1.0,
                        help="load inertia factor 0.01..100")
    parser.add_argument("--seed", type=units.SEED, default=0, help="seed of the sensor noise")
    add_adc_window_argument(parser)


def add_adc_window_argument(parser: argparse.ArgumentParser) -> None:
    """--adc-window: which 12 samples the current controller reads at PWM edge k."""
    parser.add_argument("--adc-window", choices=ADC_WINDOW_CHOICES, default="ends-at-edge",
                        help="moving sum read at edge k ends with the sample taken at kT "
                             "(thesis), or with the previous period's last sample")


def plant_options(args: argparse.Namespace) -> PlantOptions:
    """PlantOptions from parsed arguments."""
    return PlantOptions(sensing=args.sensing, plant=args.plant, pwm=args.pwm, rotor=args.rotor,
                        alpha=args.alpha, seed=args.seed, adc_window=args.adc_window)

