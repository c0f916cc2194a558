"""Serve a GGUF chat model on an OpenAI-compatible endpoint, for `llm_stages.py`.

Usage (in a venv with `pip install xllamacpp`; see bench/README.md, "LLM stages"):

    nice -n 19 /tmp/llm/venv/bin/python bench/serve_llm.py --model /tmp/llm/model.gguf \
        --threads 1 --ctx 16384

llama.cpp's own HTTP server (xllamacpp's `Server`) then answers on
http://127.0.0.1:8080/v1 (`/chat/completions`, `/models`, `/health`) until interrupted. kb
talks to it with `--llm openai:http://127.0.0.1:8080/v1#<alias>`; a single-model llama.cpp
server answers whatever model name a request carries. Benchmark tooling only: xllamacpp is
not a kb dependency.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--model", required=True, type=Path, help="the .gguf file")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--threads", type=int, default=1,
                    help="CPU threads for generation and prompt processing (default 1)")
    ap.add_argument("--ctx", type=int, default=16384,
                    help="context size in tokens; kb's LLM rerank prompt of 20 Chinese "
                    "passages needs about 8k (default 16384)")
    ap.add_argument("--alias", default="qwen2.5-coder-1.5b-instruct",
                    help="model name the server reports at /v1/models")
    args = ap.parse_args()
    if not args.model.is_file():
        sys.exit(f"serve_llm: no model file at {args.model}")
    try:
        import xllamacpp as xlc
    except ImportError:
        sys.exit("serve_llm: xllamacpp is not installed in this Python "
                 f"({sys.executable}); pip install xllamacpp in a separate venv")

    params = xlc.CommonParams()
    params.model.path = str(args.model)
    params.model_alias = {args.alias}  # a set of names
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.ctx
    params.n_parallel = 1  # one request at a time: kb's calls are sequential
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    server = xlc.Server(params)  # loads the model and starts the HTTP thread
    print(f"serve_llm: {args.model.name} at {server.listening_address}/v1 "
          f"(threads {args.threads}, ctx {args.ctx}); Ctrl-C stops it", file=sys.stderr,
          flush=True)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    del server


if __name__ == "__main__":
    main()
