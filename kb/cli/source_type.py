"""The ``--type`` option's values: one of kb's source types, any case, a leading dot allowed.

A click ``Choice`` (``kb search --type doc`` says "'doc' is not one of 'txt', 'md', 'html',
'pdf', 'docx'" and ``--help`` lists them) that reads ``.PDF`` as ``pdf``, as a file's suffix is
often written, as the HTTP and MCP arguments read one (``kb.types.source_type_named``).
"""

from __future__ import annotations

from typing import Any

import click

from kb.config import SOURCE_TYPES
from kb.types import source_type_named


class SourceTypeChoice(click.Choice):
    """``click.Choice`` of ``kb.config.SOURCE_TYPES``, case-insensitive, a leading dot dropped."""

    def __init__(self) -> None:
        super().__init__(SOURCE_TYPES, case_sensitive=False)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        """The type named by ``value`` (``".PDF"`` -> ``"pdf"``); a usage error else."""
        return super().convert(source_type_named(value) if isinstance(value, str) else value,
                               param, ctx)
