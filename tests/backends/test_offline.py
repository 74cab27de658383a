"""Offline by construction: a default Hub model name fails at once, with no network attempt."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from assay import TestCase, evaluate
from assay.backends.offline import ALLOW_DOWNLOADS, downloads_allowed, no_network
from assay.evaluators.bias import Bias

pytest.importorskip("transformers")


def test_downloads_need_an_explicit_opt_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ALLOW_DOWNLOADS, raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    assert not downloads_allowed()
    monkeypatch.setenv(ALLOW_DOWNLOADS, "1")
    assert downloads_allowed()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the Hub switch always wins
    assert not downloads_allowed()


def test_no_network_restores_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    with no_network():
        assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert "HF_HUB_OFFLINE" not in os.environ


def test_a_hub_model_name_errors_per_case_without_touching_the_network(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ALLOW_DOWNLOADS, raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    attempts: list[Any] = []

    def refuse(self: socket.socket, address: Any) -> None:
        attempts.append(address)
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    case = TestCase(id="1", model="m", question="q", actual_answer="Some answer.")
    run = evaluate([case], [Bias(classifier="d4data/bias-detection-model")])  # Hub only
    rows = run.results
    assert set(rows["status"]) == {"error"}
    assert rows["reason"].str.contains("ASSAY_ALLOW_DOWNLOADS").all()
    assert attempts == []
