"""MkDocs hooks: the reference pages generated from the code at build time, never typed by hand.

* ``reference/cli.md``: every command of the click tree with its usage, help and options (what
  ``assay COMMAND --help`` prints), so the page cannot drift from the CLI;
* ``reference/evaluators.md``: the evaluator catalogue from the registry (what
  ``assay evaluators --format markdown`` prints).

Pages are written for the repository too (GitHub renders them): links into the source tree
(``../tests/...``) become the path in code, and a fence's ``file=NAME`` (which the doc tests
read) becomes the block's title.

Wired in ``mkdocs.yml`` (``hooks:``); ``make docs`` builds the site strict.
"""

from __future__ import annotations

import re
from typing import Any

import click
from mkdocs.structure.files import File, Files


def _commands(group: click.Group, prefix: str) -> list[tuple[str, click.Command]]:
    out: list[tuple[str, click.Command]] = []
    for name, command in sorted(group.commands.items()):
        path = f"{prefix} {name}"
        out.append((path, command))
        if isinstance(command, click.Group):
            out += _commands(command, path)
    return out


def cli_reference() -> str:
    """Markdown of every command: its help text and its ``--help`` output."""
    from assay.cli.main import cli

    lines = [
        "# Command line",
        "",
        "Generated from the click commands at build time (the same text as `assay COMMAND "
        "--help`). Results and listings go to stdout, logs and progress to stderr; every "
        "listing takes `--format json`.",
        "",
    ]
    for path, command in _commands(cli, "assay"):
        with click.Context(command, info_name=path) as ctx:
            usage = command.get_help(ctx)
        lines += [f"## `{path}`", "", "```text", usage, "```", ""]
    return "\n".join(lines)


def evaluator_reference() -> str:
    """Markdown of the evaluator catalogue (the registry's declarations)."""
    from assay.evaluators.registry import catalogue
    from assay.report.catalogue import catalogue_markdown

    return "\n".join(
        [
            "# Evaluator catalogue",
            "",
            "Generated from the evaluator registry at build time (the same table as "
            "`assay evaluators --format markdown`): each evaluator's family, the fields it "
            "needs, its metrics with direction and default threshold, whether it is "
            "reproducible and the extra that installs it.",
            "",
            catalogue_markdown(catalogue()),
        ]
    )


def on_files(files: Files, config: Any) -> Files:
    """Add the generated reference pages to the site."""
    for path, content in (
        ("reference/cli.md", cli_reference()),
        ("reference/evaluators.md", evaluator_reference()),
    ):
        files.append(File.generated(config, path, content=content))
    return files


#: A link from a page to a file of the repository outside ``docs/`` (source, tests, scripts).
_REPO_LINK = re.compile(r"\[([^\]]+)\]\(\.\./((?:src|tests|benchmarks|scripts|\.ci)/[^)\s]*)\)")
_FENCE_FILE = re.compile(r"^(```\w+) file=(\S+)$", re.M)


def repository_links(markdown: str) -> str:
    """Links into the repository outside the site, as the path in code.

    Example:
        >>> repository_links("see [the test](../tests/a/test_b.py) and [`x.py`](../src/x.py)")
        'see the test (`tests/a/test_b.py`) and `x.py`'
    """

    def plain(match: re.Match[str]) -> str:
        text, path = match.group(1), match.group(2)
        return text if text.strip("`") == path.rstrip("/") or text.startswith("`") \
            else f"{text} (`{path}`)"

    return _FENCE_FILE.sub(r'\1 title="\2"', _REPO_LINK.sub(plain, markdown))


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """Rewrite what only makes sense in the repository (see the module docstring)."""
    return repository_links(markdown)
