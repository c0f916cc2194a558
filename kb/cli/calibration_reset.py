"""``kb calibrate --reset``: remove the calibrations stored in an index, saying which."""

from __future__ import annotations

import json

import click

from kb.cli.common import emit_json, open_kb


def remove_calibrations(ctx: click.Context, as_json: bool) -> None:
    """``kb calibrate --reset``: remove the stored calibrations and say what was removed."""
    from kb.retrieve.calibration import reset_calibrations

    with open_kb(ctx) as kb:
        removed = reset_calibrations(kb.store)
        status = kb.status()
    shipped = {"judge_threshold": status.judge_threshold,
               "judge_threshold_source": status.judge_threshold_source}
    if as_json:
        emit_json({"removed": {k: json_or_text(v) for k, v in removed.items()}, **shipped})
        return
    for key, value in removed.items():
        click.echo(f"removed {key}: {value}")
    if not removed:
        click.echo("nothing to reset: the index holds no calibration")
    click.echo(f"judge threshold now {shipped['judge_threshold']}, source: "
               f"{shipped['judge_threshold_source']}")


def json_or_text(value: str) -> object:
    """A stored meta value as JSON data, or as its text when it is not JSON (hand-edited)."""
    try:
        return json.loads(value)
    except ValueError:
        return value
