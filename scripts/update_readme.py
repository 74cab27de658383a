"""Regenerate the generated blocks of README.md (never typed by hand).

Blocks look like ``<!-- BEGIN generated:NAME -->`` ... ``<!-- END generated:NAME -->``. NAME is
``catalogue`` (the evaluator registry) or a file under ``benchmarks/results/`` (e.g.
``pii.md``) written by a benchmark script; ``calibration.md#Targets`` takes only the section under
the heading ``## Targets``; ``reference-toc`` (in ``docs/reference-definitions.md``) lists every
registered evaluator by family; ``judge-counterparts`` (in ``docs/judge.md``) each judge evaluator's
judge-free counterparts. Run with ``--check`` to fail when a file is stale.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(<!-- BEGIN generated:(\S+) -->\n)(.*?)(<!-- END generated:\2 -->)", re.S)


def render(name: str) -> str:
    """The content of block ``name``."""
    if name == "reference-toc":
        return reference_toc()
    if name == "judge-counterparts":
        return judge_counterparts()
    if name == "catalogue":
        from assay.evaluators.registry import catalogue
        from assay.report.catalogue import catalogue_markdown

        return catalogue_markdown(catalogue()) + "\n"
    file, _, section = name.partition("#")
    path = ROOT / "benchmarks" / "results" / file
    if not path.is_file():
        return f"_Not measured yet: run the benchmark that writes `benchmarks/results/{file}`._\n"
    text = path.read_text(encoding="utf-8")
    if section:
        # the heading, or the heading with a parenthesis after it ("## Goals (issue 45)")
        heading = rf"^## {re.escape(section)}(?: \([^)\n]*\))?\n"
        match = re.search(rf"{heading}(.*?)(?=^## |\Z)", text, re.S | re.M)
        if match is None:
            raise SystemExit(f"benchmarks/results/{file} has no section '## {section}'")
        text = match.group(1)
    text = re.sub(r"^(#+) ", lambda m: "#" * min(len(m.group(1)) + 3, 6) + " ", text, flags=re.M)
    text = re.sub(r"^(#+ .*)$", lambda m: untracked(m.group(1)), text, flags=re.M)
    return text.strip() + f"\n\n_(from `benchmarks/results/{file}`)_\n"


def untracked(heading: str) -> str:
    """A heading without tracker or design-note numbers (user documentation names no issue).

    Example:
        >>> untracked("## Verdict validity and cost (issue 17)")
        '## Verdict validity and cost'
        >>> untracked("## Conflicting figures (the figure rule, design note 0052)")
        '## Conflicting figures (the figure rule)'
    """
    heading = re.sub(r"\s*\((?:issue|design note) \d+\)", "", heading)
    return re.sub(r",\s*(?:issue|design note) \d+(?=\))", "", heading)


def reference_toc() -> str:
    """Every registered evaluator, grouped by family (the reference document's contents)."""
    from assay.evaluators.registry import evaluator_class, evaluator_names

    families: dict[str, list[str]] = {}
    for name in evaluator_names():
        families.setdefault(evaluator_class(name).family, []).append(name)
    return "".join(
        f"- **{family}**: " + ", ".join(f"`{n}`" for n in sorted(names)) + "\n"
        for family, names in sorted(families.items())
    )


def judge_counterparts() -> str:
    """A table of every registered judge evaluator's judge-free counterparts (``docs/judge.md``),
    from the ``counterpart`` attribute that also ends its description."""
    from assay.evaluators.judge_base import JudgeEvaluator, counterpart_text
    from assay.evaluators.registry import evaluator_class, evaluator_names

    rows = [
        f"| `{name}` | {counterpart_text(cls.counterpart, cls.counterpart_use, quote='`')} |\n"
        for name in evaluator_names()
        if issubclass(cls := evaluator_class(name), JudgeEvaluator)
    ]
    return "| evaluator | judge-free counterparts |\n|---|---|\n" + "".join(rows)


def updated(text: str) -> str:
    """README text with every generated block re-rendered."""
    return BLOCK.sub(lambda m: m.group(1) + render(m.group(2)) + m.group(4), text)


GENERATED_FILES = (
    "README.md",
    "docs/reference-definitions.md",
    "docs/judge.md",
    "docs/validity.md",
    "docs/benchmarks.md",
)


def main() -> int:
    stale = []
    for relative in GENERATED_FILES:
        path = ROOT / relative
        text = path.read_text(encoding="utf-8")
        new = updated(text)
        if new == text:
            continue
        if "--check" in sys.argv:
            stale.append(relative)
        else:
            path.write_text(new, encoding="utf-8")
    if stale:
        print(f"{', '.join(stale)} stale: run 'make readme'", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
