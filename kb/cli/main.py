"""The ``kb`` command with every subcommand registered, and the console-script entry point."""

from __future__ import annotations

import signal
import sys

# Each command module registers its commands on ``cli`` when imported: one line each.
from kb.cli import (
    ask,  # noqa: F401
    documents,  # noqa: F401
    evaluate,  # noqa: F401
    home,  # noqa: F401
    ingest,  # noqa: F401
    search,  # noqa: F401
    serve,  # noqa: F401
    show,  # noqa: F401
    watch,  # noqa: F401
)
from kb.cli.common import cli

# commands that write to sockets or run until stopped: a client's closed connection must not
# kill them (a socket write raises SIGPIPE like a pipe's)
_LONG_RUNNING = frozenset({"serve", "mcp", "watch"})


def main() -> None:
    """Console-script entry point.

    Output piped into a reader that stops early (``kb docs | head -1``) ends kb as it ends
    ``ls`` or ``grep``: quietly, killed by SIGPIPE (the shell reports 141), instead of click's
    exit 1, which ``kb status`` also uses for a failed integrity check. Not for the servers.
    """
    if hasattr(signal, "SIGPIPE") and not _LONG_RUNNING & set(sys.argv[1:]):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    cli(prog_name="kb")
