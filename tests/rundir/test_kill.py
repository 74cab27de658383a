"""A writer SIGKILLed at any point of a run leaves the old complete run or the new complete run.

The child process counts the file-system operations of ``assay.evaluate`` (Python audit events:
every open, rename, mkdir, chmod, remove; plus the directory exchange) and SIGKILLs itself at the
k-th; hypothesis chooses k, favouring the commit at the end.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import assay
from assay import TestCase
from assay.rundir import load_run

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    import assay
    from assay import TestCase
    import assay.rundir.directory as directory

    out, kill_at, answer = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    cases = [TestCase(id=str(i), actual_answer=answer, expected_answer="a") for i in range(6)]
    assay.evaluate(cases, ["exact_match"])  # warm up: lazy imports happen before counting
    WATCH = {"open", "os.rename", "os.replace", "os.mkdir", "os.chmod", "os.remove",
             "os.rmdir", "shutil.rmtree", "assay.exchange"}
    state = {"on": False, "n": 0}

    def hook(event, args):
        if state["on"] and event in WATCH:
            state["n"] += 1
            if state["n"] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)

    sys.addaudithook(hook)
    exchange = directory._exchange

    def watched(a, b):
        hook("assay.exchange", ())
        exchange(a, b)
        hook("assay.exchange", ())

    directory._exchange = watched
    commit = directory.RunDirectory.commit

    def counted_commit(self):
        state["commit"] = state["n"]
        return commit(self)

    directory.RunDirectory.commit = counted_commit
    state["on"] = True
    assay.evaluate(cases, ["exact_match"], out=out, overwrite=True)
    state["on"] = False
    print(state["commit"], state["n"])
    """
)


def _child(out: Path, kill_at: int, answer: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHILD, str(out), str(kill_at), answer],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _cases(answer: str) -> list[TestCase]:
    return [TestCase(id=str(i), actual_answer=answer, expected_answer="a") for i in range(6)]


@pytest.fixture(scope="module")
def n_operations(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, tuple[int, int]]:
    """File-system operations of one run, counted by uninterrupted children: with an old run
    to replace (True) and without (False); (operations before the commit, all operations)."""
    counts = {}
    for existing in (True, False):
        out = tmp_path_factory.mktemp("count") / "run"
        if existing:
            assay.evaluate(_cases("a"), ["exact_match"], out=out)
        done = _child(out, -1, "b")
        assert done.returncode == 0, done.stderr
        before_commit, total = done.stdout.split()[-2:]
        counts[existing] = (int(before_commit), int(total))
    return counts


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), existing=st.booleans())
def test_a_killed_writer_leaves_the_old_or_the_new_complete_run(
    tmp_path_factory: pytest.TempPathFactory,
    n_operations: dict[bool, tuple[int, int]],
    data: st.DataObject,
    existing: bool,
) -> None:
    commit, last = n_operations[existing]
    kill_at = data.draw(
        st.one_of(st.integers(1, last), st.integers(commit + 1, last)),  # anywhere, or the commit
        label="kill_at",
    )
    root = tmp_path_factory.mktemp("kill")
    out = root / "run"
    if existing:
        assay.evaluate(_cases("a"), ["exact_match"], out=out)  # old run: value 1.0
    done = _child(out, kill_at, "b")  # new run: value 0.0
    assert done.returncode == -9, (kill_at, last, done.returncode, done.stderr[-2000:])
    if out.exists():
        value = load_run(out).leaderboard[0]["value"]  # complete and intact, or refused
        assert value in ((1.0, 0.0) if existing else (0.0,))
    else:
        assert not existing, "the old run vanished"
    # the next writer takes the lock, clears the killed one's work directory and succeeds
    assay.evaluate(_cases("b"), ["exact_match"], out=out, overwrite=True)
    assert load_run(out).leaderboard[0]["value"] == 0.0
    assert [p.name for p in root.iterdir() if ".partial-" in p.name] == []
