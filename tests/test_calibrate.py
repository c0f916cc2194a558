import json

import numpy as np
from click.testing import CliRunner

from eval.calibrate import youden_threshold
from kb.cli import cli


def test_youden_threshold_separates_hand_made_samples():
    pos = np.array([0.9, 1.0, 1.1, 1.2])
    neg = np.array([0.2, 0.3, 0.5, 0.95])
    t, tpr, fpr = youden_threshold(pos, neg)
    # at t = 0.9: TPR 4/4, FPR 1/4 (0.95) -> J = 0.75, the best any threshold reaches
    assert t == 0.9 and tpr == 1.0 and fpr == 0.25


def _write_set(folder):
    docs = [
        ("d1", "Honeybees", "Honeybees communicate the direction of food with a waggle dance."),
        ("d2", "Bumblebees", "Bumblebees can fly in cooler weather than honeybees."),
        ("d3", "Volcanoes", "Basaltic lava flows are fluid and spread over long distances."),
        ("d4", "Tides", "Spring tides happen when the sun and moon align."),
    ]
    folder.mkdir()
    with (folder / "corpus.jsonl").open("w") as f:
        for i, title, text in docs:
            f.write(json.dumps({"_id": i, "title": title, "text": text}) + "\n")
    queries = [("q1", "How do honeybees tell others where food is?"),
               ("q2", "Why is basaltic lava runny?"), ("q3", "When are spring tides?"),
               ("q4", "Who invented the telescope?")]
    with (folder / "queries.jsonl").open("w") as f:
        for i, text in queries:
            f.write(json.dumps({"_id": i, "text": text}) + "\n")
    (folder / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n"
                                      "q3\td4\t1\n")
    (folder / "distractors.tsv").write_text("query-id\tcorpus-id\nq1\td2\n")


def test_kb_calibrate_measures_and_stores_per_fingerprint(tmp_path):
    _write_set(tmp_path / "set")
    db = str(tmp_path / "kb.db")
    runner = CliRunner()
    r = runner.invoke(cli, ["--db", db, "calibrate", "--set", str(tmp_path / "set"), "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["stored"] and 0 < out["span"] < 1 and 0 <= out["floor"] <= 1
    assert out["queries"] == 4
    status = runner.invoke(cli, ["--db", db, "status", "--json"])
    assert status.exit_code == 0
    from kb.store import Store

    store = Store(db)
    raw = store.get_meta(f"calibration:{out['fingerprint']}")
    judge = store.get_meta(f"judge_threshold:{out['fingerprint']}")
    store.close()
    assert raw and json.loads(raw)["span"] == out["span"]
    # the judge's threshold, fitted on the set's questions (q4 has no qrels row: unanswerable)
    assert 0 < out["judge_threshold"] <= 1 and out["judge_false_refusal_rate"] <= 0.34
    assert judge and json.loads(judge)["threshold"] == out["judge_threshold"]
