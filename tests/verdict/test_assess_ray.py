"""``assess`` on a Ray cluster started apart from the test process (``ray start --head``
reached on loopback, as a user starts a head node): the same decisions, bounds and ``verdict_cases.csv`` as
the local assessment, from the plan's ``[run] executor`` and from ``assay assess --executor ray``.

The demo plan is cut to its light evaluators (no model to load in a one-CPU worker), whose results
are byte-identical on every executor (docs/distributed.md).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from assay.cli.main import cli
from assay.demo import demo_plan, demo_plan_path
from assay.evaluators.registry import catalogue, evaluator_class
from assay.rundir.layout import ASSESSMENT_RUN_DIR, VERDICT_CASES_FILE
from assay.verdict import ValidationPlan, assess

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.slow  # a Ray head starts in ~5-20 s (more on a loaded machine)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def head() -> Iterator[str]:
    """A one-CPU Ray head on this machine (reached at 127.0.0.1) in its own process group and temp dir, so that neither
    its ports nor its session clash with another Ray on the machine; the group is killed after.
    Ray's token authentication is off (loopback only), whatever ``~/.ray/auth_token`` holds."""
    if ray.is_initialized():  # pragma: no cover - another module left it running
        ray.shutdown()
    binary = Path(sys.executable).with_name("ray")
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="rayt", dir="/tmp")  # short: Ray's socket paths are bounded
    ports = {
        "--node-manager-port": _free_port(),
        "--object-manager-port": _free_port(),
        "--dashboard-agent-grpc-port": _free_port(),
        "--dashboard-agent-listen-port": _free_port(),
        "--metrics-export-port": _free_port(),
        "--runtime-env-agent-port": _free_port(),
    }
    command = [
        str(binary), "start", "--head", "--block", f"--port={port}", "--num-cpus=1",
        "--include-dashboard=false", "--disable-usage-stats",
        f"--temp-dir={temp}", "--object-store-memory=100000000",
        *(f"{flag}={value}" for flag, value in ports.items()),
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, "RAY_ADDRESS": "", "RAY_AUTH_MODE": "disabled"},
    )
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:  # the GCS accepts connections once the head is up
            if process.poll() is not None:
                pytest.fail(f"ray start --head exited with {process.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("the Ray head did not start within 90 s")
                time.sleep(0.5)
        yield address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        os.killpg(process.pid, signal.SIGTERM)  # --block stops the head's processes on SIGTERM
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # a head slow to stop (tens of seconds when loaded)
            os.killpg(process.pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def light_plan() -> ValidationPlan:
    """The demo plan with its evaluators that need no extra, and the checks they decide."""
    plan, _ = demo_plan()
    light = {row["name"] for row in catalogue() if not row.get("extra")}
    chosen = [name for name in plan.run.evaluators if name in light]
    produced = {spec.name for name in chosen for spec in evaluator_class(name).metrics}
    checks = [c for c in plan.check if set(c.metrics) <= produced]
    assert len(checks) >= 3, "the light demo plan must still decide several checks"
    run = plan.run.model_copy(update={"evaluators": chosen})
    return plan.model_copy(update={"run": run, "check": checks})


@pytest.fixture(scope="module")
def local(light_plan: ValidationPlan, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("local") / "assessment"
    assess(light_plan, out)
    return out


def _decisions(out: Path) -> dict[str, object]:
    verdict = json.loads((out / "verdict.json").read_text())
    return {
        "decision": verdict["decision"],
        "models": verdict["models"],
        "checks": verdict["checks"],
    }


def _executor(out: Path) -> str:
    manifest = json.loads((out / ASSESSMENT_RUN_DIR / "manifest.json").read_text())
    return str(manifest.get("executor", {}).get("name", "local"))


def test_the_plans_ray_executor_gives_the_local_decisions(
    head: str, light_plan: ValidationPlan, local: Path, tmp_path: Path
) -> None:
    ray_section = light_plan.run.ray.model_copy(update={"address": head, "workers": 1})
    run = light_plan.run.model_copy(update={"executor": "ray", "ray": ray_section})
    out = tmp_path / "ray"
    assessment = assess(light_plan.model_copy(update={"run": run}), out)
    assert _executor(out) == "ray"
    assert (out / VERDICT_CASES_FILE).read_bytes() == (local / VERDICT_CASES_FILE).read_bytes()
    assert _decisions(out) == _decisions(local)
    assert assessment.decision in {"PASS", "FAIL", "INCONCLUSIVE"}
    assert not ray.is_initialized()  # the connection assess opened is closed

    stamp = (out / ASSESSMENT_RUN_DIR / "manifest.json").stat().st_mtime_ns
    assess(light_plan, out)  # local now, same inputs: the complete Ray run is reused
    assert (out / ASSESSMENT_RUN_DIR / "manifest.json").stat().st_mtime_ns == stamp
    assert _executor(out) == "ray"


def test_assess_cli_executor_ray(
    head: str, light_plan: ValidationPlan, local: Path, tmp_path: Path
) -> None:
    plan_path = tmp_path / "plan.toml"
    plan_path.write_text(_light_plan_text(light_plan))
    out = tmp_path / "ray"
    result = CliRunner().invoke(
        cli,
        ["assess", str(plan_path), "--out", str(out), "--executor", "ray", "--address", head,
         "--workers", "1"],
    )  # fmt: skip
    assert result.exit_code in (0, 1, 3), result.output
    assert _executor(out) == "ray"
    assert (out / VERDICT_CASES_FILE).read_bytes() == (local / VERDICT_CASES_FILE).read_bytes()
    assert _decisions(out) == _decisions(local)


def _light_plan_text(plan: ValidationPlan) -> str:
    """The demo plan's TOML with the light plan's evaluators and checks (comments kept)."""
    head, *checks = demo_plan_path().read_text().split("\n[[check]]")
    evaluators = json.dumps(plan.run.evaluators)
    head = re.sub(r"evaluators = \[.*?\]", f"evaluators = {evaluators}", head, flags=re.S)
    folder = demo_plan_path().parent  # the plan's files (suite, label files), made absolute
    head = re.sub(
        r'"([\w./-]+\.(?:jsonl|csv))"',
        lambda m: json.dumps(str(folder / m[1])) if (folder / m[1]).is_file() else m[0],
        head,
    )
    names = {c.name for c in plan.check}
    kept = [c for c in checks if tomllib.loads(c)["name"] in names]
    return head + "".join("\n[[check]]" + c for c in kept)
