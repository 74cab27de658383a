"""Run-directory reliability: one writer per destination, swap on overwrite, stale work removed,
destination problems raised before any scoring, a full disk loses nothing, the umask is followed."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import pytest

import assay
from assay import TestCase
from assay.errors import InvalidInputError, RunDirectoryError, RunLockedError
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec
from assay.rundir import load_run
from assay.rundir.directory import RunDirectory

SRC = Path(assay.__file__).resolve().parents[1]
DEMO = SRC / "assay" / "demo" / "suite.jsonl"


class _Counting(Evaluator):
    """Counts scored cases, to prove an error came before any scoring."""

    name = "counting"
    family = "test"
    description = "1 for every case"
    metrics = (MetricSpec("counting", "always 1", primary=True),)
    scored = 0

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        type(self).scored += len(cases)
        return [CaseResult.ok({"counting": 1.0}) for _ in cases]


def _cases(answer: str = "a") -> list[TestCase]:
    return [TestCase(id=str(i), actual_answer=answer, expected_answer="a") for i in range(4)]


def _partials(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if ".partial-" in p.name)


def test_a_second_writer_of_the_same_out_fails_at_once(tmp_path: Path) -> None:
    out = tmp_path / "run"
    holder = RunDirectory(out, overwrite=False)  # another `assay evaluate` writing `out`
    try:
        _Counting.scored = 0
        with pytest.raises(RunLockedError, match="another assay process is writing"):
            assay.evaluate(_cases(), [_Counting()], out=out)
        assert _Counting.scored == 0
        second = subprocess.run(  # a second `assay evaluate` process on the same --out
            [sys.executable, "-m", "assay.cli.main", "evaluate", str(DEMO), "-e", "exact_match",
             "--out", str(out), "--overwrite"],
            capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(SRC)},
        )  # fmt: skip
        assert second.returncode == 2, second.stderr
        assert "another assay process is writing" in second.stderr
        assert holder.work.is_dir()  # the live writer's work directory is not "stale"
    finally:
        holder.discard()
    assert not (tmp_path / ".run.lock").exists()  # the holder removed its lock file
    assay.evaluate(_cases(), ["exact_match"], out=out)  # the lock is free again
    assert load_run(out).manifest["status"] == "complete"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_overwrite_swaps_and_leaves_nothing_behind(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assay.evaluate(_cases("a"), ["exact_match"], out=out)
    assay.evaluate(_cases("b"), ["exact_match"], out=out, overwrite=True)
    assert load_run(out).leaderboard[0]["value"] == 0.0
    assert _partials(tmp_path) == []


def test_stale_work_directories_are_removed_when_the_lock_is_free(tmp_path: Path) -> None:
    out = tmp_path / "run"
    stale = tmp_path / ".run.partial-dead1234"
    stale.mkdir()
    (stale / "results.parquet").write_bytes(b"x" * 1000)
    other = tmp_path / ".other.partial-alive"  # another destination's work: not ours to remove
    other.mkdir()
    assay.evaluate(_cases(), ["exact_match"], out=out)
    assert not stale.exists() and other.is_dir()


@pytest.mark.parametrize("case", ["under_a_file", "dangling_symlink", "symlink_overwrite", "file"])
def test_unusable_out_is_a_named_error_before_scoring(tmp_path: Path, case: str) -> None:
    target = tmp_path / "real"
    target.mkdir()
    if case == "under_a_file":
        (tmp_path / "f").write_text("x")
        out, match = tmp_path / "f" / "run", "is not a directory"
    elif case == "dangling_symlink":
        out, match = tmp_path / "link", "dangling symbolic link"
        out.symlink_to(tmp_path / "missing")
    elif case == "symlink_overwrite":
        out, match = tmp_path / "link", "is a symbolic link"
        out.symlink_to(target)
    else:
        out, match = tmp_path / "plain", "not a directory"
        out.write_text("x")
    _Counting.scored = 0
    with pytest.raises(RunDirectoryError, match=match):
        assay.evaluate(_cases(), [_Counting()], out=out, overwrite=True)
    assert _Counting.scored == 0
    assert target.is_dir() and _partials(tmp_path) == []


def test_existing_out_without_overwrite_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assay.evaluate(_cases(), ["exact_match"], out=out)
    with pytest.raises(InvalidInputError, match="already exists"):
        assay.evaluate(_cases(), ["exact_match"], out=out)


def test_a_full_disk_is_a_named_error_and_the_old_run_survives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    assay.evaluate(_cases("a"), ["exact_match"], out=out)
    before = load_run(out).manifest["files"]

    def full(self: object, rows: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("assay.rundir.results.ResultWriter.write", full)
    with pytest.raises(RunDirectoryError, match="no space left"):
        assay.evaluate(_cases("b"), ["exact_match"], out=out, overwrite=True)
    assert load_run(out).manifest["files"] == before
    assert _partials(tmp_path) == []


def test_files_and_directories_follow_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o002)  # a team sharing runs through a group
    try:
        out = tmp_path / "run"
        assay.evaluate(_cases(), ["exact_match"], out=out)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(out.stat().st_mode) == 0o775
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()}
    assert modes and all(mode == 0o664 for mode in modes.values()), modes


# -- real file systems (a user and mount namespace: no root needed) -------------------------

NAMESPACE = shutil.which("unshare") is not None and (
    subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode == 0
)


def _in_namespace(tmp_path: Path, mount_options: str, script: str) -> subprocess.CompletedProcess[str]:
    mount = tmp_path / "fs"
    mount.mkdir()
    code = tmp_path / "script.py"
    code.write_text(textwrap.dedent(script))
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c",
         f'mount -t tmpfs -o {mount_options} tmpfs "$1" && exec "$2" "$3" "$1"', "sh",
         str(mount), sys.executable, str(code)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(SRC)},
    )  # fmt: skip


@pytest.mark.skipif(not NAMESPACE, reason="needs 'unshare -rm' (user namespaces)")
def test_read_only_file_system_is_a_named_error_before_scoring(tmp_path: Path) -> None:
    done = _in_namespace(
        tmp_path,
        "ro,size=1m",
        """
        import subprocess, sys
        import assay.demo
        done = subprocess.run([sys.executable, "-m", "assay.cli.main", "evaluate",
                               str(assay.demo.demo_dir() / "suite.jsonl"), "-e", "exact_match",
                               "--out", sys.argv[1] + "/run"], capture_output=True, text=True)
        print("EXIT", done.returncode)
        print(done.stdout, done.stderr)
        """,
    )
    assert "EXIT 2" in done.stdout and "Read-only file system" in done.stdout, done
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.skipif(not NAMESPACE, reason="needs 'unshare -rm' (user namespaces)")
def test_disk_full_on_a_real_small_file_system_keeps_the_old_run(tmp_path: Path) -> None:
    done = _in_namespace(
        tmp_path,
        "size=2m",
        """
        import sys
        from pathlib import Path
        import assay
        from assay import TestCase
        from assay.errors import RunDirectoryError
        root = Path(sys.argv[1])
        out = root / "run"
        cases = [TestCase(id=str(i), actual_answer="a", expected_answer="a") for i in range(20)]
        assay.evaluate(cases, ["exact_match"], out=out)
        before = assay.load_run(out).manifest["files"]
        free = __import__("os").statvfs(root)
        room = free.f_bavail * free.f_frsize
        (root / "filler").write_bytes(b"0" * max(room - 40_000, 0))
        big = [TestCase(id=str(i), actual_answer="b" * 2000, expected_answer="a")
               for i in range(200)]
        try:
            assay.evaluate(big, ["exact_match"], out=out, overwrite=True)
            print("NO ERROR")
        except RunDirectoryError as exc:
            print("NAMED", exc)
        print("INTACT", assay.load_run(out).manifest["files"] == before)
        print("LEFT", sorted(p.name for p in root.iterdir()))
        """,
    )
    assert "NAMED" in done.stdout and "no space left" in done.stdout, done
    assert "INTACT True" in done.stdout, done
    assert "LEFT ['filler', 'run']" in done.stdout, done
