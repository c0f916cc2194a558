"""The answerability set (``golden/answerability``): questions that a passage answers, or not.

Three parts, each a small corpus with questions, and a fixed ``train``/``test`` split that no
fitting ever sees the test side of (see ``golden/answerability/README.md``):

* ``squad2``: the SQuAD 2.0 article "Normans" as one document; 208 questions, 112 of them
  crowd-written to look answerable (Rajpurkar et al., ACL 2018), plus their Chinese
  translations. Test: the questions of every third paragraph (index % 3 == 2).
* ``cmrc``: CMRC 2018 passages, two in three cut in half so that questions about the missing
  half are on topic but unanswerable; plus English translations. Split by passage.
* ``own``: kb's own questions over real public documents, English and Chinese, answerable and
  near-topic unanswerable, each checked by reading the text. Split by document.

A question's *answer passages* are the chunks of its document (and, for SQuAD, of its
paragraph) whose text holds one of its gold answer strings; an unanswerable question has none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kb.eval.datasets import golden_dir

Part = Literal["squad2", "cmrc", "own"]
Split = Literal["train", "test"]
Kind = Literal["question", "nonsense", "offtopic"]
OFFTOPIC_PER_PART = 40  # other parts' questions asked of each part's index, per split
PARTS: tuple[Part, ...] = ("squad2", "cmrc", "own")
PART_DIRS: dict[Part, str] = {"squad2": "squad2-normans", "cmrc": "cmrc", "own": "own"}
SQUAD_TEST_EVERY = 3  # SQuAD paragraphs with index % 3 == 2 are the test split
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Item:
    """One question of the answerability set.

    Attributes:
        _id: unique within the set.
        part: which part it belongs to.
        split: ``train`` (fitting may see it) or ``test`` (never fitted on).
        text: the question.
        lang: the question's language (``en`` or ``zh``).
        answerable: whether the part's corpus holds the answer.
        answers: gold answer strings (empty when unanswerable), each verbatim in the corpus.
        doc: the corpus ``_id`` of the document the question is about.
        span: for SQuAD, the character span of the question's paragraph in the document's
            text; ``None`` elsewhere (the whole document).
        kind: ``question`` (of the part), ``nonsense`` or ``offtopic`` (``synthetic_items``).
    """

    _id: str
    part: Part
    split: Split
    text: str
    lang: str
    answerable: bool
    answers: tuple[str, ...]
    doc: str
    span: tuple[int, int] | None = None
    kind: Kind = "question"


def part_dir(part: Part) -> Path:
    """The folder of one part (BEIR-style ``corpus.jsonl`` inside)."""
    return golden_dir() / "answerability" / PART_DIRS[part]


def _rows(path: Path) -> Iterator[dict]:
    if not path.is_file():
        return
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def normalise(text: str) -> str:
    """Whitespace collapsed and case folded: how answers are found in passages."""
    return _SPACE.sub(" ", text).strip().casefold()


def load_items(part: Part) -> list[Item]:
    """Every question of one part, in file order (translations after their originals)."""
    folder = part_dir(part)
    if part == "squad2":
        return _squad_items(folder)
    if part == "cmrc":
        return _cmrc_items(folder)
    return _own_items(folder)


def _squad_items(folder: Path) -> list[Item]:
    paragraphs = list(_rows(folder / "paragraphs.jsonl"))
    spans: dict[str, tuple[int, int]] = {}
    offset = 0
    for p in paragraphs:  # the offsets make_squad_part.py joined them at
        spans[p["_id"]] = (offset, offset + len(p["text"]))
        offset += len(p["text"]) + 2
    index = {p["_id"]: i for i, p in enumerate(paragraphs)}
    items: list[Item] = []
    originals: dict[str, Item] = {}
    for q in _rows(folder / "questions.jsonl"):
        split: Split = ("test" if index[q["paragraph"]] % SQUAD_TEST_EVERY == 2 else "train")
        item = Item(q["_id"], "squad2", split, q["text"], "en", not q["is_impossible"],
                    tuple(q["answers"]), "normans", spans[q["paragraph"]])
        items.append(item)
        originals[item._id] = item
    for t in _rows(folder / "questions-zh.jsonl"):
        src = originals[t["source_id"]]
        items.append(Item(t["_id"], "squad2", src.split, t["text"], "zh", src.answerable,
                          src.answers, src.doc, src.span))
    return items


def _cmrc_items(folder: Path) -> list[Item]:
    items: list[Item] = []
    originals: dict[str, Item] = {}
    for q in _rows(folder / "questions.jsonl"):
        item = Item(q["_id"], "cmrc", q["split"], q["text"], "zh", q["answerable"],
                    tuple(q["answers"]), q["doc"])
        items.append(item)
        originals[item._id] = item
    for t in _rows(folder / "questions-en.jsonl"):
        src = originals[t["source_id"]]
        items.append(Item(t["_id"], "cmrc", src.split, t["text"], "en", src.answerable,
                          src.answers, src.doc))
    return items


def _own_items(folder: Path) -> list[Item]:
    splits = {d["_id"]: d["split"] for d in _rows(folder / "corpus.jsonl")}
    items: list[Item] = []
    for path in sorted(folder.glob("questions-*.jsonl")):
        for q in _rows(path):
            items.append(Item(q["_id"], "own", splits[q["doc"]], q["text"], q["lang"],
                              q["answerable"], tuple(q["answers"]), q["doc"]))
    return items


def holds_answer(item: Item, doc: str, text: str, char_start: int, char_end: int) -> bool:
    """Whether a chunk (of corpus document ``doc``, at these offsets) holds the item's answer.

    The chunk must belong to the question's document (and overlap its paragraph, for SQuAD)
    and contain one of the gold answers, whitespace and case normalised.
    """
    if not item.answerable or doc != item.doc:
        return False
    if item.span is not None and (char_end <= item.span[0] or char_start >= item.span[1]):
        return False
    body = normalise(text)
    return any(normalise(a) in body for a in item.answers if a.strip())


# Questions no knowledge base of documents answers, in six scripts: the judge refuses them on
# any index (tests/test_judge_refusals.py at 10 and 200 chunks, bench/judge.py at 10k, 100k).
REFUSE_ALWAYS = (
    "xyzabcxyz qwpl", "blorf quandle zibber", "啊啊啊嗯嗯", "щшзхъ фывап", "ثخحجد شسيبل",
    "ぬるぽ がっ ふがふが", "😀🎉🔥",  # nonsense
    "the", "what is it", "x", "of and or", "的", "是什么", "了吗",  # stop words only
    "How do I bake sourdough bread?", "What is the capital of Australia?", "豆腐怎么做才好吃",
    "昨晚的足球比赛谁赢了", "Как приготовить борщ?", "Какая погода завтра в Москве?",
    "كيف أطبخ الأرز؟", "ما هي عاصمة فرنسا؟", "寿司の作り方を教えてください", "⚽🏆❓",  # off topic
)

NONSENSE = {  # strings with no meaning in six scripts (and emoji): nothing can answer them
    "latin": ("xyzabcxyz qwpl", "blorf quandle zibber", "qqq vvv jjj", "mnbvcx lkjhg"),
    "cjk": ("啊啊啊嗯嗯", "呃哦嘿哈嗨", "嗯嗯哦哦啊", "咿呀嘿嘿呵"),
    "cyrillic": ("Привет как дела", "щшзхъ фывап", "ёжик в тумане зюзя"),
    "arabic": ("مرحبا كيف حالك", "ثخحجد شسيبل"),
    "japanese": ("すしをたべたい", "ぬるぽ がっ ふがふが"),
    "emoji": ("😀🎉🔥", "🦄🌈🍕 ✨"),
    "stop words": ("the", "what is it", "x", "的", "是什么", "and or but"),
}


def synthetic_items(part: Part, others: dict[Part, list[Item]], *, split: Split,
                    per_part: int = OFFTOPIC_PER_PART) -> list[Item]:
    """Unanswerable questions for one part's index: nonsense, stop words, other parts' questions.

    Questions written for another corpus are off topic here (none of the parts share a
    subject): the first ``per_part`` of each other part's questions of the same split, so no
    test question's text is ever a training item, and the reverse.
    """
    out: list[Item] = []
    for script, texts in NONSENSE.items():
        for i, text in enumerate(texts):
            if (i % 2 == 0) == (split == "train"):
                out.append(Item(f"{part}-nonsense-{script}-{i}", part, split, text, "-", False,
                                (), "", kind="nonsense"))
    for other, items in sorted(others.items()):
        if other == part:
            continue
        chosen = [it for it in items if it.split == split][:per_part]
        out += [Item(f"{part}-offtopic-{it._id}", part, split, it.text, it.lang, False, (), "",
                     kind="offtopic") for it in chosen]
    return out
