"""The error every interface reports: ``{"error": {"type", "message"}}``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ErrorType = Literal["invalid_arguments", "refused", "not_found", "failed"]


@dataclass(frozen=True, slots=True)
class ErrorDetailJSON:
    """What went wrong.

    Attributes:
        type: ``invalid_arguments``, ``refused``, ``not_found`` or ``failed`` (HTTP adds its
            own: ``unauthorized``, ``forbidden``, ``method_not_allowed``, ...).
        message: one clear line.
    """

    type: str
    message: str


@dataclass(frozen=True, slots=True)
class ErrorJSON:
    """An error on its own: an HTTP error answer, or ``kb ... --json`` when a command fails.

    Attributes:
        error: what went wrong.
    """

    error: ErrorDetailJSON


__all__ = ["ErrorDetailJSON", "ErrorJSON", "ErrorType"]
