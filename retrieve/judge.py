"""Stage 6, judge: the probability that a candidate passage holds the answer (``answer_p``).

Offline and without an LLM, from evidence a cosine alone cannot see (DESIGN 4.5), for each of
the top ``JUDGE_TOP_N`` candidates:

1. **Evidence gate**: the passage (with its document's title, heading path and file name) must
   hold at least ``MIN_EVIDENCE`` of the query's idf mass (``kb.retrieve.terms``: stop and
   question words are no terms; Chinese and English terms also match their CC-CEDICT translations,
   ``kb.retrieve.lexicon``), and two of its terms, or its only term, or one *uncommon* term (in
   at most ``COMMON_SHARE`` of the chunks). A query of stop words, nonsense or one letter, or
   one sharing a single common word with a passage, finds no evidence: ``answer_p`` is 0; so
   does a passage in the question's script when the question names something the index never
   writes, nor a judged passage's file name (``kb.retrieve.subject.unwritten_names``: "the
   capital of Australia" where nothing says "Australia"; a passage in another script may
   write the name its own way; an acronym of two or three letters, "IP", not one holding every
   other focus term); so does a
   passage that writes none of the numbers the question names (``kb.retrieve.numbers``:
   "in 1066", "第一部"; one its document writes in a tenth of its chunks or its title is no
   constraint: "737" in a 737 MAX directive), dates by other months only ("March" against
   "30 April"), or numbers the kind asked by other ordinals only (第二季度 against a report
   of 第一季度, "the 11th century" against the 10th); so does a passage in the question's script
   of a document that writes none of the names other candidates' documents are about
   (nor do its folders), when its title names another or a passage of such a document
   passes the judge (``kb.retrieve.subject``: "Tidewell 有多少员工" on 青禾科技; Falcon项目的
   负责人 on other minutes when the Falcon note answers); so does
   a passage that holds no date, or no number in the unit asked, where the question asks for
   one outright (``kb.retrieve.answer_types.gated_type``: "In what year ...?" against a
   passage with no year), or whose dated (or numbered) clauses each tell of another event
   than the one a date is asked of (``kb.retrieve.events``: "When was X born?" against "In
   1921 X founded Y."), measure another dimension ("How deep?" against an elevation), or
   name a sibling of the numbered name asked (``kb.retrieve.siblings.siblings_filled``), the
   other side of a contrast asked ("first" for the last bus: ``kb.retrieve.contrasts``) or
   another item of a list the passage makes (血橙 for 脐橙: ``kb.retrieve.listmates``); so
   does a passage, in either script, that names in no word the event the question asks of
   (a birth, a death, a marriage, a founding, a launch, an acquisition:
   ``kb.retrieve.events.events_unnamed``; "When was Ossian Velt born?" against board minutes
   listing him as present), or the attribute, role or relative it asks of (a headcount, a
   chief executive, a son, ...: ``kb.retrieve.relations``), or, for a yes-or-no question,
   any of its focus names; so does one whose clauses on a question's focus each name a
   sibling ("Does the Lumo 2 support Matter?" against "The Lumo 3 supports Matter"), and one
   where the name asked is on the other side of the verb or role asked (``kb.retrieve.roles``).
2. **Signals**: coverage of the query's terms, and of its *focus* terms, those its document is
   not about (``kb.retrieve.subject``: not in its title or heading path, nor frequent); the
   idf mass of the focus terms missing; the share of the query no chunk holds; the best
   sentence's focus coverage; the answer type expected and a filler of it near that sentence
   (``kb.retrieve.answer_types``); vector and BM25 scores, the cosine above the median, the
   fused score against the best, the rank, scripts.
3. **Model**: a logistic regression (``kb.retrieve.judge_model``, fitted offline by
   ``bench/fit_judge.py`` on the ``train`` split of ``golden/answerability``; only numpy at
   query time; each feature held to its fitted range first) gives ``answer_p`` in [0, 1],
   higher is better. A passage passes at ``answer_p`` >= the threshold; passing passages
   within ``kb.retrieve.handout.HAND_OUT_SHARE`` of the best are handed out, and none
   passing flags the search ``insufficient_evidence``. Each signal's AUC alone, the model's
   and the refusal rates are in ``bench/README.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial

import numpy as np

from kb.retrieve.answer_types import (
    HEADING,
    AnswerType,
    answer_type,
    best_sentence,
    filler_apart,
    gated_type,
    novel_filler,
    sentences,
)
from kb.retrieve.contrasts import contrast_filled
from kb.retrieve.crosslang import script_of
from kb.retrieve.events import other_dimensions_measured, other_events_dated
from kb.retrieve.judge_data import IndexStats, Passage, Signals, Verdict
from kb.retrieve.judge_model import JudgeModel
from kb.retrieve.listmates import mates_filled
from kb.retrieve.numbers import (
    document_numbers,
    missing_numbers,
    months_apart,
    named_numbers,
    sibling_written,
)
from kb.retrieve.ordinals import ordinals_apart
from kb.retrieve.relations import asked_unnamed, holds_focus
from kb.retrieve.relatives import event_of_another, relative_elsewhere
from kb.retrieve.roles import roles_swapped
from kb.retrieve.siblings import siblings_filled
from kb.retrieve.subject import (
    document_topics,
    file_name_words,
    named_terms,
    names_elsewhere,
    other_subject,
    owner_outranks,
    subject_terms,
    unwritten_names,
    unwritten_subject,
)
from kb.retrieve.terms import Term, coverage, idf_of, passage_terms, term_df

JUDGE_TOP_N = 10  # candidates judged per query; bench/fit_judge.py fits on the same 10
# Evidence gate: the idf share a passage must hold. 0.2 kept 94% of the answerable training
# questions' answers and refused 91% of the off-topic ones (kb's judge rows, train split).
MIN_EVIDENCE = 0.2
COMMON_SHARE = 0.1  # a term in more than a tenth of the chunks is common (a single one: none)
COMMON_MIN_CHUNKS = 10  # ... and in more than ten of them: in a small index nothing is common
# 1 of 5 equally weighted terms sums to 0.19999999999999998: the gate compares with this slack
EVIDENCE_SLACK = 1e-9
# Fewer cosines than this (a search scoped to a document or two) make no median: the cosine
# above it is read from the passage's vector s_norm, by the line the train rows fit (r 0.69)
MEDIAN_MIN_CANDIDATES, COSINE_REL_SLOPE, COSINE_REL_AT_0 = 5, 0.078, -0.020

FEATURES: tuple[str, ...] = (
    "evidence", "focus_coverage", "focus_missing", "absent", "sentence_focus", "typed",
    "type_found", "vector", "cosine_rel", "keyword", "fused_rel", "rank", "cross_language",
)


def judge(query: str, terms: Sequence[Term], passages: Sequence[Passage], stats: IndexStats,
          model: JudgeModel) -> list[Verdict]:
    """Judge each passage: ``answer_p``, pass or not, and the signals behind it.

    Args:
        query: the user's question.
        terms: its content terms (``kb.retrieve.terms.content_terms``).
        passages: the candidates to judge, best first by fused score.
        stats: index statistics for the terms and the passages' documents.
        model: the fitted model and threshold.

    Returns:
        One verdict per passage, in the order given; ``answer_p`` is 0 for a passage that
        fails the evidence gate.
    """
    signals = passage_signals(query, terms, passages, stats)
    probs = [model.probability(s.features) if s.gate else 0.0 for s in signals]
    passed = [s.gate and prob >= model.threshold for s, prob in zip(signals, probs, strict=True)]
    # another project's minutes, when the Falcon note answers too (kb.retrieve.subject)
    outranked = owner_outranks([p.doc_id for p in passages], [s.about_subject for s in signals],
                               passed, [s.subject_unwritten for s in signals])
    return [Verdict(p.chunk_id, 0.0, False, replace(
                s, gate=False, subject_apart=s.subject_unwritten))
            if o else Verdict(p.chunk_id, prob, ok, s)
            for p, s, prob, ok, o in zip(passages, signals, probs, passed, outranked, strict=True)]


def passage_signals(query: str, terms: Sequence[Term], passages: Sequence[Passage],
                    stats: IndexStats) -> list[Signals]:
    """One ``Signals`` per passage (see the module docstring), features named as ``FEATURES``.

    ``terms`` are the query's content terms; ``passages`` the candidates, best first by fused
    score (may be empty); ``stats`` the index statistics.
    """
    n = max(stats.n_chunks, 1)
    weights = [idf_of(t, stats.df, n) for t in terms]
    max_idf = float(np.log(1.0 + (n + 0.5) / 0.5))  # a term in no chunk
    total = sum(weights)
    absent = (sum(w for t, w in zip(terms, weights, strict=True) if term_df(t, stats.df) == 0)
              / total) if total else 0.0
    common = {t.text for t in terms
              if term_df(t, stats.df) > max(COMMON_SHARE * n, COMMON_MIN_CHUNKS)}
    # the title and heading path, and the file's name ("zen-of-python.pdf" for a PDF titled
    # "PDF Example Document"): a name one of them writes is written (kb.retrieve.subject)
    contexts = [passage_terms(f"{p.context}\n{file_name_words(p.source)}") for p in passages]
    unknown, plain = unwritten_names(terms, query, stats.df, complete=stats.complete,
                                     named_by=contexts)
    wanted = answer_type(query)
    demanded = gated_type(query)  # a year, a date or a count asked outright
    numbers = named_numbers(query)
    term_numbers = {t.text: named_numbers(t.surface or t.text) | {t.text}
                    for t in terms} if numbers else {}
    q_script = script_of(query)
    cosines = [p.cosine for p in passages if p.cosine is not None]
    median_cos = float(np.median(cosines)) if len(cosines) >= MEDIAN_MIN_CANDIDATES else None
    best_fused = max((p.fused for p in passages), default=0.0)  # all 0: each ties the best
    topics = [document_topics(terms, p.doc_id, c, stats.doc_chunks, stats.doc_term_chunks)
              for p, c in zip(passages, contexts, strict=True)]
    # a name in a tenth of the chunks is the collection's background (中国 in a Chinese wiki)
    subject = subject_terms(topics, named_terms(query, terms) - common, frozenset(
        t.text for t in terms if term_df(t, stats.df) > 0))
    out = []
    for rank, (p, context, topic) in enumerate(zip(passages, contexts, topics, strict=True)):
        holder = passage_terms(p.text)
        full = holder.union(context)
        held = [t for t in terms if full.has(t)]
        ev = coverage(terms, weights, full) if terms else 0.0
        p_script = script_of(p.text)
        crossed = "none" not in (q_script, p_script) and q_script != p_script
        titled = f"{p.text}\n{p.context}"  # the passage with its title and headings
        lacking: tuple[str, ...] = months_apart(query, titled) or ordinals_apart(query, titled)
        if numbers and not lacking:  # those its document writes set the scene ("737" in a
            # 737 MAX directive, "50 L" in an abstract's first chunk): it must write another
            exempt = document_numbers(terms, p.doc_id, stats.doc_chunks,
                                      stats.doc_term_chunks) | topic
            free = frozenset(n for n in numbers if not any(  # "CAPP2", "third", "737"
                t.text in exempt and n in term_numbers[t.text] for t in terms))
            lacking = missing_numbers(free, titled)
            if lacking and sibling_written(terms, term_numbers, free, titled):
                lacking = ()
        # about another subject ("Tidewell 有多少员工" on 青禾科技's note: kb.retrieve.subject)
        unwritten = () if crossed or not stats.complete else unwritten_subject(
            terms, subject, p.doc_id, full, stats.doc_term_chunks, p.source)
        elsewhere = other_subject(unwritten, names_elsewhere(p.context, p.text, query)
                                  if unwritten else ())
        # the event or attribute a typed question asks of, named nowhere ("How do I launch
        # the server?" asks of no event)
        focus = [(t, w) for t, w in zip(terms, weights, strict=True) if t.text not in topic]
        f_terms, f_weights = [t for t, _ in focus], [w for _, w in focus]
        unnamed = asked_unnamed(query, wanted, p.text, p.context, () if crossed else f_terms,
                                full) + (() if crossed else relative_elsewhere(query, p.text,
                                                                                p.context))
        swapped = () if crossed else roles_swapped(query, p.text)  # "Who replaced the Lumo 3?"
        named = not unknown or all(unknown.values()) and bool(asked := [
            t for t in f_terms if t.text in plain]) and all(full.has(t) for t in asked)
        gate = (crossed or named) and not (lacking or elsewhere or unnamed or swapped) and (
            ev >= MIN_EVIDENCE - EVIDENCE_SLACK) and (
            len(held) >= min(2, len(terms)) or any(t.text not in common for t in held))
        missing = [(t, w) for t, w in focus if not holder.has(t)]
        sents = sentences(p.text) or [p.text]
        opening = next((i for i, x in enumerate(sents) if not HEADING.match(x)), 0)
        best, best_cover, filler = opening, 0.0, None  # shown for a passage failing the gate
        if gate:  # sentence evidence only where the model will score the passage
            best, best_cover, window = best_sentence(sents, terms, weights, f_terms,
                                                     f_weights, p.text)
            filler = novel_filler(window, wanted, query, terms) if wanted != "other" else None
        # no date or number where one is asked outright, in the whole passage (a date in its
        # title too: "Apache License 2.0 (January 2004)"), nor, in a passage in the question's
        # script, in or beside a sentence naming its focus (a date in the title still answers)
        untyped = gate and demanded is not None and not (filler and wanted == demanded) and (
            novel_filler(titled if demanded == "date" else p.text,
                         demanded, query, terms) is None
            or not crossed and bool(f_terms)
            and filler_apart(sents, f_terms, demanded, query, terms)
            and not (demanded == "date" and novel_filler(p.context, demanded, query, terms)))
        apart: tuple[str, ...] = ()
        measures = siblings = apart
        if gate and not untyped and demanded is not None:  # whose date or number it holds
            fits = partial(_fills, kind=demanded, query=query, terms=terms)
            siblings = siblings_filled(query, sents, fits, p.context, focus=f_terms)
            if demanded == "date":
                apart = other_events_dated(query, sents, fits, p.context) or (
                    () if crossed else event_of_another(query, sents, fits))
            elif demanded == "number":
                measures = other_dimensions_measured(query, sents, fits)
        elif gate and not untyped:  # no date or number asked: the clauses naming its focus
            siblings = siblings_filled(query, sents, partial(
                holds_focus, terms=f_terms, weights=f_weights), p.context,
                asked_topic_decides=True)
        if gate and not untyped and not siblings and wanted in ("date", "number"):  # the first
            fits = partial(_fills, kind=demanded or wanted, query=query, terms=terms)
            siblings = contrast_filled(query, sents, fits, f_terms) or mates_filled(
                query, sents, fits)
        if untyped or apart or measures or siblings:
            gate, best, best_cover = False, opening, 0.0
        features = {
            "evidence": ev,
            "focus_coverage": coverage(f_terms, f_weights, holder),
            "focus_missing": sum(w for _, w in missing) / max_idf,
            "absent": absent,
            "sentence_focus": best_cover,
            "typed": float(wanted != "other"),
            "type_found": float(filler is not None),
            "vector": p.vector,
            "cosine_rel": 0.0 if p.cosine is None else p.cosine - median_cos
            if median_cos is not None else COSINE_REL_SLOPE * p.vector + COSINE_REL_AT_0,
            "keyword": p.keyword,
            "fused_rel": p.fused / best_fused if best_fused > 0 else 1.0,
            "rank": rank / JUDGE_TOP_N,
            "cross_language": float(crossed),
        }
        out.append(Signals(
            focus_found=tuple(t.surface or t.text for t in f_terms if holder.has(t)),
            focus_missing=tuple(t.surface or t.text for t, _ in missing),
            topic=tuple(t.surface or t.text for t in terms if t.text in topic),
            best_sentence=sents[best], answer_type=wanted,
            type_found=filler, gate=gate, features=features, numbers_missing=lacking,
            type_missing=untyped, events_apart=apart, dimensions_apart=measures,
            subject_apart=elsewhere, siblings_apart=siblings, asked_unnamed=unnamed,
            roles_swapped=swapped, subject_unwritten=unwritten,
            about_subject=bool(topic & subject)))
    return out


def _fills(text: str, kind: AnswerType, query: str, terms: Sequence[Term]) -> bool:
    """Whether ``text`` holds a filler of ``kind`` the question does not name."""
    return novel_filler(text, kind, query, terms) is not None
