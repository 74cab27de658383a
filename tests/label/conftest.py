"""Fixtures for the labeling tests: a run (the report tests' run), label stores on SQLite and on
a throwaway PostgreSQL cluster, the real server in a subprocess, and headless Chromium browsers
built like the report tests' (same binaries, flags and CI rule)."""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import assay
from assay.rundir.run import EvaluationRun
from report.conftest import CHROMEDRIVER, CHROMIUM, CHROMIUM_FLAGS, _browser_missing
from report.report_runs import WordOverlapGrounding, build_run, report_cases

ASSAY = [sys.executable, "-c", "from assay.cli.main import main; main()"]
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def _unavailable(message: str) -> None:
    """Skip locally; fail in CI, which must run every test."""
    if IN_CI:
        pytest.fail(message + " (CI must run this test; .ci/run installs what it needs)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def label_run(tmp_path_factory: pytest.TempPathFactory) -> EvaluationRun:
    """30 cases x 2 models (+ perturbed copies) with topics, query types, per-sentence evidence
    and an answer carrying a script tag (the report tests' run)."""
    return build_run(tmp_path_factory.mktemp("label") / "run")


@pytest.fixture(scope="session")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> EvaluationRun:
    """The same kind of run with 12 cases x 2 models (+ 12 perturbed copies): 36 to label."""
    return assay.evaluate(
        report_cases(n=12),
        [WordOverlapGrounding(), "token_f1"],
        out=tmp_path_factory.mktemp("label-small") / "run",
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --------------------------------------------------------------------------- PostgreSQL
def _pg_bin() -> Path | None:
    for name in ("initdb", "pg_ctl"):
        found = shutil.which(name)
        if found:
            return Path(found).resolve().parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(candidates[-1]).parent if candidates else None


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A throwaway PostgreSQL cluster on a free loopback port, in a temporary directory."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("psycopg is not installed (pip install -e '.[label]')")
    bindir = _pg_bin()
    if bindir is None:
        _unavailable(
            "PostgreSQL server binaries (initdb, pg_ctl) not found: apt-get install postgresql"
        )
    assert bindir is not None
    root = Path(tempfile.mkdtemp(prefix="assay-pg-"))
    data = root / "data"
    port = free_port()
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root: use an unprivileged account
        shutil.chown(root, "nobody")
        root.chmod(0o700)
        as_user = ["runuser", "-u", "nobody", "--"]
    env = {**os.environ, "LC_ALL": "C"}
    subprocess.run(
        [
            *as_user,
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            "assay",
            "-A",
            "trust",
            "--no-sync",
            "-E",
            "UTF8",
        ],
        check=True,
        capture_output=True,
        env=env,
    )
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=on"
    subprocess.run(
        [
            *as_user,
            str(bindir / "pg_ctl"),
            "-D",
            str(data),
            "-o",
            options,
            "-l",
            str(root / "log"),
            "-w",
            "start",
        ],
        check=True,
        capture_output=True,
        env=env,
    )
    try:
        yield f"postgresql://assay@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
            env=env,
        )
        shutil.rmtree(root, ignore_errors=True)


def new_pg_database(url: str) -> str:
    """A fresh, empty database on the throwaway cluster."""
    import psycopg

    name = f"t{os.getpid()}_{time.monotonic_ns()}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return url.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL: a SQLite file, or a fresh database on the PostgreSQL cluster."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'labels.sqlite'}"
    return new_pg_database(request.getfixturevalue("postgres_url"))


# --------------------------------------------------------------------------- the server
class Server:
    """``assay label`` in a subprocess (the real uvicorn server), killable and restartable."""

    def __init__(self, run_dir: Path, db: str, args: list[str]) -> None:
        self.run_dir, self.db, self.args = run_dir, db, args
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = run_dir / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [
            *ASSAY,
            "label",
            str(self.run_dir),
            "--port",
            str(self.port),
            "--db",
            self.db,
            *self.args,
        ]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as response:
                    if response.read() == b"ok":
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not start in 60 s")

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, as in a crash."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


# --------------------------------------------------------------------------- browsers
@pytest.fixture
def chromium_factory() -> Iterator[Any]:
    """Make independent headless Chromium sessions (own profiles, so own cookies)."""
    missing = _browser_missing()
    if missing:
        _unavailable(
            f"headless Chromium unavailable: {missing}. Install it with "
            "'apt-get install -y chromium chromium-driver'."
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    made: list[tuple[Any, str]] = []

    def make() -> Any:
        profile = tempfile.mkdtemp(prefix="assay-label-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        driver.set_page_load_timeout(30)
        made.append((driver, profile))
        return driver

    yield make
    for driver, profile in made:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
