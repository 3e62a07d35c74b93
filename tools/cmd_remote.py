"""`servobus remote-server`: share a bus over python-can-remote (binds 127.0.0.1 by default)."""

import argparse

from servobus.bus.factory import INTERFACES
from servobus.bus.remote_server import DEFAULT_PORT, make_server
from servobus.tools import units
from servobus.tools.cli import Commands


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("remote-server")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default loopback)")
    parser.add_argument("--port", type=units.PORT, default=DEFAULT_PORT,
                        help="TCP port 1..65535, or 0 for any free one (printed)")
    parser.add_argument("--interface", choices=INTERFACES[1:], default="virtual",
                        help="bus behind the server (opened once before serving, so an "
                             "unusable one is an error at once)")
    parser.add_argument("--channel", default="servobus")
    parser.set_defaults(func=_do_remote)


def _do_remote(args: argparse.Namespace) -> None:
    server = make_server(args.host, args.port, args.interface, args.channel)
    print(f"serving {args.interface}:{args.channel} on ws://{args.host}:{server.server_port}/",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:  # exit 130 / 143
        pass
    finally:
        server.server_close()
