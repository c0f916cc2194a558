"""Ctrl-C outside an ingest: one line on stderr and exit 130, never a traceback or "Aborted!".

A real SIGINT reaches a real ``kb`` process at a point the test chooses: while the CLI loads
(sent from an import hook when ``kb.cli`` is looked up), and while a command waits for a chat
model that never answers (sent once the model's socket sees the connection).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ctrl_c_default, write
from http_doubles import SilentServer

ROOT = Path(__file__).parent.parent
LOADING = """
import os, signal, sys

class SigintOnLookup:  # Ctrl-C while Python looks for kb.cli: during the CLI's loading
    def find_spec(self, name, path=None, target=None):
        if name == "kb.cli":
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, SigintOnLookup())
sys.argv = ["kb", "docs"]
from kb.__main__ import main
main()
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update(KB_EMBEDDER="none", OMP_NUM_THREADS="1")
    return env


def test_ctrl_c_while_kb_loads_is_one_line_and_exit_130(tmp_path: Path) -> None:
    # a new-user trial: Ctrl-C in kb's first 0.7 s printed an import traceback
    r = subprocess.run([sys.executable, "-c", LOADING], capture_output=True, text=True,
                       env=_env(), cwd=tmp_path, timeout=120, preexec_fn=ctrl_c_default)
    assert r.returncode == 130, r.stderr
    assert r.stderr == "kb: interrupted while starting; nothing was done\n"
    assert not (tmp_path / "kb.db").exists()


@pytest.mark.slow  # a real kb process
def test_ctrl_c_while_a_command_waits_is_one_line_and_exit_130(tmp_path: Path) -> None:
    # a new-user trial: click's "Aborted!" and exit 1, where an ingest says exit 130
    db = str(tmp_path / "kb.db")
    write(tmp_path / "notes" / "kites.md", "# Kites\n\nBox kites were invented in 1893.\n")
    made = subprocess.run([sys.executable, "-m", "kb", "--db", db, "ingest",
                           str(tmp_path / "notes")], capture_output=True, text=True,
                          env=_env(), cwd=ROOT, timeout=300)
    assert made.returncode == 0, made.stderr
    with SilentServer() as model:
        model.sock.settimeout(120)
        env = {**_env(), "KB_LLM": f"openai:{model.url}/v1#m"}
        proc = subprocess.Popen([sys.executable, "-m", "kb", "--db", db, "ask",
                                 "Who invented the box kite?"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
                                preexec_fn=ctrl_c_default)
        connection, _ = model.sock.accept()  # kb is waiting for the model's reply
        try:
            os.kill(proc.pid, signal.SIGINT)
            out, err = proc.communicate(timeout=120)
        finally:
            connection.close()
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "kb: interrupted"
    assert "Aborted!" not in err and "Traceback" not in err
