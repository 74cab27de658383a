"""The labeling app in headless Chromium: two annotators at once, a killed and restarted server,
every acknowledged label kept, and an exported file that calibrates."""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from assay.cli.main import cli
from assay.label.store import Store
from assay.rundir.run import EvaluationRun

from .conftest import Server, new_pg_database

pytestmark = pytest.mark.slow
SCREENSHOTS = Path(os.environ["ASSAY_SCREENSHOTS"]) if os.environ.get("ASSAY_SCREENSHOTS") else None


def _grounded(name: str, case_id: str, answer: str) -> int:
    """The annotators' judgment: an answer sending people to a 'premium hotline' is not
    grounded; bob disagrees with ada on the cases whose number is a multiple of 5."""
    verdict = 0 if "hotline" in answer else 1
    number = int(re.sub(r"\D", "", case_id) or 0)
    return 1 - verdict if name == "bob" and number % 5 == 0 else verdict


class Annotator:
    """One person in one browser, labeling with the keyboard shortcuts until the queue is done."""

    def __init__(self, name: str, driver: Any, server: Server, token: str) -> None:
        self.name, self.driver, self.server, self.token = name, driver, server, token
        self.acknowledged: dict[tuple[str, str], tuple[int, int]] = {}
        self.submitted: dict[tuple[str, str], tuple[int, int]] = {}
        self.shown_after_ack: list[tuple[str, str]] = []
        self.failures = 0
        self.done = False
        self.error: BaseException | None = None

    def login(self) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver.get(self.server.url + "/")
        self.driver.find_element(By.ID, "token").send_keys(self.token)
        self.driver.find_element(By.CSS_SELECTOR, "#login-form button").click()
        # The click starts a navigation: wait for the labeling page instead of racing it.
        shown = WebDriverWait(self.driver, 15, poll_frequency=0.05).until(
            lambda driver: driver.find_elements(By.ID, "annotator-name")
        )
        assert shown[0].text == self.name

    def run(self) -> None:
        try:
            self._loop()
        except BaseException as exc:  # reported by the test
            self.error = exc

    def _loop(self) -> None:
        from selenium.common.exceptions import TimeoutException, WebDriverException
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.expected_conditions import staleness_of
        from selenium.webdriver.support.ui import WebDriverWait

        deadline = time.monotonic() + 150
        while time.monotonic() < deadline:
            try:
                driver = self.driver
                if not driver.find_elements(By.ID, "label-form"):
                    if driver.find_elements(By.ID, "queue-done"):
                        self.done = True
                        return
                    driver.get(self.server.url + "/label")  # after an error page
                    continue
                try:
                    ready = WebDriverWait(driver, 10, poll_frequency=0.05).until(
                        lambda d: d.find_element(By.CSS_SELECTOR, "#label-form[data-ready]")
                    )
                except TimeoutException:
                    driver.get(self.server.url + "/label")
                    continue
                case = driver.find_element(By.ID, "case")
                key = (case.get_attribute("data-case-id"), case.get_attribute("data-model"))
                if key in self.acknowledged:
                    self.shown_after_ack.append(key)
                answer = driver.find_element(By.ID, "answer").text
                grounded = _grounded(self.name, key[0], answer)
                quality = 4 if grounded else 2
                # keyboard shortcuts: first criterion, then the next one, then Enter submits
                keys = ("y" if grounded else "n") + str(quality) + "\n"
                self.submitted[key] = (grounded, quality)
                driver.find_element(By.TAG_NAME, "body").send_keys(keys)
                try:
                    WebDriverWait(driver, 15, poll_frequency=0.05).until(staleness_of(ready))
                except TimeoutException:
                    self.failures += 1
                    driver.get(self.server.url + "/label")
                    continue
                WebDriverWait(driver, 15, poll_frequency=0.05).until(
                    lambda d: d.execute_script("return document.readyState") == "complete"
                )
                answered = driver.find_elements(By.ID, "case") or driver.find_elements(
                    By.ID, "queue-done"
                )
                if answered and not driver.find_elements(By.ID, "form-error"):
                    self.acknowledged[key] = (grounded, quality)  # the server answered
                else:
                    self.failures += 1
            except WebDriverException:
                self.failures += 1
                time.sleep(0.3)
                try:
                    self.driver.get(self.server.url + "/label")
                except WebDriverException:
                    time.sleep(0.3)
        if SCREENSHOTS is not None:
            self.driver.save_screenshot(str(SCREENSHOTS / f"stuck-{self.name}.png"))
        raise AssertionError(
            f"{self.name} did not finish in time ({len(self.acknowledged)} labelled, "
            f"{self.failures} failures; at {self.driver.current_url}: "
            f"{self.driver.find_element('tag name', 'body').text[:300]!r})"
        )


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_annotators_a_killed_server_and_an_export_that_calibrates(
    backend: str,
    small_run: EvaluationRun,
    chromium_factory: Any,
    request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:
    from selenium.webdriver.common.by import By

    run_dir = tmp_path / "run"
    shutil.copytree(small_run.path, run_dir)  # type: ignore[arg-type]
    if backend == "sqlite":
        db = str(run_dir / "labels.sqlite")
        url = f"sqlite:///{db}"
    else:
        db = url = new_pg_database(request.getfixturevalue("postgres_url"))
    tokens = {}
    for name in ("ada", "bob"):
        result = CliRunner().invoke(
            cli, ["labels", "add-annotator", str(run_dir), name, "--db", db]
        )
        assert result.exit_code == 0, result.output
        tokens[name] = result.output.strip()
    server = Server(run_dir, db, ["--criteria", "grounded,quality:1-5", "--overlap", "2"])
    server.start()
    try:
        people = [Annotator(n, chromium_factory(), server, tokens[n]) for n in ("ada", "bob")]
        for person in people:
            person.login()
        first = people[0].driver
        path = (SCREENSHOTS or tmp_path) / f"label-page-{backend}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        assert first.save_screenshot(str(path)) and path.stat().st_size > 10_000
        assert first.find_element(By.CSS_SELECTOR, "fieldset.criterion.current")  # script ran

        threads = [threading.Thread(target=p.run) for p in people]
        for t in threads:
            t.start()
        while sum(len(p.acknowledged) for p in people) < 16 and all(t.is_alive() for t in threads):
            time.sleep(0.05)
        server.kill()  # SIGKILL while both are labeling
        killed_at = {p.name: len(p.acknowledged) for p in people}
        time.sleep(1.0)
        server.start()
        for t in threads:
            t.join(300)
        for p in people:
            assert p.error is None, p.error
            assert p.done
            assert p.shown_after_ack == []  # never the same case twice
        n_items = len(small_run.results[["case_id", "model"]].drop_duplicates())
        assert all(0 < n < n_items for n in killed_at.values())  # the kill came mid-way

        # every label a browser saw acknowledged is in the database, with its values
        stored: dict[tuple[str, str, str], dict[str, int]] = {}
        for row in Store(url).judgments():
            stored.setdefault((row["annotator"], row["case_id"], row["model"]), {})[
                row["criterion"]
            ] = row["value"]
        for p in people:
            for (case_id, model), (grounded, quality) in p.acknowledged.items():
                assert stored[(p.name, case_id, model)] == {
                    "grounded": grounded,
                    "quality": quality,
                }
            # A label whose answer was lost (in the crash, or a timed-out wait on a loaded machine)
            # may be stored without an acknowledgement: only as submitted, at most one per failure seen.
            unacknowledged = {
                (case_id, model): values
                for (name, case_id, model), values in stored.items()
                if name == p.name and (case_id, model) not in p.acknowledged
            }
            assert len(unacknowledged) <= p.failures, (p.failures, unacknowledged)
            for key, values in unacknowledged.items():
                grounded, quality = p.submitted[key]
                assert values == {"grounded": grounded, "quality": quality}
        assert len(stored) == 2 * n_items  # every case by both annotators: the queue finished

        # the progress page: counts and agreement
        first.get(server.url + "/progress")
        rows = first.find_elements(By.CSS_SELECTOR, "#annotators tbody tr")
        counts = {
            r.get_attribute("data-annotator"): r.find_elements(By.TAG_NAME, "td")[1].text
            for r in rows
        }
        assert counts == {"ada": str(n_items), "bob": str(n_items)}
        grounded_table = first.find_element(
            By.CSS_SELECTOR, "table.agreement[data-criterion=grounded]"
        )
        cohen = grounded_table.find_element(By.CSS_SELECTOR, "td.cohen").text
        assert re.match(rf"0\.\d{{3}} \(n={n_items}\)", cohen), cohen
        assert first.find_element(By.ID, "n-complete").text == str(n_items)
        assert first.find_element(By.ID, "n-items").text == str(n_items)
        path = (SCREENSHOTS or tmp_path) / f"label-progress-{backend}.png"
        assert first.save_screenshot(str(path))
        for p in people:
            assert p.driver.execute_script("return window.__pwned === undefined")
            assert "PWNED" not in p.driver.title
    finally:
        server.stop()

    # the export calibrates
    labels = tmp_path / "labels.csv"
    result = CliRunner().invoke(
        cli,
        [
            "labels",
            "export",
            str(run_dir),
            "--db",
            db,
            "--criterion",
            "grounded",
            "--out",
            str(labels),
        ],
    )
    assert result.exit_code == 0, result.output
    out = tmp_path / "calibration"
    result = CliRunner().invoke(
        cli,
        [
            "calibrate",
            str(run_dir),
            "-m",
            "test_groundedness",
            "--labels",
            str(labels),
            "--n-boot",
            "50",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads((out / "calibration.json").read_text())
    assert n_items == 36
    ties = sum(
        1
        for key in stored
        if key[0] == "ada"
        and stored[key]["grounded"] != stored[("bob", key[1], key[2])]["grounded"]
    )
    assert ties > 0 and report["n"] == n_items - ties  # cases without a majority are left out
