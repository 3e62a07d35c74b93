"""The build backend: setuptools' own, less one notice that says nothing about this project.

An editable install of packages that live in mapped folders (pyproject.toml's package-dir:
`servobus.bus` is `bus/`) goes through setuptools' meta path finder, and setuptools then warns
that folders in the working directory named like the package may take precedence during
imports.  Here they are the package's own folders, the same files; yet every
`pip install -e .` printed the notice (pip shows a backend's warnings even with --quiet).  Every
other warning of setuptools passes through.
"""

import warnings

from setuptools.build_meta import *  # noqa: F403  (the PEP 517 and PEP 660 hooks, unchanged)

warnings.filterwarnings("ignore", message=r"Editable installation\.", module="setuptools")
