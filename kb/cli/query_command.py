"""A query argument may start with ``-``: ``kb search -draft`` searches for "-draft".

Click reads ``-draft`` as the short options ``-d -r -a -f -t`` and stops with "No such option".
``QueryCommand`` reorders the command line before click parses it: a word that starts with one
``-`` and is neither an option of the command nor an option's value is moved after ``--``, so it
is read as the query (``kb search -- --text`` was and stays the way to pass anything). An unknown
``--long`` word, or one letter after a dash that is no option (``-x``), is still an error, with a
hint naming ``--``: it is more often a mistyped option than a query (read as text, ``-k 5``, a
top-k before ``-k`` was one, silently searched for "... -k 5").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import click

from kb.store.textindex import NO_SEARCHABLE_WORDS, has_search_text

# "-x": one letter after one dash reads as a mistyped option, not as text ("-draft" does)
_LETTER_OPTION = re.compile(r"-[A-Za-z]")  # not "-中": no option is written so


def query_last(args: Sequence[str], value_options: dict[str, bool]) -> list[str]:
    """``args`` with every word that is not an option (or an option's value) after ``--``.

    Args:
        args: the command's arguments as typed.
        value_options: each option name of the command -> whether it takes a value.

    Returns:
        Options (with their values) in their order, then ``--`` and the other words in their
        order; ``args`` unchanged in substance when nothing is positional.
    """
    front: list[str] = []
    words: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        name = arg.split("=", 1)[0]
        if arg == "--":
            words.extend(args[i + 1:])
            break
        if name in value_options:
            front.append(arg)
            if value_options[name] and "=" not in arg and i + 1 < len(args):
                i += 1
                front.append(args[i])
        elif arg.startswith("--") or _LETTER_OPTION.fullmatch(arg):
            front.append(arg)  # an unknown option ("--topk", "-k"): click says so
        else:
            words.append(arg)  # a word, "-", or "-draft"
        i += 1
    return front + (["--", *words] if words else [])


class QueryCommand(click.Command):
    """A click command whose positional text (a query, a question) may start with ``-``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Parse with free text moved after ``--`` (see the module docstring)."""
        options = {name: not (p.is_flag or p.count)
                   for p in self.get_params(ctx) if isinstance(p, click.Option)
                   for name in (*p.opts, *p.secondary_opts)}
        try:
            return super().parse_args(ctx, query_last(args, options))
        except click.NoSuchOption as exc:
            hint = (f"No such option: {exc.option_name}. To search for text that starts with "
                    f"'-', put it after --: {ctx.command_path} -- {exc.option_name}.")
            raise click.NoSuchOption(exc.option_name, hint, exc.possibilities, ctx) from exc


def joined_text(words: tuple[str, ...], what: str = "query") -> str:
    """The words of a ``QueryCommand``'s free text, joined by spaces.

    Raises:
        click.UsageError: no text but spaces ("the ``what`` is empty": the argument missing,
            with click's usage hint).
        ValueError: no letter, digit or emoji ("the ``what`` has no searchable words": ``...``,
            ``???``): a value to fix, one line, as a query over 2,000 characters is.
    """
    text = " ".join(words)
    if not text.strip():
        raise click.UsageError(f"the {what} is empty")
    if not has_search_text(text):
        raise ValueError(f"the {what} {NO_SEARCHABLE_WORDS}")
    return text
