"""The ``kb`` command line: parse, call the Python API, format.

``common`` holds what every command shares; ``search``, ``documents``, ``ingest``, ``watch``,
``show``, ``home``, ``ask``, ``evaluate`` and ``serve`` each define a group of commands on it;
``main`` imports them all.
No command module imports another, nor ``main``, so the package has no import cycle.
"""

from kb.cli.main import cli, main

__all__ = ["cli", "main"]
