"""`servobus remote-server`: share a bus over python-can-remote (binds 127.0.0.1 by default)."""

import argparse

from servobus.bus.remote_server import DEFAULT_PORT, make_server
from servobus.tools import units
from servobus.tools.bus_options import add_bus_arguments
from servobus.tools.cli import Commands


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("remote-server")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default loopback)")
    parser.add_argument("--port", type=units.PORT, default=DEFAULT_PORT,
                        help="TCP port 1..65535, or 0 for any free one (printed)")
    add_bus_arguments(parser, help="bus behind the server (opened once before serving, so an "
                                   "unusable one is an error at once)")
    parser.set_defaults(func=_do_remote)


def _do_remote(args: argparse.Namespace) -> None:
    server = make_server(args.host, args.port, args.interface, args.channel, args.fd)
    print(f"serving {args.interface}:{args.channel} on ws://{args.host}:{server.server_port}/",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:  # exit 130 / 143
        pass
    finally:
        server.server_close()
