"""``kb ask``: answer a question with the configured LLM from the knowledge base's references."""

from __future__ import annotations

from dataclasses import replace

import click

from kb.answer import Answer
from kb.cli.common import (
    build_search_options,
    cli,
    cli_settings,
    emit_json,
    errors_as_one_line,
    open_kb,
    search_options,
)
from kb.cli.printable import shown as printable
from kb.cli.query_command import QueryCommand, joined_text


@cli.command(cls=QueryCommand)
@click.argument("words", nargs=-1, metavar="QUESTION...")
@search_options
@click.option("--json", "as_json", is_flag=True,
              help="JSON output: question, answer, refused, model, cited, references.")
@click.pass_context
@errors_as_one_line
def ask(ctx: click.Context, words: tuple[str, ...], top_k: int | None, source: tuple[str, ...],
        type_: tuple[str, ...], tag: tuple[str, ...], after: str | None, before: str | None,
        no_decay: bool, as_json: bool) -> None:
    """Answer a question with the --llm model, only from cited references.

    When the knowledge base holds too little evidence, kb says so without calling the model.
    The question's words need no quotes; one that starts with '-' is read as text, and
    anything after -- is too.
    """
    question = joined_text(words, "question")
    llm = cli_settings(ctx).config.llm
    if not llm:
        raise ValueError("kb ask needs a chat model: pass --llm ollama:MODEL or "
                         "openai:URL#MODEL (or set KB_LLM, or llm in the config file)")
    from kb.backends.registry import make_llm

    # Built here only to check the spec (no connection is made): a malformed one is then a
    # single error line, not a warning on opening followed by the same text as an error.
    make_llm(llm)
    # only what the judge passes reaches the model, however many references were asked for
    options = replace(build_search_options(top_k, source, type_, after, before, no_decay,
                                           tag=tag), fill=False)
    with open_kb(ctx) as kb:
        answer = kb.ask(question, options)
    if as_json:
        emit_json({"question": answer.question, "answer": answer.text,
                   "refused": answer.refused, "model": answer.model,
                   "cited": list(answer.cited),
                   "references": list(answer.references)})
    else:
        _print_answer(answer)


def _print_answer(answer: Answer) -> None:
    """The answer, then the references it cites (all it was given when it cites none)."""
    click.echo(answer.text)
    shown = [r for r in answer.references if r.number in answer.cited] or answer.references
    if shown:
        click.echo("")
    if answer.refused and shown:
        click.echo("Closest passages (weak evidence; they probably do not answer it):")
    for ref in shown:
        where = ", ".join(part for part in (printable(ref.source), ref.locator) if part)
        click.echo(f"[{ref.number}] {printable(ref.title)}  ({where})")
