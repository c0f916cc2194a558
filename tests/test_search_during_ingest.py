"""A search is never held up by a long ingest, even while the embedder cannot be built.

The knowledge base's embedder is a server that is down, so its embedding service stays unbuilt
and every search asks to build it again; the ingest holds the knowledge base's ingest lock
while its LLM (an in-process OpenAI-protocol double, ``tests/http_doubles.py``) sits on a
situating-sentence request until the test lets it answer. A search from another thread must
complete meanwhile. Completion is checked by joining with a generous timeout, not by timing.
"""

import json
import threading

from conftest import write
from http_doubles import ModelServer, closed_port_url

from kb.api import KnowledgeBase
from kb.config import Config

HOLD_LIMIT_S = 60.0  # the double answers by itself after this, so a failing test still ends
JOIN_S = 30.0  # far longer than a BM25 search over three documents takes


def test_a_search_completes_while_an_ingest_waits_for_its_llm(tmp_path):
    write(tmp_path / "seed" / "orchard.txt", "Orchard pruning is done in late winter.")
    write(tmp_path / "batch" / "apples.txt", "Apple trees need pruning to fruit well.")
    db = tmp_path / "kb.db"
    with KnowledgeBase(db, Config(embedder="none")) as plain:
        plain.ingest([tmp_path / "seed"])
    entered, release = threading.Event(), threading.Event()

    def chat(model: str, prompt: str) -> str:
        if "<document>" in prompt:  # the ingest's situating sentence: held
            entered.set()
            release.wait(HOLD_LIMIT_S)
            return "This chunk is about apple trees."
        if prompt.startswith("Rewrite the search query"):
            return json.dumps({"paraphrases": []})
        return json.dumps([5] * prompt.count("\n["))  # grades for the LLM reranker

    with ModelServer(chat=chat) as llm_server:
        config = Config(embedder=f"openai:{closed_port_url()}/v1#e5",
                        llm=f"openai:{llm_server.url}/v1#chat")
        with KnowledgeBase(db, config) as kb:
            service, problem = kb.embedding_service()
            assert service is None and "embedder unavailable" in (problem or "")
            box: dict = {}
            ingest = threading.Thread(target=lambda: box.update(report=kb.ingest(
                [tmp_path / "batch"])))
            search = threading.Thread(target=lambda: box.update(result=kb.search(
                "orchard pruning", decay=False)))
            ingest.start()
            try:
                assert entered.wait(JOIN_S), "the ingest never asked its LLM"
                search.start()
                search.join(JOIN_S)
                assert not search.is_alive(), "the search waited for the ingest"
                assert ingest.is_alive()  # it was still holding its lock all along
            finally:
                release.set()
                ingest.join(HOLD_LIMIT_S)
                search.join(HOLD_LIMIT_S)
    result = box["result"]
    assert result.diagnostics.error is None
    assert result.references and result.references[0].source.endswith("orchard.txt")
    assert any("embedder unavailable" in d for d in result.diagnostics.degraded)
    assert box["report"].count("added") == 1
