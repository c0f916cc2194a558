"""The ``kb`` command with every subcommand registered, and the console-script entry point."""

from __future__ import annotations

# Each command module registers its commands on ``cli`` when imported.
from kb.cli import (  # noqa: F401
    ask,
    documents,
    evaluate,
    ingest,
    search,
    serve,
    show,
    watch,
)
from kb.cli.common import cli


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="kb")
