"""golden/answerability: formats, verbatim answers, and a test split no fitting can see."""

import json
from collections import Counter

import pytest

from kb.eval.answerability import PARTS, holds_answer, load_items, normalise, part_dir
from kb.eval.datasets import golden_dir


def _corpus(part):
    with (part_dir(part) / "corpus.jsonl").open(encoding="utf-8") as f:
        return {d["_id"]: d for d in map(json.loads, f)}


@pytest.mark.parametrize("part", PARTS)
def test_every_answer_is_verbatim_in_its_document_and_unanswerable_ones_have_none(part):
    corpus = _corpus(part)
    items = load_items(part)
    assert items and len({it._id for it in items}) == len(items)
    for it in items:
        assert it.doc in corpus and it.split in ("train", "test") and it.lang in ("en", "zh")
        text = normalise(corpus[it.doc]["text"])
        if it.answerable:
            assert any(normalise(a) in text for a in it.answers), it._id
        else:
            assert it.answers == (), it._id
    counts = Counter((it.split, it.answerable) for it in items)
    assert all(counts[(s, a)] >= 30 for s in ("train", "test") for a in (True, False)), counts


def test_own_questions_split_by_document_and_hold_60_near_topic_unanswerable_ones():
    corpus = _corpus("own")
    items = load_items("own")
    for it in items:
        assert it.split == corpus[it.doc]["split"]
    unanswerable = [it for it in items if not it.answerable]
    assert len(unanswerable) >= 60
    assert {it.lang for it in unanswerable} == {"en", "zh"}
    assert {corpus[it.doc]["lang"] for it in unanswerable} == {"en", "zh"}


def test_translations_keep_their_sources_split_and_answers():
    for part, lang in (("squad2", "zh"), ("cmrc", "en")):
        items = load_items(part)
        by_id = {it._id: it for it in items}
        translated = [it for it in items if it.lang == lang]
        assert translated
        for t in translated:
            source = by_id[t._id.rsplit("-", 1)[0]]
            assert (t.split, t.answerable, t.answers, t.doc) == (
                source.split, source.answerable, source.answers, source.doc)


def test_no_gate_set_shares_a_passage_with_the_cmrc_part():
    precision = (golden_dir() / "precision" / "corpus.jsonl").read_text(encoding="utf-8")
    small = {d for d in (golden_dir() / "cmrc2018-small" / "qrels.tsv").read_text().split()
             if d.startswith("cmrc-")}
    for doc_id in _corpus("cmrc"):
        assert f'"cmrc:{doc_id.removeprefix("cmrc-")}"' not in precision
        assert doc_id not in small


def test_answer_passages_are_chunks_of_the_right_paragraph():
    (item,) = [it for it in load_items("squad2") if it.text == "Who was the Norse leader?"]
    start, end = item.span
    assert holds_answer(item, "normans", "their leader Rollo", start + 5, start + 30)
    assert not holds_answer(item, "normans", "their leader Rollo", end + 5, end + 30)
    assert not holds_answer(item, "other", "their leader Rollo", start, end)
