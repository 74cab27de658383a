"""docs/reference-definitions.md covers every registered evaluator (issue #18's acceptance:
for every evaluator, the reference definition, assay's default, alternatives, differences)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "reference-definitions.md"
TOC = re.compile(
    r"<!-- BEGIN generated:reference-toc -->.*?<!-- END generated:reference-toc -->", re.S
)


@cache
def evaluator_names() -> list[str]:
    """The evaluators assay ships, listed in a fresh process: other tests register their own
    (e.g. a prompt file's judge evaluator) in this one."""
    code = (
        "import json; from assay.evaluators.registry import evaluator_names; "
        "print(json.dumps(evaluator_names()))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return list(json.loads(out.stdout))


def _body() -> str:
    """The document without its generated contents, from the first family section on."""
    text = TOC.sub("", DOC.read_text(encoding="utf-8"))
    return text[text.index("\n## retrieval") :]


def test_every_registered_evaluator_has_an_entry() -> None:
    body = _body()
    missing = [name for name in evaluator_names() if f"`{name}`" not in body]
    assert not missing, f"docs/reference-definitions.md has no entry for {missing}"


def test_contents_list_every_registered_evaluator() -> None:
    block = TOC.search(DOC.read_text(encoding="utf-8"))
    assert block is not None
    listed = set(re.findall(r"`([a-z0-9_]+)`", block.group(0)))
    assert listed == set(evaluator_names())
