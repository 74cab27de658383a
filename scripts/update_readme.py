"""Regenerate the generated blocks of README.md (never typed by hand).

Blocks look like ``<!-- BEGIN generated:NAME -->`` ... ``<!-- END generated:NAME -->``. NAME is
``catalogue`` (the evaluator registry) or a file under ``benchmarks/results/`` (e.g.
``pii.md``) written by a benchmark script. Run with ``--check`` to fail when README is stale.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(<!-- BEGIN generated:(\S+) -->\n)(.*?)(<!-- END generated:\2 -->)", re.S)


def render(name: str) -> str:
    """The content of block ``name``."""
    if name == "catalogue":
        from assay.evaluators.registry import catalogue
        from assay.report.catalogue import catalogue_markdown

        return catalogue_markdown(catalogue()) + "\n"
    path = ROOT / "benchmarks" / "results" / name
    if not path.is_file():
        return f"_Not measured yet: run the benchmark that writes `benchmarks/results/{name}`._\n"
    return path.read_text(encoding="utf-8").rstrip() + "\n"


def updated(text: str) -> str:
    """README text with every generated block re-rendered."""
    return BLOCK.sub(lambda m: m.group(1) + render(m.group(2)) + m.group(4), text)


def main() -> int:
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    new = updated(text)
    if "--check" in sys.argv:
        if new != text:
            print("README.md is stale: run 'make readme'", file=sys.stderr)
            return 1
        return 0
    readme.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
