"""No credential is ever written: judge settings, URLs with user-info and refused settings.

A judge given through ``--param EVALUATOR.judge=...`` with an ``Authorization`` header, a
``user:password@`` URL or an ``api_key`` (a setting assay refuses) leaves no byte of the
credential in the run directory, the assessment directory, the logs or the error message.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from assay.safety.credentials import REDACTED, redact_settings, redact_text, sensitive_key

from .helpers import every_text, run_assay

KEY = "sk-proj-PLANTEDcredential0123456789abcdefXYZ"
PASSWORD = "PlantedPassw0rd"


def _suite(path: Path) -> Path:
    rows = [
        {"id": str(i), "question": "What is the fee?", "actual_answer": "The fee is 12 euros.",
         "expected_answer": "12 euros", "retrieved_context": ["The fee is 12 euros."]}
        for i in range(3)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


JUDGES = {
    "header": {"provider": "openai_compat", "model": "m", "base_url": "http://127.0.0.1:9/v1",
               "headers": {"Authorization": f"Bearer {KEY}"}, "max_retries": 0},
    "user_info": {"provider": "openai_compat", "model": "m", "max_retries": 0,
                  "base_url": f"http://admin:{PASSWORD}@127.0.0.1:9/v1"},
    "refused_api_key": {"provider": "openai_compat", "model": "m",
                        "base_url": "http://127.0.0.1:9/v1", "api_key": KEY},
}


@pytest.mark.parametrize("kind", sorted(JUDGES))
def test_no_byte_of_a_judge_credential_in_the_run(tmp_path: Path, kind: str) -> None:
    suite, out = _suite(tmp_path / "suite.jsonl"), tmp_path / "run"
    spec = json.dumps(JUDGES[kind])
    done = run_assay("-v", "evaluate", str(suite), "-e", "judge_faithfulness",
                     "--param", f"judge_faithfulness.judge={spec}", "--out", str(out))
    assert (out / "manifest.json").is_file(), done.stderr
    written = every_text(out) + done.stdout + done.stderr
    assert KEY not in written and PASSWORD not in written
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    judge = manifest["evaluators"][0]["params"]["judge"]
    assert REDACTED in json.dumps(judge)  # the setting is recorded, its value is not
    if kind == "refused_api_key":  # refused by name only
        assert "api_key" in every_text(out)


def test_no_byte_of_a_credential_in_an_assessment(tmp_path: Path) -> None:
    suite = _suite(tmp_path / "suite.jsonl")
    judge = json.dumps(JUDGES["header"]).replace('"', '\\"')
    plan = tmp_path / "plan.toml"
    plan.write_text(
        f'[run]\nsuite = "suite.jsonl"\nevaluators = ["judge_faithfulness"]\n'
        f'[run.params.judge_faithfulness]\njudge = "{judge}"\n'
        '[[check]]\ndimension = "hallucination"\nname = "faithful"\n'
        'metrics = ["judge_faithfulness"]\nthreshold = 0.5\nmin_pass_rate = 0.5\n',
        encoding="utf-8",
    )
    out = tmp_path / "assessment"
    done = run_assay("assess", str(plan), "--out", str(out))
    assert (out / "run" / "manifest.json").is_file(), done.stderr
    assert KEY not in every_text(out) + done.stdout + done.stderr
    assert suite.is_file()


def test_a_refused_setting_is_named_never_shown(tmp_path: Path) -> None:
    suite = _suite(tmp_path / "suite.jsonl")
    done = run_assay("evaluate", str(suite), "-e", "judge_faithfulness", "--param",
                     f'judge_faithfulness.judge="http://bob:{PASSWORD}@x"', "--out",
                     str(tmp_path / "run"))
    assert PASSWORD not in done.stdout + done.stderr + every_text(tmp_path / "run")


def test_names_that_hold_credentials() -> None:
    for name in ("Authorization", "X-API-Key", "api_key", "apiKey", "access_token", "Cookie",
                 "client_secret", "db_password", "private_key", "session_id"):
        assert sensitive_key(name), name
    for name in ("max_tokens", "tokens_per_minute", "api_key_env", "model", "base_url",
                 "author", "keyword"):
        assert not sensitive_key(name), name


def test_texts_and_nested_settings_are_redacted_whole() -> None:
    assert redact_text(f"POST http://u:{PASSWORD}@h/v1 failed") == f"POST http://{REDACTED}@h/v1 failed"
    assert KEY not in redact_text(f"headers: {{'X-Custom': '{KEY}'}}")
    nested = redact_settings({"a": [{"headers": {"Cookie": "s=1"}}], "n": 3, "model": "m"})
    assert nested == {"a": [{"headers": {"Cookie": REDACTED}}], "n": 3, "model": "m"}


class _Echo(BaseHTTPRequestHandler):
    """A faulty system under test: HTTP 500 whose body echoes the request's credentials."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = (f"bad request: Authorization: {self.headers['Authorization']}, "
                f"x-api-key={self.headers['X-Api-Key']}").encode()
        self.send_response(500)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_a_target_credential_echoed_in_an_error_is_not_recorded(tmp_path: Path) -> None:
    suite = _suite(tmp_path / "suite.jsonl")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        config = tmp_path / "target.json"
        config.write_text(json.dumps({
            "type": "http", "name": "bot", "url": f"{url}/ask", "retries": 0,
            "headers": {"Authorization": f"Bearer {KEY}", "X-Api-Key": PASSWORD},
        }), encoding="utf-8")
        done = run_assay("-v", "run", str(suite), "--target", str(config), "--out",
                         str(tmp_path / "answered.jsonl"))
    finally:
        server.shutdown()
        server.server_close()
    answered = (tmp_path / "answered.jsonl").read_text(encoding="utf-8")
    assert '"error_kind": "http_status"' in answered.replace('":"', '": "'), answered[:300]
    assert REDACTED in answered  # the echoed headers were recorded, their values redacted
    for text in (answered, done.stdout, done.stderr):
        assert KEY not in text and PASSWORD not in text
