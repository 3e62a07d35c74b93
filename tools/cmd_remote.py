"""`servobus remote-server`: share a bus over python-can-remote (binds 127.0.0.1 by default)."""

import argparse

from servobus.bus.remote_server import DEFAULT_PORT, make_server
from servobus.tools.cli import Commands


def add_subparser(sub: Commands) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("remote-server")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default loopback)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--interface", default="virtual", help="bus behind the server")
    parser.add_argument("--channel", default="servobus")
    parser.set_defaults(func=_do_remote)


def _do_remote(args: argparse.Namespace) -> None:
    server = make_server(args.host, args.port, args.interface, args.channel)
    print(f"serving {args.interface}:{args.channel} on ws://{args.host}:{server.server_port}/")
    try:
        server.serve_forever()
    finally:
        server.server_close()
