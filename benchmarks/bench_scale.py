"""Scaling of ``assay evaluate`` (and ``assay assess``): the demo suite replicated to 12k / 119k
(/ 1M) cases, locally and on Ray with 2 workers — wall, CPU, peak RSS, run directory and report
sizes, with the load.

Run: ``python benchmarks/bench_scale.py [--sizes 12000,119100,1000000] [--executors local,ray]
[--ray-sizes 12000,119100] [--commands evaluate,assess]`` (1,000,000 takes about half an hour on
two cores; ``--ray-sizes`` limits Ray to those sizes, default every size; ``--commands`` default
``evaluate``). Writes ``benchmarks/results/scale.md`` (``--out``: another file, e.g. the
assessment's rows beside the evaluation's).

The bundled demo suite (300 cases: three systems, perturbed variants, attacks) is written
``ceil(N / 300)`` times with ids (and parent ids) suffixed per copy, cut to N rows, and evaluated
as a user would: ``assay evaluate SUITE -e rouge,bleu,exact_match,token_f1,retrieval,
text_statistics --out DIR`` in a fresh process (the whole run directory: results, leaderboard,
analysis, reports). ``assess``: ``assay assess PLAN --out DIR`` on the demo's validation plan over
the replicated suite with the same six evaluators (the checks whose metrics they produce: correct
answers, calibrated to the ``correct`` labels, and relevant chunk retrieved), its labels
replicated with the cases (each copy keeps its rows' ``labels`` field and ``labels_random.csv``'s
rows, ids suffixed alike): the run directory as above, then the verdict and its files.
Ray: ``--executor ray --workers 2`` on a local Ray instance that the command
starts itself (its start-up included), on the same two cores.

Figures per run: wall seconds; CPU seconds of the ``assay`` process and, separately, of every
process under it (Ray's GCS, raylet and workers, which run the batches; sampled every 0.2 s with
psutil); peak RSS of the ``assay`` process (the driver that reads the suite and writes the run
directory) and of the processes under it; the run directory's size and ``report.html``'s. The
1-minute load average is read before and after each run: the machine is shared, so wall seconds
carry other people's work; CPU seconds are steadier.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from results_file import publish  # noqa: E402

EVALUATORS = "rouge,bleu,exact_match,token_f1,retrieval,text_statistics"


def demo_rows() -> list[dict[str, object]]:
    """The bundled demo suite's rows, as JSON objects."""
    from assay.demo import demo_suite_path

    with demo_suite_path().open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def write_replicated(path: Path, n: int) -> None:
    """``n`` rows: the demo suite copied with ids and parent ids suffixed ``~K`` per copy."""
    rows = demo_rows()
    written = 0
    with path.open("w", encoding="utf-8") as handle:
        for copy in range(math.ceil(n / len(rows))):
            for row in rows:
                if written == n:
                    return
                out = dict(row)
                out["id"] = f"{row['id']}~{copy}"
                for key in ("parent_id", "sample_of"):
                    if out.get(key):
                        out[key] = f"{out[key]}~{copy}"
                handle.write(json.dumps(out, ensure_ascii=False) + "\n")
                written += 1


def write_plan(suite: Path, n: int) -> Path:
    """The demo's validation plan over ``suite`` (the first ``n`` rows of the replicated demo
    suite) with :data:`EVALUATORS`, written beside it as ``SUITE.toml``: its checks restricted to
    the metrics those produce, its labels (the suite's own and ``labels_random.csv``, replicated
    per copy like the cases)."""
    from assay.demo import demo_dir, demo_plan_path, with_evaluators
    from assay.verdict import load_plan

    demo = with_evaluators(load_plan(demo_plan_path()), EVALUATORS.split(","))
    lines = [f"title = {_toml(demo.title)}", "", "[run]", f"suite = {_toml(suite.name)}",
             f"evaluators = {_toml(EVALUATORS.split(','))}", f"seed = {demo.run.seed}", "",
             "[labels]"]  # fmt: skip
    lines += [f"{key} = {_toml(value)}" for key, value in _section(demo.labels).items()]
    lines += ["", "[calibration]"]
    lines += [f"{key} = {_toml(value)}" for key, value in _section(demo.calibration).items()]
    for check in demo.check:  # as ``assay demo`` without an extra: the metrics measured
        lines += ["", "[[check]]"]
        body = {**_section(check), "metrics": check.metrics}
        lines += [f"{key} = {_toml(value)}" for key, value in body.items()]
    for source in demo.labels.sources:
        if source != "suite":
            _replicate_labels(demo_dir() / source, suite.parent / source, n)
    plan = suite.with_suffix(".toml")
    plan.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return plan


def _section(model: Any) -> dict[str, Any]:
    """A plan section's fields as the plan file would write them (defaults left out)."""
    return model.model_dump(mode="json", exclude_defaults=True)  # type: ignore[no-any-return]


def _toml(value: Any) -> str:
    """A TOML value: strings (JSON's escapes are TOML's), numbers, booleans, lists, tables."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


def _replicate_labels(source: Path, target: Path, n: int) -> None:
    """``source``'s label rows for each copy of the demo suite among its first ``n`` rows, ids
    suffixed as :func:`write_replicated` suffixes them."""
    rows = demo_rows()
    with source.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        fields, labels = reader.fieldnames or [], list(reader)
    with target.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fields)
        writer.writeheader()
        for copy in range(math.ceil(n / len(rows))):
            present = {(r["id"], r["model"]) for r in rows[: n - copy * len(rows)]}
            writer.writerows(
                {**label, "id": f"{label['id']}~{copy}"}
                for label in labels
                if (label["id"], label["model"]) in present
            )


def directory_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


class TreeSampler(threading.Thread):
    """Every 0.2 s: the CPU seconds of each process under ``pid`` (kept per process, so one that
    exits keeps its last reading) and the peak of their summed resident memory."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.cpu: dict[int, float] = {}
        self.peak_rss = 0.0
        self._done = threading.Event()

    def run(self) -> None:
        import psutil

        while not self._done.wait(0.2):
            try:
                children = psutil.Process(self.pid).children(recursive=True)
            except psutil.Error:
                continue
            rss = 0.0
            for child in children:
                try:
                    times = child.cpu_times()
                    self.cpu[child.pid] = times.user + times.system
                    rss += child.memory_info().rss
                except psutil.Error:
                    continue
            self.peak_rss = max(self.peak_rss, rss / 2**20)

    def stop(self) -> None:
        self._done.set()
        self.join()


#: Exit statuses of a completed command: ``assess`` exits 1 on FAIL and 3 on INCONCLUSIVE.
COMPLETED = {"evaluate": {0}, "assess": {0, 1, 3}}


def run_once(suite: Path, out: Path, executor: str, command_name: str) -> dict[str, float]:
    """One ``assay evaluate SUITE`` (or ``assay assess PLAN``, the plan over ``SUITE`` written
    beside it) in a fresh process; its own and its descendants' figures."""
    command = [sys.executable, "-m", "assay.cli.main"]
    if command_name == "assess":
        command += ["assess", str(suite.with_suffix(".toml")), "--out", str(out)]
    else:
        command += ["evaluate", str(suite), "-e", EVALUATORS, "--out", str(out), "--overwrite"]
    if executor == "ray":
        command += ["--executor", "ray", "--workers", "2"]
    env = {**os.environ, "RAY_ADDRESS": ""}
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    sampler = TreeSampler(process.pid)
    sampler.start()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    sampler.stop()
    stderr = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) not in COMPLETED[command_name]:
        raise RuntimeError(f"{command_name} {executor} {suite.name} failed: {stderr[-2000:]}")
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "cpu_descendants": sum(sampler.cpu.values()),
        "rss_descendants": sampler.peak_rss,
        "rss_mib": usage.ru_maxrss / 1024,
        "run_mb": directory_mb(out),
        "report_mb": next(out.rglob("report.html")).stat().st_size / 1e6,  # assess: in run/
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="12000,119100")
    parser.add_argument("--executors", default="local,ray")
    parser.add_argument("--ray-sizes", default=None, help="sizes run on Ray (default: all)")
    parser.add_argument("--commands", default="evaluate", help="evaluate, assess or both")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "scale.md")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    executors = [e for e in args.executors.split(",") if e]
    commands = [c for c in args.commands.split(",") if c]
    if unknown := set(commands) - set(COMPLETED):
        parser.error(f"unknown commands {sorted(unknown)}: choose among {sorted(COMPLETED)}")
    ray_sizes = sizes if args.ray_sizes is None else [int(s) for s in args.ray_sizes.split(",")]
    rows = []
    runs = list(itertools.product(commands, executors))
    per_case: dict[tuple[str, str], dict[int, tuple[float, float]]] = {run: {} for run in runs}
    with tempfile.TemporaryDirectory(prefix="assay-bench-scale-") as name:
        tmp = Path(name)
        for n in sizes:
            folder = tmp / f"suite-{n}"
            folder.mkdir()
            suite = folder / "suite.jsonl"
            write_replicated(suite, n)
            if "assess" in commands:
                write_plan(suite, n)
            for command_name, executor in runs:
                if executor == "ray" and n not in ray_sizes:
                    continue
                out = tmp / f"{command_name}-{executor}-{n}"
                r = run_once(suite, out, executor, command_name)
                shutil.rmtree(out)
                total_cpu = r["cpu"] + r["cpu_descendants"]
                per_case[(command_name, executor)][n] = (r["wall"] / n, total_cpu / n)
                rows.append(
                    [f"{n:,}", command_name, executor if executor == "local" else "ray, 2 workers",
                     f"{r['wall']:.1f}", f"{r['cpu']:.1f}", f"{r['cpu_descendants']:.1f}",
                     f"{1e3 * r['wall'] / n:.2f}", f"{r['rss_mib']:.0f}",
                     f"{r['rss_descendants']:.0f}", f"{r['run_mb']:.1f}",
                     f"{r['report_mb']:.1f}", f"{r['load_before']:.1f} → {r['load_after']:.1f}"]
                )  # fmt: skip
                print(" | ".join(rows[-1]), flush=True)
            shutil.rmtree(folder)
    command = f"python benchmarks/bench_scale.py --sizes {args.sizes} --executors {args.executors}"
    if args.ray_sizes is not None:
        command += f" --ray-sizes {args.ray_sizes}"
    if args.commands != "evaluate":
        command += f" --commands {args.commands}"
    if args.out != HERE / "results" / "scale.md":
        command += f" --out {args.out}"
    headers = ["cases", "command", "executor", "wall (s)", "CPU assay (s)", "CPU Ray processes (s)",
               "wall per case (ms)", "peak RSS assay (MiB)", "peak RSS Ray processes (MiB)",
               "run directory (MB)",
               "report.html (MB)", "load (1 min) before → after"]  # fmt: skip
    lines = [
        f"# Scaling: `assay {'` and `assay '.join(commands)}` on the replicated demo suite, "
        "local and Ray",
        "",
        f"Generated by `{command}`. Python {platform.python_version()} on {os.cpu_count()} "
        "CPUs shared with other engineers' work (the load column: the 1-minute load average "
        "before and after each run; with a load above the CPU count wall seconds measure the "
        "neighbours as much as assay, CPU seconds are the steadier figure). "
        f"Evaluators: `{EVALUATORS}`; the demo suite (300 cases) replicated with suffixed ids; "
        "one run each, a fresh process, the whole run directory written. Ray: a local instance "
        "started by the command, 2 workers of 1 CPU (start-up included). *Ray processes*: every "
        "process under the command (GCS, raylet, workers), sampled every 0.2 s — CPU seconds "
        "summed over processes, RSS summed at its peak (shared pages counted in each process).",
        "",
        "| " + " | ".join(headers) + " |",
        "|" + "---|" * len(headers),
        *("| " + " | ".join(r) + " |" for r in rows),
    ]
    for (command_name, executor), times in per_case.items():
        measured = sorted(times)
        for small, large in itertools.pairwise(measured):  # each size against the next smaller
            (wall_small, cpu_small), (wall_large, cpu_large) = times[small], times[large]
            lines.append(
                f"\n{command_name}, {executor}: per case at {large:,} vs {small:,}: wall "
                f"{wall_large / wall_small:.2f}×, CPU {cpu_large / cpu_small:.2f}×."
            )
    publish(args.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
