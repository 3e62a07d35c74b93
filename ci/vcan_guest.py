#!/usr/bin/env python3
"""Run one command inside a user-mode-linux guest that has the kernel's CAN stack and vcan0..N.

The guest boots this machine's own root filesystem (hostfs), loads the CAN modules, brings up
`lo` and the vcan interfaces, runs the command with the caller's environment and working
directory, streams its stdout/stderr back and exits with its exit code.  The guest's /tmp is a
fresh tmpfs; the folders the command needs from the host's /tmp are mounted back.

    python3 ci/vcan_guest.py [--vcan N] [--timeout S] [--mem SIZE] -- COMMAND ...

Exit codes: the command's own; 124 on timeout; 125 when the guest could not be set up (missing
packages that cannot be installed, boot or CAN set-up failure; the guest console is shown).
Standard library only: it runs with any python3, whatever is installed in it.
"""

import argparse
import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parent
SHIM_SOURCE = HERE / "uml_xstate_shim.c"
TIMEOUT, NO_GUEST = 124, 125
PACKAGES = {"linux.uml": "user-mode-linux", "ip": "iproute2", "insmod": "kmod",
            "candump": "can-utils"}
MODULES = ("net/can/can.ko", "net/can/can-raw.ko", "net/can/can-bcm.ko",
           "drivers/net/can/dev/can-dev.ko", "drivers/net/can/vcan.ko")
OPTIONAL_MODULES = ("net/can/can-gw.ko",)
READY = "vcan_guest: ready"
CANFD_MTU = 72  # sizeof(struct canfd_frame): a vcan of this MTU carries CAN FD frames too
# run by an interpreter: the paths it reads, as JSON (see python_paths)
PROBE = """\
import json, os, sys
paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, sys.executable,
         os.path.realpath(sys.executable), *sys.path]
for module in list(sys.modules.values()):
    mapping = getattr(module, "MAPPING", None)
    if module.__name__.startswith("__editable__") and isinstance(mapping, dict):
        paths += [str(folder) for folder in mapping.values()]
print(json.dumps(paths))
"""


class NoGuest(RuntimeError):
    """The guest cannot be started here (and why)."""


def say(text: str) -> None:
    """A line of the runner's own on stderr."""
    print(f"vcan_guest: {text}", file=sys.stderr, flush=True)


def apt_install(packages: list[str]) -> None:
    """Install Debian packages with apt-get (root only), or explain what to install."""
    line = "apt-get install -y " + " ".join(packages)
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise NoGuest(f"missing {', '.join(packages)}; install them as root: {line}")
    say(f"installing {' '.join(packages)} with apt-get")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", *packages]
    if subprocess.run(cmd, env=env, stdout=sys.stderr, check=False).returncode != 0:
        subprocess.run(["apt-get", "update"], env=env, stdout=sys.stderr, check=False)
        if subprocess.run(cmd, env=env, stdout=sys.stderr, check=False).returncode != 0:
            raise NoGuest(f"'{line}' failed")


def uml_kernel() -> tuple[str, Path]:
    """The UML kernel binary and its module tree, installing user-mode-linux when missing."""
    missing = sorted({pkg for tool, pkg in PACKAGES.items() if not find_tool(tool)})
    if missing:
        apt_install(missing)
    kernel = find_tool("linux.uml")
    trees = sorted(Path("/usr/lib/uml/modules").glob("*/kernel"))
    if kernel is None or not trees:
        raise NoGuest("user-mode-linux is installed but its kernel or modules are not found "
                      "(expected /usr/bin/linux.uml and /usr/lib/uml/modules/<version>/kernel)")
    return kernel, trees[-1]


def find_tool(name: str) -> str | None:
    """A program on PATH or in the sbin directories (which a non-root PATH may lack)."""
    return shutil.which(name, path=os.pathsep.join(
        [os.environ.get("PATH", ""), "/usr/sbin", "/sbin", "/usr/bin"]))


def xstate_shim() -> str | None:
    """The LD_PRELOAD library that lets UML 6.1 run on AVX-512/AMX hosts (built once, cached).

    Without it such hosts panic at boot ("ptrace set fp regs failed, errno = 14"); it is a
    pass-through where UML's register buffer already matches the host's.
    """
    flags = Path("/proc/cpuinfo").read_text().split()
    needed = any(f.startswith(("avx512", "amx", "pku")) for f in flags)
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        if not needed:
            return None
        apt_install(["gcc", "libc6-dev"])
        cc = shutil.which("cc") or shutil.which("gcc")
        assert cc is not None
    source = SHIM_SOURCE.read_bytes()
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "vcan_guest"
    library = cache / f"xstate-{hashlib.sha256(source).hexdigest()[:12]}.so"
    if not library.exists():
        cache.mkdir(parents=True, exist_ok=True)
        build = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(library),
                                str(SHIM_SOURCE), "-ldl"], capture_output=True, text=True,
                               check=False)
        if build.returncode != 0:
            raise NoGuest(f"cannot build {SHIM_SOURCE.name}:\n{build.stderr}")
    return str(library)


def guest_env() -> dict[str, str]:
    """The caller's environment; when the runner itself runs in a venv, the guest does too."""
    env = dict(os.environ)
    if sys.prefix != sys.base_prefix and "VIRTUAL_ENV" not in env:
        env["VIRTUAL_ENV"] = sys.prefix
        env["PATH"] = os.pathsep.join([str(Path(sys.prefix) / "bin"), env.get("PATH", "")])
    return {k: v for k, v in env.items() if k.isidentifier() and "\0" not in v}


def python_paths(python: str, env: dict[str, str]) -> list[str]:
    """What an interpreter reads: its prefixes, its executable, sys.path and the folders its
    editable installs map to (setuptools' finders keep them in MAPPING, not on sys.path); none
    when it does not run."""
    try:
        probe = subprocess.run([python, "-c", PROBE], env=env, capture_output=True, text=True,
                               timeout=60, check=True)
    except (OSError, subprocess.SubprocessError):
        return []
    try:
        return [str(p) for p in json.loads(probe.stdout)]
    except ValueError:  # something else on its stdout (a sitecustomize that prints)
        return []


def command_python(program: str, env: dict[str, str]) -> str | None:
    """The interpreter a command runs in: a venv's when the program is in one (its python or
    one of its scripts), the program itself when it is a python, otherwise unknown."""
    found = shutil.which(program, path=env.get("PATH"))
    if found is None:
        return None
    where = Path(os.path.abspath(found))
    if (where.parent.parent / "pyvenv.cfg").exists():
        return str(where.parent / "python")
    return str(where) if where.name.startswith("python") else None


def tmp_binds(paths: list[str]) -> list[Path]:
    """The folders under /tmp among `paths` (a file counts as its folder), each once, a folder
    inside another left to its ancestor's bind."""
    folders: set[Path] = set()
    for name in paths:
        path = Path(os.path.abspath(name))
        if path.is_relative_to("/tmp") and path.exists():
            folders.add(path if path.is_dir() else path.parent)
    kept: list[Path] = []
    for folder in sorted(folders, key=lambda p: p.parts):
        if not any(folder.is_relative_to(k) for k in kept):
            kept.append(folder)
    return kept


def kept_paths(run: Path, command: list[str], env: dict[str, str]) -> list[Path]:
    """What the guest must see of the host's /tmp (which it replaces with a fresh tmpfs): the
    runner's own directory, the working directory, $VIRTUAL_ENV, and what the runner's
    interpreter and the command's read there (a venv, its packages, their editable sources)."""
    pythons = {sys.executable} | {p for p in [command_python(command[0], env)] if p}
    paths = [str(run), os.getcwd(), env.get("VIRTUAL_ENV", "")]
    for python in sorted(pythons):
        paths += [python, *python_paths(python, env)]
    return tmp_binds([p for p in paths if p])


def init_script(run: Path, modules: Path, vcans: int, command: list[str]) -> str:
    """The guest's /sbin/init: mounts, CAN set-up, the command, its exit code, power off."""
    variables = guest_env()
    keep = kept_paths(run, command, variables)
    env = "\n".join(f"export {k}={shlex.quote(v)}" for k, v in variables.items())
    loads = "\n".join(f"insmod {modules / m} || fail 'insmod {m}'" for m in MODULES)
    optional = "\n".join(f"[ -e {modules / m} ] && insmod {modules / m}"
                         for m in OPTIONAL_MODULES)
    links = "\n".join(f"ip link add dev vcan{i} type vcan && ip link set vcan{i} mtu "
                      f"{CANFD_MTU} && ip link set up vcan{i} || fail 'vcan{i}'"
                      for i in range(vcans))
    binds = "\n".join(f"mkdir -p {shlex.quote(str(p))} && mount -t hostfs none "
                      f"{shlex.quote(str(p))} -o {shlex.quote(str(p))} || fail 'mount {p}'"
                      for p in keep)
    return f"""#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
fail() {{ echo "vcan_guest: set-up failed: $1"; echo "$1" > {run}/setup-failed; poweroff -f; }}
mountpoint -q /proc || mount -t proc proc /proc || fail 'mount /proc'
mountpoint -q /sys || mount -t sysfs sysfs /sys || fail 'mount /sys'
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev || fail 'mount /dev'
mount -t tmpfs tmpfs /tmp || fail 'mount /tmp'
{binds}
{loads}
{optional}
ip link set lo up || fail 'lo'
{links}
stty raw -echo < /dev/tty1 && stty raw -echo < /dev/tty2 || fail 'ttys'
hostname vcan-guest
echo "{READY}"
{env}
cd {shlex.quote(str(Path.cwd()))} || fail 'cd'
{shlex.join(command)} > /dev/tty1 2> /dev/tty2 < /dev/null
echo $? > {run}/rc
poweroff -f
"""


def pump(source: IO[bytes], sink: IO[bytes] | None, lines: list[bytes],
         ready_at: list[float]) -> None:
    """Copy a guest channel to our own stream (or keep it, for the console)."""
    while chunk := source.readline():
        if sink is not None:
            sink.write(chunk)
            sink.flush()
        else:
            lines.append(chunk)
            if READY.encode() in chunk and not ready_at:
                ready_at.append(time.monotonic())


def boot(command: list[str], vcans: int, timeout: float, mem: str) -> int:
    """Boot the guest, run the command, return its exit code (or 124/125)."""
    kernel, modules = uml_kernel()
    shim = xstate_shim()
    with tempfile.TemporaryDirectory(prefix="vcan_guest-") as tmp:
        run = Path(tmp)
        init = run / "init"
        init.write_text(init_script(run, modules, vcans, command))
        init.chmod(0o755)
        pipes = [os.pipe() for _ in range(3)]  # console, stdout, stderr
        args = [kernel, f"mem={mem}", "root=/dev/root", "rootfstype=hostfs", "rootflags=/",
                "rw", f"init={init}", "quiet", "con=null",
                *(f"con{i}=null,fd:{w}" for i, (_, w) in enumerate(pipes))]
        env = {**os.environ, "TMPDIR": "/dev/shm" if os.path.isdir("/dev/shm") else tmp}
        if shim:
            env["LD_PRELOAD"] = shim
        start = time.monotonic()
        uml = subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=pipes[0][1],
                               pass_fds=[w for _, w in pipes], start_new_session=True)
        for _, w in pipes:
            os.close(w)
        console: list[bytes] = []
        ready_at: list[float] = []
        sinks = (None, sys.stdout.buffer, sys.stderr.buffer)
        pumps = [threading.Thread(target=pump, args=(os.fdopen(r, "rb"), sink, console,
                                                     ready_at), daemon=True)
                 for (r, _), sink in zip(pipes, sinks, strict=True)]
        for thread in pumps:
            thread.start()
        try:
            uml.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(uml.pid, signal.SIGKILL)
            uml.wait()
            say(f"timeout after {timeout:g} s: guest killed")
            return TIMEOUT
        finally:
            for thread in pumps:
                thread.join(5)
        wall = time.monotonic() - start
        rc_file = run / "rc"
        if not rc_file.exists():
            what = "set-up failed" if (run / "setup-failed").exists() or not ready_at else \
                "guest died while running the command"
            sys.stderr.buffer.write(b"".join(console))
            say(f"{what} (user-mode-linux exit status {uml.returncode}); console above")
            return NO_GUEST
        booted = ready_at[0] - start if ready_at else float("nan")
        say(f"boot {booted:.2f} s, total {wall:.2f} s")
        return int(rc_file.read_text().strip() or NO_GUEST)


def main(argv: list[str] | None = None) -> int:
    """Parse the options, run the command in the guest."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vcan", type=int, default=1, help="vcan interfaces (vcan0...)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds (exit 124)")
    parser.add_argument("--mem", default="2G", help="guest memory (UML mem=)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...")
    opts = parser.parse_args(argv)
    command = opts.command[1:] if opts.command[:1] == ["--"] else opts.command
    if not command:
        parser.error("no command given (python3 ci/vcan_guest.py -- COMMAND ...)")
    if opts.vcan < 0 or opts.timeout <= 0:
        parser.error("--vcan must be >= 0 and --timeout > 0")
    try:
        return boot(command, opts.vcan, opts.timeout, opts.mem)
    except NoGuest as err:
        say(f"error: {err}")
        return NO_GUEST


if __name__ == "__main__":
    sys.exit(main())
