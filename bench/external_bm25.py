"""An established external BM25 (bm25s, Lù 2024) on the same golden sets, beside kb's BM25.

bm25s indexes whole documents (title + text) with its own tokenizer and English stopwords
(PyStemmer-free, so no stemming); Chinese text is cut with jieba first. Scored with the same
metric code as kb (eval/metrics.py). Usage: python bench/external_bm25.py scifact cranfield
"""

from __future__ import annotations

import json
import sys

import bm25s

from kb.eval.datasets import dataset_dir, load_corpus, load_qrels, load_queries
from kb.eval.metrics import evaluate_run
from kb.store.textindex import has_cjk


def _prepare(texts: list[str]) -> list[str]:
    if not any(has_cjk(t) for t in texts[:50]):
        return texts
    import jieba

    return [" ".join(jieba.cut_for_search(t)) for t in texts]


def main() -> None:
    for name in sys.argv[1:] or ["scifact", "cranfield", "cmrc2018"]:
        ds = dataset_dir(name)
        corpus = load_corpus(ds)
        qrels = load_qrels(ds)
        queries = [q for q in load_queries(ds) if q._id in qrels]
        cjk = has_cjk(corpus[0].text)
        stop = None if cjk else "en"
        docs = _prepare([f"{d.title} {d.text}" for d in corpus])
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(docs, stopwords=stop, show_progress=False),
                        show_progress=False)
        tokens = bm25s.tokenize(_prepare([q.text for q in queries]), stopwords=stop,
                                show_progress=False)
        results, _ = retriever.retrieve(tokens, k=100, show_progress=False)
        run = {q._id: [corpus[i]._id for i in row] for q, row in zip(queries, results,
                                                                      strict=True)}
        m = evaluate_run(run, {q._id: qrels[q._id] for q in queries}, ks=(10, 100))
        print(json.dumps({"set": name, "engine": f"bm25s {bm25s.__version__}",
                          "ndcg@10": round(m["ndcg@10"], 4),
                          "recall@100": round(m["recall@100"], 4)}), flush=True)


if __name__ == "__main__":
    main()
