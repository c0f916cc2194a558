from kb.store.textindex import (
    acronym_forms,
    has_cjk,
    index_body,
    match_expression,
    query_terms,
    tokenize,
)


def test_cjk_bigrams_cover_every_two_character_word():
    tokens = tokenize("我们研究量子计算机的发展")
    for word in ["量子", "计算", "算机", "发展", "研究"]:
        assert word in tokens
    assert "计算机" in tokens  # jieba word of 3+ characters


def test_latin_words_are_folded_and_stemmed_identically_at_index_and_query_time():
    body = index_body("Title", "Cafés were running experiments")
    for term in query_terms("café RUN experiment"):
        assert term in body.split()


def test_an_acronym_finds_its_other_number():
    # Snowball keeps the "s" of "SLOs" after a vowel: the other number is an extra token
    body = index_body("Runbook", "Our SLOs and CPUs, the IDE and API").split()
    for term in query_terms("SLO CPU IDEs APIs slos cpus"):
        assert term in body, term
    assert query_terms("bus plus UPS") == ["bus", "plus", "up"]  # no acronym, no extra form
    assert query_terms("SLO latency") == ["slo", "latenc"]  # one term: BM25 counts it once
    assert acronym_forms("SLOs") == ["slo"] and acronym_forms("SLO") == ["slos"]
    assert acronym_forms("NASA") == [] and acronym_forms("Slos") == []


def test_query_terms_drop_stopwords_unless_nothing_else_is_left():
    assert query_terms("what is the capital of France") == ["capit", "franc"]
    assert query_terms("the") == ["the"]


def test_match_expression_quotes_every_term():
    hostile = 'foo" OR bar* NEAR(a b) ^c : -d'
    expr = match_expression(query_terms(hostile))
    assert expr is not None
    assert "*" not in expr and "^" not in expr and "(" not in expr and ":" not in expr
    for part in expr.split(" OR "):
        assert part.startswith('"') and part.endswith('"')


def test_punctuation_only_query_has_no_terms():
    assert query_terms("?!... ---") == []
    assert match_expression([]) is None
    assert has_cjk("abc 中") and not has_cjk("abc")
