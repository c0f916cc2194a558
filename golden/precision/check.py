"""Validate golden/precision/ (standard library only).

    python golden/precision/check.py        # prints the counts, exits 1 on any failure

Checks:
  * file formats: corpus rows {_id, title, text, source, lang, topic}, unique ids; queries rows
    {_id, text, lang, kind, topic, answer}; qrels.tsv / distractors.tsv headers;
  * every qrels / distractors query id and document id exists;
  * no document is both relevant and a distractor for the same query;
  * answerable queries have at least one relevant document and at least one distractor;
    unanswerable queries have no qrels rows, an empty answer and at least one distractor;
  * each answer (each of `answer_parts` for multi_chunk queries) appears verbatim, after
    whitespace normalisation, in at least one relevant document and in no distractor -- and in no
    other non-relevant document of the corpus either;
  * multi_chunk answers have at least two parts; cross_language queries are in a different language
    from every relevant document; the `lang` fields agree with the script of the text;
  * documents copied from the other golden sets (scifact, cmrc2018, cranfield) are byte-identical
    to their source rows, when those sets are present next to this directory;
  * minimums: >= 40 queries, >= 30 documents, >= 5 unanswerable, >= 8 Chinese, >= 4
    cross_language queries, every kind present, >= 2 distractor documents per topic; total size
    < 300 KB.
"""
import collections
import csv
import gzip
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.dirname(HERE)
KINDS = ('paraphrase', 'exact_term', 'cross_language', 'code_symbol', 'multi_chunk', 'unanswerable')
FILES = ('corpus.jsonl', 'queries.jsonl', 'qrels.tsv', 'distractors.tsv')
MIN = {'queries': 40, 'docs': 30, 'unanswerable': 5, 'zh': 8, 'cross_language': 4,
       'distractors_per_topic': 2}
MAX_BYTES = 300 * 1024

errors = []


def err(msg):
    errors.append(msg)


def norm(s):
    return ' '.join(s.split())


def cjk_share(s):
    letters = [c for c in s if c.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for c in letters if '\u4e00' <= c <= '\u9fff') / len(letters)


def script_lang(s):
    return 'zh' if cjk_share(s) > 0.3 else 'en'


def read_jsonl(name):
    rows = []
    with open(os.path.join(HERE, name), encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError as e:
                    err(f'{name}:{n}: bad JSON ({e})')
    return rows


def read_tsv(name, header):
    with open(os.path.join(HERE, name), encoding='utf-8', newline='') as f:
        rows = list(csv.reader(f, delimiter='\t'))
    if not rows or rows[0] != header:
        err(f'{name}: header must be {header!r}, got {rows[0] if rows else None!r}')
        return []
    for n, r in enumerate(rows[1:], 2):
        if len(r) != len(header):
            err(f'{name}:{n}: expected {len(header)} columns, got {r!r}')
    return [r for r in rows[1:] if len(r) == len(header)]


def parent_rows(name):
    path = os.path.join(GOLDEN, name, 'corpus.jsonl.gz')
    if not os.path.exists(path):
        return None
    with gzip.open(path, 'rt', encoding='utf-8') as f:
        return {d['_id']: d for d in map(json.loads, f)}


def main():
    for name in FILES:
        if not os.path.exists(os.path.join(HERE, name)):
            print(f'missing {name}')
            return 1

    corpus = read_jsonl('corpus.jsonl')
    docs = {}
    for d in corpus:
        for k in ('_id', 'title', 'text', 'source', 'lang', 'topic'):
            if not isinstance(d.get(k), str):
                err(f'corpus: {d.get("_id")!r} lacks string field {k!r}')
        if d.get('_id') in docs:
            err(f'corpus: duplicate _id {d["_id"]}')
        docs[d.get('_id')] = d
        if d.get('lang') not in ('en', 'zh'):
            err(f'corpus {d.get("_id")}: lang must be en or zh')
        elif script_lang(d.get('text', '')) != d['lang']:
            err(f'corpus {d["_id"]}: lang {d["lang"]} does not match the text')
        if not d.get('text', '').strip():
            err(f'corpus {d.get("_id")}: empty text')

    queries = read_jsonl('queries.jsonl')
    qs = {}
    for q in queries:
        for k in ('_id', 'text', 'lang', 'kind', 'topic', 'answer'):
            if not isinstance(q.get(k), str):
                err(f'queries: {q.get("_id")!r} lacks string field {k!r}')
        if q.get('_id') in qs:
            err(f'queries: duplicate _id {q["_id"]}')
        qs[q.get('_id')] = q
        if q.get('kind') not in KINDS:
            err(f'query {q.get("_id")}: kind {q.get("kind")!r} not in {KINDS}')
        if q.get('lang') not in ('en', 'zh'):
            err(f'query {q.get("_id")}: lang must be en or zh')
        elif script_lang(q.get('text', '')) != q['lang']:
            err(f'query {q["_id"]}: lang {q["lang"]} does not match the text')

    rel = collections.defaultdict(set)
    for qid, did, score in read_tsv('qrels.tsv', ['query-id', 'corpus-id', 'score']):
        if qid not in qs:
            err(f'qrels: unknown query {qid}')
        if did not in docs:
            err(f'qrels: unknown document {did}')
            continue
        if not re.fullmatch(r'-?\d+', score):
            err(f'qrels: score {score!r} is not an integer')
        elif int(score) > 0:
            rel[qid].add(did)
    dis = collections.defaultdict(set)
    for qid, did in read_tsv('distractors.tsv', ['query-id', 'corpus-id']):
        if qid not in qs:
            err(f'distractors: unknown query {qid}')
        if did not in docs:
            err(f'distractors: unknown document {did}')
            continue
        if did in dis[qid]:
            err(f'distractors: duplicate row {qid} {did}')
        dis[qid].add(did)

    normtext = {i: norm(d.get('title', '') + '\n' + d.get('text', '')) for i, d in docs.items()}
    for qid, q in qs.items():
        both = rel[qid] & dis[qid]
        if both:
            err(f'query {qid}: relevant and distractor at once: {sorted(both)}')
        if not dis[qid]:
            err(f'query {qid}: no distractor')
        if q.get('kind') == 'unanswerable':
            if rel[qid]:
                err(f'query {qid}: unanswerable but has qrels {sorted(rel[qid])}')
            if q.get('answer'):
                err(f'query {qid}: unanswerable but has an answer')
            continue
        if not rel[qid]:
            err(f'query {qid}: answerable but has no relevant document')
            continue
        if q.get('kind') == 'multi_chunk':
            parts = q.get('answer_parts')
            if not (isinstance(parts, list) and len(parts) >= 2):
                err(f'query {qid}: multi_chunk needs answer_parts with >= 2 strings')
                parts = [q.get('answer', '')]
            elif q.get('answer') != ' | '.join(parts):
                err(f'query {qid}: answer must be the answer_parts joined by " | "')
        else:
            parts = [q.get('answer', '')]
        for part in parts:
            p = norm(part)
            if not p:
                err(f'query {qid}: empty answer')
                continue
            if not any(p in normtext[d] for d in rel[qid]):
                err(f'query {qid}: answer {part!r} not found in any relevant document')
            for d in sorted(dis[qid]):
                if p in normtext[d]:
                    err(f'query {qid}: answer {part!r} found in distractor {d}')
            for d in sorted(set(docs) - rel[qid] - dis[qid]):
                if p in normtext[d]:
                    err(f'query {qid}: answer {part!r} found in non-relevant document {d}')
        if q.get('kind') == 'multi_chunk' and len(parts) >= 2:
            # the parts must not all sit in one short passage: either several relevant documents
            # hold them, or they are far apart in one document
            holders = [{d for d in rel[qid] if norm(p) in normtext[d]} for p in parts]
            if len(rel[qid]) < 2 and all(len(h) == 1 for h in holders):
                t = normtext[next(iter(rel[qid]))]
                pos = sorted(t.find(norm(p)) for p in parts)
                if pos[-1] - pos[0] < 400:
                    err(f'query {qid}: multi_chunk parts lie within 400 characters of each other')
        if q.get('kind') == 'cross_language':
            same = [d for d in rel[qid] if docs[d].get('lang') == q.get('lang')]
            if same:
                err(f'query {qid}: cross_language but relevant {same} is in the query language')

    # provenance: copied rows must be identical to the parent golden sets
    verified = 0
    prefixes = {'scifact': ('scifact', lambda x: x), 'cmrc': ('cmrc2018', lambda x: f'cmrc-{x}'),
                'cranfield': ('cranfield', lambda x: x)}
    parents = {}
    for i, d in docs.items():
        src = d.get('source', '')
        name, _, orig = src.partition(':')
        if name not in prefixes:
            if not src.startswith('readability:'):
                err(f'corpus {i}: unknown source {src!r}')
            continue
        setname, key = prefixes[name]
        if setname not in parents:
            parents[setname] = parent_rows(setname)
        rows = parents[setname]
        if rows is None:
            continue
        p = rows.get(key(orig))
        if p is None:
            err(f'corpus {i}: source {src} not found in golden/{setname}')
        elif p['text'] != d.get('text') or p['title'] != d.get('title'):
            err(f'corpus {i}: text or title differs from golden/{setname} {key(orig)}')
        else:
            verified += 1

    # counts
    by_kind = collections.Counter(q.get('kind') for q in qs.values())
    by_lang = collections.Counter(q.get('lang') for q in qs.values())
    by_kind_lang = collections.Counter((q.get('kind'), q.get('lang')) for q in qs.values())
    docs_lang = collections.Counter(d.get('lang') for d in docs.values())
    topics = sorted({d.get('topic') for d in docs.values()} | {q.get('topic') for q in qs.values()})
    size = sum(os.path.getsize(os.path.join(HERE, n)) for n in FILES)

    print(f'documents: {len(docs)} ({dict(sorted(docs_lang.items()))}); '
          f'verified against parent sets: {verified}')
    print(f'queries: {len(qs)} ({dict(sorted(by_lang.items()))})')
    for k in KINDS:
        print(f'  {k:15s} {by_kind[k]:3d}  (en {by_kind_lang[(k, "en")]}, zh {by_kind_lang[(k, "zh")]})')
    print(f'qrels rows: {sum(len(v) for v in rel.values())}; '
          f'distractor rows: {sum(len(v) for v in dis.values())}')
    print(f'topics: {len(topics)}')
    for t in topics:
        tq = [i for i, q in qs.items() if q.get('topic') == t]
        tdocs = [i for i, d in docs.items() if d.get('topic') == t]
        tdis = set().union(*(dis[i] for i in tq)) if tq else set()
        trel = set().union(*(rel[i] for i in tq)) if tq else set()
        per_q = [len(dis[i]) for i in tq]
        print(f'  {t:16s} docs {len(tdocs):2d}  queries {len(tq):2d}  relevant docs {len(trel):2d}  '
              f'distractor docs {len(tdis):2d}  distractors/query {min(per_q) if per_q else 0}-'
              f'{max(per_q) if per_q else 0}')
        if len(tdis) < MIN['distractors_per_topic']:
            err(f'topic {t}: only {len(tdis)} distractor documents')
        off = [d for d in tdis | trel if docs.get(d, {}).get('topic') != t]
        if off:
            err(f'topic {t}: judged documents from another topic: {off}')
    print(f'total size: {size} bytes')

    if len(qs) < MIN['queries']:
        err(f'only {len(qs)} queries (< {MIN["queries"]})')
    if len(docs) < MIN['docs']:
        err(f'only {len(docs)} documents (< {MIN["docs"]})')
    if by_kind['unanswerable'] < MIN['unanswerable']:
        err(f'only {by_kind["unanswerable"]} unanswerable queries')
    if by_lang['zh'] < MIN['zh']:
        err(f'only {by_lang["zh"]} Chinese queries')
    if by_kind['cross_language'] < MIN['cross_language']:
        err(f'only {by_kind["cross_language"]} cross_language queries')
    for k in KINDS:
        if not by_kind[k]:
            err(f'no {k} query')
    if not (by_kind_lang[('cross_language', 'en')] and by_kind_lang[('cross_language', 'zh')]):
        err('cross_language queries must go both ways (en->zh and zh->en)')
    if size >= MAX_BYTES:
        err(f'total size {size} >= {MAX_BYTES}')

    if errors:
        print(f'\nFAILED: {len(errors)} problem(s)')
        for e in errors:
            print('  - ' + e)
        return 1
    print('\nOK')
    return 0


if __name__ == '__main__':
    sys.exit(main())
