"""Fixtures for the report tests: one evaluated run shared by the module, and headless Chromium."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.rundir.run import EvaluationRun

from .report_runs import build_dialogue_run, build_run

CHROMIUM = os.environ.get("ASSAY_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("ASSAY_CHROMEDRIVER", "/usr/bin/chromedriver")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
)


@pytest.fixture(scope="session")
def report_run(tmp_path_factory: pytest.TempPathFactory) -> EvaluationRun:
    return build_run(tmp_path_factory.mktemp("report") / "run")


@pytest.fixture(scope="session")
def dialogue_run(tmp_path_factory: pytest.TempPathFactory) -> EvaluationRun:
    return build_dialogue_run(tmp_path_factory.mktemp("dialogue") / "run")


def _browser_missing() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (Path(path).is_file() and os.access(path, os.X_OK)):
            return f"{path} not found"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the selenium package is not installed (pip install -e '.[dev]')"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Chromium driven by Selenium; skipped locally, required in CI (CI=true)."""
    missing = _browser_missing()
    if missing:
        message = (
            f"headless Chromium unavailable: {missing}. Install it with "
            "'apt-get install -y chromium chromium-driver'."
        )
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(message + " CI must run the browser tests (.ci/run installs them).")
        pytest.skip(message)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="assay-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
