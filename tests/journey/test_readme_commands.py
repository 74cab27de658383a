"""Every command of the README runs as written (issue 24): the README's ``bash`` and ``python``
blocks are executed in order, in a temporary folder holding the bundled demo, through subprocesses
whose output is not a terminal, with the scripted judge (``ASSAY_JUDGE``) and no network.

The folder starts as a user's would: ``corpus/`` (the demo's policy documents), ``suite.jsonl``
and ``answered.jsonl`` (the demo suite, which carries answers), and ``target.yaml`` /
``target-v2.yaml`` naming a real retrieval service on loopback (:mod:`.bm25_service` over the
demo corpus). Only the commands in :data:`SKIPPED` are not run, each for the reason given.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pandas as pd
import pytest

import assay
from assay.label.criteria import parse_criteria
from assay.label.project import LabelProject
from assay.label.store import Store, database_url

from .bm25_service import serve

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SRC = Path(assay.__file__).resolve().parents[1]
#: Commands not run, by their first words, with the reason. Keep this list tiny.
SKIPPED = {
    "make demo": "installs packages into .venv (package index); the test runs in the installed "
                 "environment",
    "make test": "runs this whole test-suite, this test included",
    "pip install": "installs packages (package index); the test runs in the installed environment",
    "assay label ": "serves the labelling app until annotators stop it; the test submits labels "
                    "through the label store instead, as the app does (the app: tests/label)",
}
#: Exit codes the README documents as outcomes, not errors; every other command must exit 0.
OUTCOMES = {"assay assess ": {0, 1, 3}, "assay junit ": {0, 1, 3}}


def readme_blocks() -> list[tuple[str, str]]:
    """The README's ``bash`` and ``python`` blocks in order, as (language, code)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"^```(bash|python)\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


def _words(text: object) -> set[str]:
    return set(re.findall(r"\w+", str(text or "").lower()))


def label_run(run_dir: Path, answered: Path) -> int:
    """What annotators do in ``assay label``: label the run's cases on the criterion ``grounded``.

    The annotator marks an answer grounded when it shares at least the median share of the
    expected answer's words (so both classes occur); returns the number of labels submitted."""
    cases = {}
    for line in answered.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        expected = _words(case.get("expected_answer"))
        share = len(_words(case.get("actual_answer")) & expected) / max(len(expected), 1)
        cases[(case["id"], case.get("model") or "")] = share
    median = sorted(cases.values())[len(cases) // 2]
    store = Store(database_url(run_dir, None))
    LabelProject(run_dir, store, parse_criteria("grounded"), overlap=1)
    annotator = next(a for a in store.annotators() if a["name"] == "ada")
    submitted = 0
    while (item_id := store.next_item(annotator["id"], overlap=1)) is not None:
        item = store.item(item_id)
        assert item is not None
        share = cases.get((item["case_id"], item["model"] or ""))
        labels = {} if share is None else {"grounded": int(share >= median)}
        store.submit(item_id, annotator["id"], labels, skipped=share is None, require_lease=True)
        submitted += share is not None
    return submitted


def test_every_readme_command_runs_on_the_demo(tmp_path: Path) -> None:
    demo = resources.files("assay.demo")
    shutil.copytree(str(demo.joinpath("corpus")), tmp_path / "corpus")
    shutil.copyfile(str(demo.joinpath("suite.jsonl")), tmp_path / "suite.jsonl")
    shutil.copyfile(str(demo.joinpath("suite.jsonl")), tmp_path / "answered.jsonl")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "assay"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m assay.cli.main "$@"\n',
                    encoding="utf-8")
    shim.chmod(0o755)
    env = {**os.environ, "ASSAY_JUDGE": "scripted", "ASSAY_PROGRESS_INTERVAL": "0",
           "PATH": os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")]),
           "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    blocks = readme_blocks()
    assert sum(lang == "python" for lang, _ in blocks) >= 2
    ran: list[str] = []
    skipped: list[str] = []
    with serve(tmp_path / "corpus") as url:
        for version in ("target.yaml", "target-v2.yaml"):
            target = {"type": "http", "name": version.removesuffix(".yaml"), "url": f"{url}/ask",
                      "request": {"query": "{{question}}"},
                      "response": {"answer": "answer", "retrieved_context": "documents[*].text",
                                   "context_ids": "documents[*].id"}}
            (tmp_path / version).write_text(json.dumps(target), encoding="utf-8")
        for lang, code in blocks:
            if lang == "python":
                result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                                        capture_output=True, text=True, timeout=900, check=False)
                assert result.returncode == 0, f"README python block:\n{code}\n{result.stderr}"
                ran.append(code.splitlines()[0])
                continue
            for line in code.splitlines():
                command = re.split(r"\s{2,}#", line)[0].strip()
                if not command:
                    continue
                if any(command.startswith(prefix) for prefix in SKIPPED):
                    skipped.append(command)
                    if command.startswith("assay label runs/"):
                        run_dir = tmp_path / command.split()[2]
                        assert label_run(run_dir, tmp_path / "answered.jsonl") >= 20
                    continue
                result = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                                        capture_output=True, text=True, timeout=1800,
                                        check=False)
                allowed = next((codes for prefix, codes in OUTCOMES.items()
                                if command.startswith(prefix)), {0})
                assert result.returncode in allowed, (
                    f"README command '{command}' exited {result.returncode}:\n"
                    f"{result.stderr[-3000:]}")
                ran.append(command)
    assert len(ran) >= 20, ran
    assert all(any(c.startswith(p) for p in SKIPPED) for c in skipped)
    # what the loop promises exists at the end
    assert (tmp_path / "assessment").is_dir()
    assert (tmp_path / "runs" / "r1" / "calibration" / "calibrator.json").is_file()
    assert (tmp_path / "runs" / "r2" / "report.html").is_file()
    assert (tmp_path / "runs" / "first" / "manifest.json").is_file()
    r1 = pd.read_parquet(tmp_path / "runs" / "r1" / "results.parquet")
    for metric in ("token_f1", "emb_groundedness_mean", "pii_generation_leak"):
        assert (r1[r1["metric"] == metric]["status"] == "ok").all(), metric
    # the service names its chunks its own way: retrieval is an error naming the README's remedy
    retrieval = r1[(r1["metric"] == "average_precision") & (r1["status"] != "skipped")]
    assert len(retrieval) and (retrieval["status"] == "error").all()
    assert retrieval["reason"].str.contains("retrieval.id_match=document", regex=False).all()
