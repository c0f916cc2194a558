"""The ``kb`` command with every subcommand registered, and the console-script entry point."""

from __future__ import annotations

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


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="kb")
