"""Third-party components through Python entry points, for real: a temporary directory on
``sys.path`` holds an installed distribution (``*.dist-info`` with ``entry_points.txt``) and its
module; the CLI runs in a subprocess, so importlib.metadata finds the plugin as it would in a
user's environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

PLUGIN = '''
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec
from assay.perturb.base import Perturbation


class ShoutCount(Evaluator):
    name = "shout_count"
    family = "lexical"
    description = "Share of upper-case letters in the answer (third-party plugin)."
    requires = ("actual_answer",)
    metrics = (MetricSpec("shout_share", "share of upper-case letters", range=(0.0, 1.0),
                          threshold=0.5, higher_is_better=False, primary=True),)

    def score(self, cases):
        out = []
        for case in cases:
            letters = [c for c in case.actual_answer or "" if c.isalpha()]
            share = sum(c.isupper() for c in letters) / len(letters) if letters else 0.0
            out.append(CaseResult.ok({"shout_share": share}))
        return out


class Broken(Evaluator):
    pass
'''


def _install(site: Path) -> None:
    (site / "assay_shout.py").write_text(PLUGIN, encoding="utf-8")
    dist = site / "assay_shout-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: assay-shout\nVersion: 1.0\n",
                                   encoding="utf-8")
    (dist / "entry_points.txt").write_text(
        "[assay.evaluators]\nshout_count = assay_shout:ShoutCount\n"
        "shout_missing = assay_shout:NoSuchClass\n", encoding="utf-8")


def _assay(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(site)])}
    return subprocess.run([sys.executable, "-m", "assay.cli.main", *args], capture_output=True,
                          text=True, env=env, timeout=300)


def test_an_installed_plugin_evaluator_is_listed_and_runs_from_the_cli(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    _install(site)
    listed = _assay(site, "evaluators", "--format", "json")
    assert listed.returncode != 0 and "shout_missing" in listed.stderr + listed.stdout, (
        "a plugin that cannot be loaded must be named")
    (site / "assay_shout-1.0.dist-info" / "entry_points.txt").write_text(
        "[assay.evaluators]\nshout_count = assay_shout:ShoutCount\n", encoding="utf-8")
    listed = _assay(site, "evaluators", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    assert "shout_count" in {row["name"] for row in json.loads(listed.stdout)}

    suite = tmp_path / "suite.jsonl"
    suite.write_text("\n".join(json.dumps({"id": f"q{i}", "question": "Fee?", "actual_answer": a})
                               for i, a in enumerate(["FIVE euros", "five euros"])) + "\n",
                     encoding="utf-8")
    run = _assay(site, "evaluate", str(suite), "-e", "shout_count,exact_match", "--out",
                 str(tmp_path / "run"))
    assert run.returncode == 0, run.stderr
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text(encoding="utf-8"))
    assert [e["name"] for e in manifest["evaluators"]] == ["shout_count", "exact_match"]
    assert manifest["evaluators"][0]["class"] == "assay_shout.ShoutCount"


def test_without_the_plugin_the_name_is_unknown(tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl"
    suite.write_text(json.dumps({"id": "q", "question": "Fee?", "actual_answer": "5"}) + "\n",
                     encoding="utf-8")
    run = _assay(tmp_path, "evaluate", str(suite), "-e", "shout_count", "--out",
                 str(tmp_path / "run"))
    assert run.returncode != 0
    assert "Unknown evaluator 'shout_count'" in run.stderr + run.stdout
