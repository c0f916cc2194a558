"""``kb search`` and ``kb context``: cited references, or the context block for a model."""

from __future__ import annotations

import math
from dataclasses import replace

import click
from rich.text import Text

from kb.cli.common import (
    build_search_options,
    cli,
    emit_json,
    errors_as_one_line,
    open_kb,
    search_options,
)
from kb.cli.highlight import COLOR_MODES, ColorMode, Printer
from kb.cli.printable import shown
from kb.cli.query_command import QueryCommand, joined_text
from kb.errors import SearchFailed
from kb.retrieve.tables import is_rule
from kb.shapes import ContextJSON, SearchResultJSON
from kb.types import SearchResult


def _print_notes(result: SearchResult) -> None:
    """The degraded rungs and the search's notes, on stderr (stdout holds the answer)."""
    for rung in result.diagnostics.degraded:
        click.echo(f"note: degraded: {rung}", err=True)
    for note in result.diagnostics.notes:
        click.echo(f"note: {note}", err=True)


SNIPPET_CHARS = 300  # a reference's text shown under it, in characters


def snippet(text: str, best: str | None, max_chars: int = SNIPPET_CHARS) -> str:
    """A reference's text on one line, cut to ``max_chars``, showing its best sentence.

    The judge's best sentence (the one most like an answer) is shown whole when the cut would
    hide it: the snippet then starts at it, with "…" for what is left out before and after.
    A Markdown table's rule (``| --- |``) is left out: on one line it only hides the rows.
    """
    flat = " ".join(" ".join(line for line in text.splitlines() if not is_rule(line)).split())
    if len(flat) <= max_chars:
        return flat
    sentence = " ".join((best or "").split())
    at = flat.find(sentence) if sentence else -1
    start = 0 if at < 0 or at + len(sentence) <= max_chars - 1 else at
    piece = flat[start:start + max_chars]
    return ("…" if start else "") + piece + ("…" if start + max_chars < len(flat) else "")


def _print_result(result: SearchResult, explain: bool, out: Printer,
                  min_score: int | None = None, hidden: int = 0) -> None:
    if not result.references and hidden:
        out.line(Text(f"No reference reaches --min-score {min_score}% ({hidden} below it)."))
    elif not result.references and result.diagnostics.notes:  # an empty index, a filter
        out.line(Text(f"No relevant references found: {result.diagnostics.notes[0]}, so "
                      "nothing could match (the question was not the cause)."))
    elif not result.references and result.diagnostics.gone:  # files moved or deleted
        gone = len(result.diagnostics.gone)
        out.line(Text(f"No relevant references found among the documents whose files are "
                      f"still there: {gone} document(s) were left out because their files "
                      "are gone (moved or deleted); restore them, or `kb sync` their folder."))
    elif not result.references:
        out.line(Text("No relevant references found: the knowledge base does not hold the "
                      "answer."))
    bar = result.diagnostics.judge_threshold  # calibrated, it may be far from 7%
    answer_p = {j.number: j.answer_p for j in result.diagnostics.judge}
    # a weak reference whose rounded percent reaches the rounded threshold (6.7% under 6.8%
    # both print 7%: a trial read it as a contradiction) prints both to a tenth, its own
    # rounded down and the threshold up, so the one always reads below the other
    close = {r.number for r in result.references if bar is not None and r.weak_evidence
             and r.number in answer_p and r.relevance >= round(bar * 100)}
    if result.references and result.insufficient_evidence:
        passed = "passed the judge" if bar is None else (
            "reached the judge's threshold ("
            + (f"{math.ceil(bar * 1000) / 10:.1f}%" if close else f"{bar:.0%}") + ")")
        out.line(Text(f"WEAK EVIDENCE: no passage {passed}; these are the closest and "
                      "probably do not answer the question" + (
                          f" ({len(result.diagnostics.gone)} document(s) left out: their "
                          "files are gone)." if result.diagnostics.gone else "."),
                      style="yellow"))
    best = {j.number: j.best_sentence for j in result.diagnostics.judge}
    for ref in result.references:
        where = ref.locator
        weak = "  (weak)" if ref.weak_evidence and not result.insufficient_evidence else ""
        weak += "  (stale: the file changed since it was indexed)" if ref.stale else ""
        percent = (f"{math.floor(answer_p[ref.number] * 1000) / 10:4.1f}%"
                   if ref.number in close else f"{ref.relevance:3d}%")
        line = Text.assemble((f"[{ref.number}] {percent}", "bold"), "  ",
                             out.marked(shown(ref.title), "bold"))
        line.append(f"  ({shown(where)})" if where else "")
        line.append(weak, style="yellow")
        out.line(line)
        out.line(Text(f"     {shown(ref.source)}", style="dim"))
        if ref.table_header:  # a table's later rows: which columns they fill
            out.line(Text(f"     table columns: {shown(ref.table_header)}", style="dim"))
        out.line(Text("     ") + out.marked(shown(snippet(ref.text, best.get(ref.number)))))
    _print_notes(result)
    if explain:  # data the user asked for: stdout, so `kb search --explain q > out` keeps it
        d = result.diagnostics
        for s in d.stages:
            click.echo(f"stage {s.stage:8} {s.status:7} {s.ms:8.1f} ms  {s.reason}")
        click.echo("candidates: " + ", ".join(f"{name} {n}" for name, n in d.candidates)
                   + f"; floor {d.floor if d.floor is not None else 'off'}; dropped "
                   f"{d.floor_dropped}; best below floor {d.best_below_floor}")
        numbers = {ref.chunk_id: ref.number for ref in result.references}
        for stage, items in d.explain:  # chunk id, [its reference number], score; best first
            click.echo(f"{stage} (chunk[reference]:score): " + ", ".join(
                f"{cid}{f'[{numbers[cid]}]' if cid in numbers else ''}:{s}"
                for cid, s in items[:20]))
        for j in d.judge:
            click.echo(f"judge [{j.number}] answer_p {j.answer_p:.3f} "
                       f"{'passed' if j.passed else 'not passed'}; focus found "
                       f"{list(j.focus_found)}, missing {list(j.focus_missing)}; "
                       + (f"topic terms (its document is about them) {list(j.topic_terms)}; "
                          if j.topic_terms else "")
                       + f"answer type "
                       f"{j.answer_type} (found: {j.type_found}); "
                       + (f"numbers named, none written: {list(j.numbers_missing)}; "
                          if j.numbers_missing else "")
                       + ("the date or number asked for is not in the passage; "
                          if j.type_missing else "")
                       + (f"its dates are of another event or person than the one asked "
                          f"({', '.join(j.events_apart)}); "
                          if j.events_apart else "")
                       + (f"its numbers measure another dimension than the one asked "
                          f"({', '.join(j.dimensions_apart)}); "
                          if j.dimensions_apart else "")
                       + (f"its document (nor its folders) names the subject asked "
                          f"({', '.join(j.subject_apart)}) nowhere: another document is about "
                          "it; "
                          if j.subject_apart else "")
                       + (f"what it says is of a sibling name, the other side of a "
                          f"contrast or another item of its list, not the one asked "
                          f"({', '.join(j.siblings_apart)}); "
                          if j.siblings_apart else "")
                       + (f"it says nothing of the {' or '.join(j.asked_unnamed)} asked; "
                          if j.asked_unnamed else "")
                       + (f"its '{j.roles_swapped[0]}' goes the other way round (the name asked "
                          f"is on the other side); " if j.roles_swapped else "")
                       + f"best sentence: {j.best_sentence[:120]!r}")


@cli.command(cls=QueryCommand)
@click.argument("words", nargs=-1, metavar="QUERY...")
@search_options
@click.option("--min-score", type=click.IntRange(0, 100), metavar="PCT",
              help="Leave out references whose relevance (the percentage shown: the judge's "
                   "answer_p, or the reranker's score) is below PCT; with --json too.")
@click.option("--color", type=click.Choice(COLOR_MODES), default="auto", show_default=True,
              help="Colour and highlight the query's words: auto (on a terminal; NO_COLOR "
                   "switches it off), always, never.")
@click.option("--json", "as_json", is_flag=True,
              help="JSON output: references, insufficient_evidence, note, diagnostics and error "
                   "(the shape of the HTTP /search answer and the knowledge_search tool).")
@click.option("--explain", is_flag=True,
              help="Also print per-stage traces and the judge's reasons (stdout; with --json, "
                   "in the JSON's diagnostics).")
@click.pass_context
@errors_as_one_line
def search(ctx: click.Context, words: tuple[str, ...], top_k: int | None,
           source: tuple[str, ...], type_: tuple[str, ...], tag: tuple[str, ...],
           after: str | None, before: str | None, no_decay: bool, min_score: int | None,
           color: ColorMode, as_json: bool, explain: bool) -> None:
    """Search the knowledge base and print cited references.

    The query's words need no quotes (kb search how do we rotate keys); a word that starts
    with '-' is read as text (kb search -draft), and anything after -- is too
    (kb search -- --draft).
    """
    query = joined_text(words)
    options = build_search_options(top_k, source, type_, after, before, no_decay, explain, tag)
    with open_kb(ctx) as kb:
        result = kb.search(query, options)
    hidden = 0
    if min_score is not None:
        kept = tuple(r for r in result.references if r.relevance >= min_score)
        hidden = len(result.references) - len(kept)
        # nothing at the caller's bar: insufficient for them, as the note then says (the
        # JSON's diagnostics too: a trial's --json gave no reason)
        notes = (f"--min-score {min_score}: {hidden} reference(s) below it left out",) if (
            hidden and as_json) else ()  # the text says it in its own line
        result = replace(result, references=kept,
                         insufficient_evidence=result.insufficient_evidence or not kept,
                         diagnostics=replace(result.diagnostics,
                                             notes=(*result.diagnostics.notes, *notes)))
    if as_json:  # as POST /search and the tool: no timings, so equal searches give equal JSON
        emit_json(SearchResultJSON.of(result))
    elif not result.diagnostics.error:
        _print_result(result, explain, Printer(color, query), min_score, hidden)
    if result.diagnostics.error:  # an error, never "the knowledge base does not hold it"
        raise SearchFailed(result.diagnostics.error)


@cli.command(cls=QueryCommand)
@click.argument("words", nargs=-1, metavar="QUERY...")
@search_options
@click.option("--json", "as_json", is_flag=True,
              help="JSON output: query, context, insufficient_evidence and error (the shape "
                   "of the HTTP /context answer; `kb search --json` gives the full result).")
@click.pass_context
@errors_as_one_line
def context(ctx: click.Context, words: tuple[str, ...], top_k: int | None,
            source: tuple[str, ...], type_: tuple[str, ...], tag: tuple[str, ...],
            after: str | None, before: str | None, no_decay: bool, as_json: bool) -> None:
    """Print the context block for a model: references and the answer-only instruction.

    The query's words need no quotes, as for kb search.
    """
    query = joined_text(words)
    with open_kb(ctx) as kb:
        result = kb.search(query, build_search_options(top_k, source, type_, after, before,
                                                       no_decay, tag=tag))
    if as_json:
        emit_json(ContextJSON.of(result))
    elif not result.diagnostics.error:
        click.echo(result.context)
        _print_notes(result)
    if result.diagnostics.error:  # an error, never "the knowledge base does not hold it"
        raise SearchFailed(result.diagnostics.error)
