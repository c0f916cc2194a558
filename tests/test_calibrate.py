import json

import numpy as np
import pytest
from click.testing import CliRunner
from http_doubles import closed_port_url

from kb.cli import cli
from kb.eval.calibrate import no_better, youden_threshold
from kb.retrieve.judge_model import shipped_model
from kb.store import Store


def test_youden_threshold_separates_hand_made_samples():
    pos = np.array([0.9, 1.0, 1.1, 1.2])
    neg = np.array([0.2, 0.3, 0.5, 0.95])
    t, tpr, fpr = youden_threshold(pos, neg)
    # at t = 0.9: TPR 4/4, FPR 1/4 (0.95) -> J = 0.75, the best any threshold reaches
    assert t == 0.9 and tpr == 1.0 and fpr == 0.25


ISLANDS = ["Arran", "Barra", "Coll", "Eigg", "Harris", "Islay", "Jura", "Lewis", "Mull", "Rum",
           "Skye", "Tiree", "Uist", "Unst", "Yell", "Hoy", "Iona", "Muck", "Canna", "Lismore"]
FOODS = ["kelp", "mussels", "clover", "heather", "barley", "sandeels", "crabs", "moss", "oats",
         "limpets", "beetles", "seeds", "worms", "berries", "grass", "shrimp", "snails", "ferns",
         "acorns", "roots"]


def _write_set(folder, more=0):
    """A golden set: 3 answerable questions and 1 unanswerable, plus ``more`` answerable."""
    docs = [
        ("d1", "Honeybees", "Honeybees communicate the direction of food with a waggle dance."),
        ("d2", "Bumblebees", "Bumblebees can fly in cooler weather than honeybees."),
        ("d3", "Volcanoes", "Basaltic lava flows are fluid and spread over long distances."),
        ("d4", "Tides", "Spring tides happen when the sun and moon align."),
    ]
    docs += [(f"i{i}", f"The voles of {island}", f"The voles of {island} eat mostly {food}.")
             for i, (island, food) in enumerate(zip(ISLANDS[:more], FOODS, strict=False))]
    folder.mkdir()
    with (folder / "corpus.jsonl").open("w") as f:
        for i, title, text in docs:
            f.write(json.dumps({"_id": i, "title": title, "text": text}) + "\n")
    queries = [("q1", "How do honeybees tell others where food is?"),
               ("q2", "Why is basaltic lava runny?"), ("q3", "When are spring tides?"),
               ("q4", "Who invented the telescope?")]
    queries += [(f"v{i}", f"What do the voles of {island} eat?")
                for i, island in enumerate(ISLANDS[:more])]
    with (folder / "queries.jsonl").open("w") as f:
        for i, text in queries:
            f.write(json.dumps({"_id": i, "text": text}) + "\n")
    (folder / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n"
                                      "q3\td4\t1\n" + "".join(f"v{i}\ti{i}\t1\n"
                                                              for i in range(more)))
    (folder / "distractors.tsv").write_text("query-id\tcorpus-id\nq1\td2\n")


def test_kb_calibrate_measures_and_stores_per_fingerprint(tmp_path):
    _write_set(tmp_path / "set", more=17)  # 20 answerable questions: enough to store
    db = str(tmp_path / "kb.db")
    runner = CliRunner()
    (tmp_path / "bees.md").write_text("# Bees\n\nHoneybees dance to show where food is.\n")
    assert runner.invoke(cli, ["--db", db, "ingest", str(tmp_path / "bees.md")]).exit_code == 0
    r = runner.invoke(cli, ["--db", db, "calibrate", "--set", str(tmp_path / "set"), "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["stored"] and 0 < out["span"] < 1 and 0 <= out["floor"] <= 1
    assert out["queries"] == 21
    # this set's fit is no better than the shipped threshold on held-out questions (its one
    # unanswerable question): stored, and said
    assert out["judge_threshold_no_better"] is True
    assert "does no better than the shipped one" in r.stderr and "--reset" in r.stderr
    status = runner.invoke(cli, ["--db", db, "status", "--json"])
    assert status.exit_code == 0
    store = Store(db)
    raw = store.get_meta(f"calibration:{out['fingerprint']}")
    judge = store.get_meta(f"judge_threshold:{out['fingerprint']}")
    store.close()
    assert raw and json.loads(raw)["span"] == out["span"]
    # the judge's threshold, fitted on the set's questions (q4 has no qrels row: unanswerable)
    assert 0 < out["judge_threshold"] <= 1 and out["judge_false_refusal_rate"] <= 0.34
    assert judge and json.loads(judge)["threshold"] == out["judge_threshold"]
    # kb status shows the threshold in use and where it comes from
    info = json.loads(status.output)
    assert info["judge_threshold"] == out["judge_threshold"]
    assert info["judge_threshold_source"] == json.loads(raw)["source"]
    assert info["judge_threshold_source"].startswith("kb calibrate ")
    assert info["judge_threshold_source"].endswith(" on set")
    text = runner.invoke(cli, ["--db", db, "status"]).output
    lines = dict(line.split(None, 1) for line in text.splitlines())
    assert lines["judge_threshold_source"] == info["judge_threshold_source"]
    # --reset: back to the shipped defaults
    r = runner.invoke(cli, ["--db", db, "calibrate", "--reset", "--set", "precision"])
    assert r.exit_code == 2 and "--reset takes no --set" in r.stderr
    r = runner.invoke(cli, ["--db", db, "calibrate", "--reset", "--json"])
    assert r.exit_code == 0, r.output
    reset = json.loads(r.stdout)
    assert set(reset["removed"]) == {f"calibration:{out['fingerprint']}",
                                     f"judge_threshold:{out['fingerprint']}"}
    assert reset["judge_threshold_source"].startswith("shipped (fitted ")
    info = json.loads(runner.invoke(cli, ["--db", db, "status", "--json"]).output)
    assert info["judge_threshold_source"] == reset["judge_threshold_source"]
    assert info["judge_threshold"] == reset["judge_threshold"] != out["judge_threshold"]
    store = Store(db)
    assert store.get_meta(f"calibration:{out['fingerprint']}") is None
    store.close()
    r = runner.invoke(cli, ["--db", db, "calibrate", "--reset"])
    assert r.exit_code == 0 and "nothing to reset" in r.output


def test_status_shows_the_shipped_judge_threshold_of_a_bm25_index(tmp_path):
    (tmp_path / "a.md").write_text("# Gulls\n\nGulls nest on the cliffs.\n")
    db = str(tmp_path / "kb.db")
    env = {"KB_EMBEDDER": "none"}
    assert CliRunner().invoke(cli, ["--db", db, "ingest", str(tmp_path / "a.md")],
                              env=env).exit_code == 0
    r = CliRunner().invoke(cli, ["--db", db, "status"], env=env)
    lines = dict(line.split(None, 1) for line in r.output.splitlines())
    assert float(lines["judge_threshold"]) == shipped_model(None).threshold
    assert lines["judge_threshold_source"] == f"shipped ({shipped_model(None).source})"


def _calibrate(tmp_path, folder, *extra):
    return CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "calibrate", "--set",
                                    str(folder), *extra])


def test_a_qrels_row_naming_a_missing_corpus_id_is_an_error_naming_it(tmp_path):
    folder = tmp_path / "set"
    _write_set(folder)
    with (folder / "qrels.tsv").open("a") as f:
        f.write("q4\td9\t1\nq9\td1\t1\n")  # d9 is no document, q9 no query
    r = _calibrate(tmp_path, folder)
    assert r.exit_code == 2, r.output
    assert r.stderr == (f"kb: error: {folder / 'qrels.tsv'} names corpus ids that are not in "
                        f"{folder / 'corpus.jsonl'}: 'd9' (query 'q4'); {folder / 'qrels.tsv'} "
                        f"names query ids that are not in {folder / 'queries.jsonl'}: 'q9'\n")
    assert not (tmp_path / "kb.db").exists()  # refused before anything was opened or stored


def test_input_errors_of_calibrate_all_exit_2(tmp_path):
    folder = tmp_path / "set"
    _write_set(folder)
    (folder / "queries.jsonl").unlink()
    r = _calibrate(tmp_path, folder)
    assert r.exit_code == 2
    assert r.stderr == f"kb: error: no queries.jsonl.gz or queries.jsonl in {folder}\n"
    r = _calibrate(tmp_path, tmp_path / "missing")
    assert r.exit_code == 2 and "no such folder" in r.stderr
    r = _calibrate(tmp_path, "no-such-bundled-set")
    assert r.exit_code == 2 and "unknown dataset" in r.stderr
    _write_set(tmp_path / "unjudged")
    (tmp_path / "unjudged" / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t0\n")
    r = _calibrate(tmp_path, tmp_path / "unjudged", "--dry-run")
    assert r.exit_code == 2 and "no query has a relevant document" in r.stderr
    assert "exit" in CliRunner().invoke(cli, ["calibrate", "--help"]).output.lower()


def test_a_set_of_few_answerable_questions_is_measured_but_never_stored(tmp_path):
    # a new-user trial: 3 answerable questions stored a threshold of 0.97, and every answer
    # on the user's notes was refused after
    folder = tmp_path / "set"
    _write_set(folder)
    r = _calibrate(tmp_path, folder)
    assert r.exit_code == 2, r.output
    assert r.stderr == (f"kb: error: {folder}: 3 answerable question(s); a calibration is "
                        "stored only from 20 or more (with fewer the threshold fits these "
                        "questions, not your documents): add questions, or run with --dry-run "
                        "to see the figures without storing them\n")
    assert not (tmp_path / "kb.db").exists()  # refused before anything was opened
    r = _calibrate(tmp_path, folder, "--dry-run", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["stored"] is False


def test_bm25_only_calibration_stores_the_lexical_judge_threshold_alone(tmp_path):
    # a user without an embedder used to get "cannot calibrate: no embedder configured" (and
    # an index file created by the refusal); the judge runs on BM25 alone, so its threshold
    # can be fitted there
    _write_set(tmp_path / "set", more=17)
    db = tmp_path / "kb.db"
    env = {"KB_EMBEDDER": "none"}
    runner = CliRunner()
    r = runner.invoke(cli, ["--db", str(db), "calibrate", "--set", str(tmp_path / "set"),
                            "--dry-run", "--json"], env=env)
    assert r.exit_code == 0, r.output
    dry = json.loads(r.stdout)
    assert not db.exists()  # a dry run never opens (or creates) the index
    assert dry["fingerprint"] == "lexical" and dry["stored"] is False
    assert "span" not in dry and dry["vector_calibration"].startswith("skipped")
    r = runner.invoke(cli, ["--db", str(db), "calibrate", "--set", str(tmp_path / "set"),
                            "--json"], env=env)
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["stored"] and out["judge_threshold"] == dry["judge_threshold"]
    assert 0 < out["judge_threshold"] <= 1
    assert out["judge_threshold_shipped"] == shipped_model(None).threshold
    assert (out["answerable"], out["unanswerable"]) == (20, 1)
    # the rates at the shipped threshold too: what the calibration changed (a trial could
    # not tell whether its calibration helped)
    assert out["judge_refusal_rate_shipped"] in (0.0, 1.0)  # one unanswerable question
    assert 0 <= out["judge_false_refusal_rate_shipped"] <= 1
    # and with each question judged by a threshold fitted without it (what new ones would see)
    assert out["judge_refusal_rate_held_out"] in (0.0, 1.0)
    assert 0 <= out["judge_false_refusal_rate_held_out"] <= 1
    assert out["judge_source"].startswith("kb calibrate ") and out["judge_source"].endswith(" set")
    assert f"kb: note: created {db}" in r.stderr  # a new index, holding only the calibration
    store = Store(str(db))
    stored = store.get_meta("judge_threshold:lexical")
    vector_rows = store.conn.execute(
        "SELECT count(*) FROM meta WHERE key LIKE 'calibration:%'").fetchone()[0]
    store.close()
    assert stored and json.loads(stored)["threshold"] == out["judge_threshold"]
    assert vector_rows == 0  # no vector scale stored without vectors
    info = json.loads(runner.invoke(cli, ["--db", str(db), "status", "--json"], env=env).output)
    assert info["judge_threshold"] == out["judge_threshold"]
    assert info["judge_threshold_source"] == out["judge_source"]
    r = runner.invoke(cli, ["--db", str(db), "calibrate", "--set", str(tmp_path / "set"),
                            "--json"], env=env)
    assert r.exit_code == 0 and "created" not in r.stderr  # the index exists now
    # a set without an answerable question says so (the vector calibration said it before)
    _write_set(tmp_path / "unjudged")
    (tmp_path / "unjudged" / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\n")
    r = runner.invoke(cli, ["--db", str(db), "calibrate", "--set", str(tmp_path / "unjudged"),
                            "--dry-run"], env=env)
    assert r.exit_code == 2 and "no query has a relevant document" in r.stderr


def test_an_embedder_that_cannot_load_refuses_the_calibration_and_creates_no_index(tmp_path):
    _write_set(tmp_path / "set", more=17)
    r = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "calibrate", "--set",
                                 str(tmp_path / "set")],
                           env={"KB_EMBEDDER": "ollama:nomic-embed-text",
                                "OLLAMA_HOST": closed_port_url()})  # nothing listens there
    assert r.exit_code == 1, r.output
    assert r.stderr.startswith("kb: error: cannot calibrate: ")
    assert "--embedder none" in r.stderr
    assert not (tmp_path / "kb.db").exists()


def test_the_scratch_index_embeds_with_the_users_server_settings(tmp_path, srv):
    # the review's case: the scratch index was built from the embedder's name alone, so a
    # remote Ollama (OLLAMA_HOST) was never asked and the calibration was refused
    _write_set(tmp_path / "set", more=17)
    r = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "calibrate", "--set",
                                 str(tmp_path / "set"), "--dry-run", "--json"],
                           env={"KB_EMBEDDER": "ollama:nomic-embed-text",
                                "OLLAMA_HOST": srv.url})
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["fingerprint"].startswith("ollama:nomic-embed-text") and 0 < out["span"]
    assert "/api/embed" in srv.paths()
    assert not (tmp_path / "kb.db").exists()


def test_an_index_that_cannot_be_written_is_refused_before_anything_is_measured(tmp_path):
    _write_set(tmp_path / "set", more=17)
    r = CliRunner().invoke(cli, ["--db", str(tmp_path / "no-such-folder" / "kb.db"),
                                 "calibrate", "--set", str(tmp_path / "set")],
                           env={"KB_EMBEDDER": "none"})
    assert r.exit_code == 1
    assert "the folder" in r.stderr and "does not exist" in r.stderr
    assert not (tmp_path / "no-such-folder").exists()


def test_the_scratch_index_calls_no_chat_model_the_user_configured(tmp_path, srv):
    # the review's case: with KB_LLM set, the calibration's searches expanded and graded every
    # question with the chat model, and fitted the threshold to that scorer, not the judge's
    _write_set(tmp_path / "set", more=17)
    r = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "calibrate", "--set",
                                 str(tmp_path / "set"), "--dry-run"],
                           env={"KB_EMBEDDER": "none", "KB_LLM": "ollama:qwen2.5:3b",
                                "OLLAMA_HOST": srv.url})
    assert r.exit_code == 0, r.output
    assert srv.chat_prompts() == []
    lines = dict(line.split(None, 1) for line in r.stdout.splitlines())
    assert lines["stored"] == "no" and lines["fingerprint"] == "lexical"


def test_an_index_path_that_is_a_folder_is_refused_before_anything_is_measured(tmp_path):
    _write_set(tmp_path / "set", more=17)
    (tmp_path / "dir.db").mkdir()
    r = CliRunner().invoke(cli, ["calibrate", "--set", str(tmp_path / "set")],
                           env={"KB_EMBEDDER": "none", "KB_DB": str(tmp_path / "dir.db")})
    assert r.exit_code == 1 and "not a file" in r.stderr


def test_rates_at_a_threshold_count_a_question_below_it_or_at_zero_as_refused() -> None:
    from kb.eval.calibrate import JudgeCalibration

    measured = JudgeCalibration(0.1, None, 0.0, 3, 2, "test", best_answerable=(0.5, 0.0, 0.05),
                                best_unanswerable=(0.02, 0.3))
    # refused: unanswerable 0.02 (of 0.02, 0.3); answerable 0.0 and 0.05 (of three)
    assert measured.rates_at(0.1) == (0.5, pytest.approx(2 / 3))
    assert measured.rates_at(0.01) == (0.0, pytest.approx(1 / 3))  # 0 is refused at any
    assert JudgeCalibration(0.1, None, 0.0, 1, 0, "t", (0.5,), ()).rates_at(0.1) == (None, 0.0)


def test_held_out_rates_judge_each_question_by_a_threshold_fitted_without_it() -> None:
    from kb.eval.calibrate import held_out_rates, judge_threshold

    a, u = np.array([0.9, 0.8, 0.7]), np.array([0.1, 0.2])
    # fitted on all five: 0.7 refuses both unanswerable questions and no answerable one
    assert judge_threshold(a, u) == 0.7
    # one question per fold: without 0.7 the threshold fitted is 0.8, which refuses it; the
    # others are judged at 0.7 (0.9 and 0.8 pass, 0.1 and 0.2 are refused)
    assert held_out_rates(a, u, folds=5) == (1.0, pytest.approx(1 / 3))
    assert held_out_rates(a, u) == held_out_rates(a, u, folds=5)  # no more folds than questions
    assert held_out_rates(a, np.array([]))[0] is None  # no unanswerable question


def test_a_threshold_no_better_held_out_than_the_shipped_one_is_named():
    # a trial's: 0.22 of its unanswerable questions refused held out against 0.33 at the
    # shipped threshold, both at 0.147 false refusal: stored without a word
    assert no_better((0.2222, 0.1471), (0.3333, 0.1471))
    assert not no_better((0.3333, 0.1471), (0.3333, 0.1471))  # the same: nothing lost
    assert not no_better((0.5, 0.2), (0.3333, 0.1471))  # more refused for more false refusal
    assert no_better((0.3, 0.2), (0.3333, 0.1471))
    assert not no_better((0.3333, 0.10), (0.3333, 0.1471))  # fewer answers refused
    assert no_better((None, 0.2), (None, 0.1)) and not no_better((None, 0.1), (None, 0.1))
