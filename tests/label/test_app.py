"""The web app in-process: login, tokens on every write, CSRF, escaping, host checks."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from assay.cli.main import cli
from assay.label.app import COOKIE, create_app
from assay.label.criteria import parse_criteria
from assay.label.project import LabelProject
from assay.label.store import Store
from assay.rundir.run import EvaluationRun

ORIGIN = {"origin": "http://testserver"}


@pytest.fixture
def setup(label_run: EvaluationRun, tmp_path: Path) -> tuple[TestClient, LabelProject, str]:
    run_dir = tmp_path / "run"
    shutil.copytree(label_run.path, run_dir)  # type: ignore[arg-type]
    store = Store(f"sqlite:///{run_dir / 'labels.sqlite'}")
    project = LabelProject(
        run_dir, store, parse_criteria("grounded,quality:1-5"), overlap=1, show_machine=True
    )  # every text escaped, evidence included
    token = store.add_annotator("ada")
    client = TestClient(create_app(project, allowed_hosts=["testserver"]))
    return client, project, token


def _login(client: TestClient, token: str) -> None:
    response = client.post("/login", data={"token": token}, headers=ORIGIN, follow_redirects=False)
    assert response.status_code == 303, response.text
    cookie = response.headers["set-cookie"]
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()


def _form(html: str) -> dict[str, str]:
    return {
        "csrf": re.search(r'name="csrf" value="([0-9a-f]+)"', html).group(1),  # type: ignore[union-attr]
        "item_id": re.search(r'name="item_id" value="(\d+)"', html).group(1),  # type: ignore[union-attr]
    }


def test_pages_need_a_token_and_a_wrong_token_is_refused(setup: Any) -> None:
    client, _, token = setup
    page = client.get("/")
    assert "Access token" in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert client.get("/label", follow_redirects=False).status_code == 303
    assert client.get("/progress", follow_redirects=False).status_code == 303
    assert client.post("/login", data={"token": "nope"}, headers=ORIGIN).status_code == 403
    assert client.post("/label", data={"item_id": "1"}, headers=ORIGIN).status_code == 401
    _login(client, token)
    assert client.get("/label").status_code == 200


def test_writes_need_the_csrf_token_and_the_same_origin(setup: Any) -> None:
    client, project, token = setup
    _login(client, token)
    form = _form(client.get("/label").text)
    values = {**form, "c_grounded": "1", "c_quality": "4", "action": "submit"}
    bad = client.post("/label", data={**values, "csrf": "0" * 64}, headers=ORIGIN)
    assert bad.status_code == 403
    assert client.post("/label", data=values).status_code == 403  # no Origin header
    evil = client.post("/label", data=values, headers={"origin": "http://evil.example"})
    assert evil.status_code == 403
    assert project.store.judgments() == []
    missing = client.post("/label", data={**values, "c_quality": "9"}, headers=ORIGIN)
    assert missing.status_code == 422 and "Choose a value for: quality" in missing.text
    ok = client.post("/label", data=values, headers=ORIGIN, follow_redirects=False)
    assert ok.status_code == 303
    assert len(project.store.judgments()) == 2  # committed before the answer


def test_unknown_host_header_is_refused(setup: Any) -> None:
    client, _, _ = setup
    assert client.get("/", headers={"host": "attacker.example"}).status_code == 400


def test_every_text_is_escaped(setup: Any) -> None:
    client, project, token = setup
    _login(client, token)
    seen_script = False
    for _ in range(80):
        page = client.get("/label")
        if "queue-done" in page.text:
            break
        html = page.text
        assert "<script>window" not in html and "<img src=x" not in html
        if "&lt;script&gt;window.__pwned" in html:
            seen_script = True
        form = _form(html)
        comment = "<script>alert(1)</script>"
        client.post(
            "/label",
            data={
                **form,
                "c_grounded": "1",
                "c_quality": "3",
                "comment": comment,
                "action": "submit",
            },
            headers=ORIGIN,
        )
    assert seen_script, "the case with a script in its answer was never shown"
    assert project.store.progress(1)["labelled"] == len(project.entries)
    progress = client.get("/progress").text
    assert "ada" in progress and "<script>alert" not in progress


def test_skip_records_no_label_and_moves_on(setup: Any) -> None:
    client, project, token = setup
    _login(client, token)
    first = _form(client.get("/label").text)
    client.post("/label", data={**first, "action": "skip"}, headers=ORIGIN)
    second = _form(client.get("/label").text)
    assert second["item_id"] != first["item_id"]
    assert project.store.judgments() == []
    assert project.store.annotators()[0]["skipped"] == 1


def test_cli_refuses_a_remote_bind_unless_asked(label_run: EvaluationRun) -> None:
    result = CliRunner().invoke(cli, ["label", str(label_run.path), "--host", "0.0.0.0"])
    assert result.exit_code != 0
    assert "allow-remote" in str(result.exception)


def test_cli_manages_annotators(label_run: EvaluationRun, tmp_path: Path) -> None:
    db = str(tmp_path / "x.sqlite")
    result = CliRunner().invoke(
        cli, ["labels", "add-annotator", str(label_run.path), "ada", "--db", db]
    )
    assert result.exit_code == 0 and len(result.output.strip()) >= 30
    assert Store(f"sqlite:///{db}").annotator_for_token(result.output.strip())["name"] == "ada"  # type: ignore[index]
    listing = CliRunner().invoke(cli, ["labels", "annotators", str(label_run.path), "--db", db])
    assert "ada\t0 labelled" in listing.output
    assert COOKIE == "assay_label_token"


@pytest.mark.parametrize("show", [False, True])
def test_machine_scores_are_hidden_unless_asked(
    label_run: EvaluationRun, tmp_path: Path, show: bool
) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(label_run.path, run_dir)  # type: ignore[arg-type]
    store = Store(f"sqlite:///{run_dir / 'labels.sqlite'}")
    project = LabelProject(run_dir, store, parse_criteria("grounded"), overlap=1, show_machine=show)
    token = store.add_annotator("ada")
    client = TestClient(create_app(project, allowed_hosts=["testserver"]))
    _login(client, token)
    html = client.get("/label").text
    assert 'id="label-form"' in html and 'id="answer"' in html
    machine = (
        "Machine explanation",
        "<th>verdict</th>",
        "least-grounded",
        "score bin",
        "Scores binned by",
    )
    shown = [marker for marker in machine if marker in html]
    if show:
        assert "Machine explanation" in shown and "<th>verdict</th>" in shown
        assert "score bin" in shown
    else:
        assert shown == []
