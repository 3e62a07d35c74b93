"""What a command needs beyond the core install (pyproject's extras), checked before it runs.

The core install runs the robot and every analysis; matplotlib (the `plot` extra) draws every
`--plot`, dask and pyarrow (the `sweep` extra) run `servobus sweep`.  A missing extra is
``error: servobus run --plot needs the plot extra: pip install 'servobus[plot]'`` before any
work is done, not an ImportError after a long run.  Modules are looked up, not imported.
"""

import argparse
from importlib.util import find_spec

from servobus.tools.errors import ServobusError

# extra -> the top-level modules it installs
EXTRAS = {"plot": ("matplotlib",), "sweep": ("dask", "distributed", "pyarrow")}
COMMAND_EXTRAS = {"sweep": "sweep"}  # a command that needs an extra whatever its options
OPTION_EXTRAS = {"plot": "plot"}  # an option (by its dest) that needs an extra when given


def missing(extra: str) -> list[str]:
    """The modules of `extra` that are not installed."""
    return [name for name in EXTRAS[extra] if find_spec(name) is None]


def check(args: argparse.Namespace, command: str) -> None:
    """ServobusError naming `command` (as typed: `run`, `analyze limit-cycle`), the options
    and the pip command when the parsed command line needs an extra that is not installed."""
    absent: dict[str, list[str]] = {}  # extra -> the options that need it ("" the command)
    extra = COMMAND_EXTRAS.get(args.command)
    if extra and missing(extra):
        absent[extra] = [""]
    for dest, extra in OPTION_EXTRAS.items():
        if getattr(args, dest, None) and missing(extra):
            absent.setdefault(extra, []).append(f" --{dest.replace('_', '-')}")
    if not absent:
        return
    names = sorted(absent)
    options = "".join(option for extra in names for option in absent[extra])
    noun = f"the {names[0]} extra" if len(names) == 1 else f"the {' and '.join(names)} extras"
    raise ServobusError(f"servobus {command}{options} needs {noun}: "
                        f"pip install 'servobus[{','.join(names)}]'")
