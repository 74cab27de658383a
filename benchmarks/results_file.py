"""Writing a benchmark's Markdown results file, shared by the ``bench_*.py`` scripts."""

from __future__ import annotations

from pathlib import Path

from assay.fileio import write_text


def publish(path: Path, lines: list[str], *, echo: bool = True) -> None:
    """Write ``lines`` to ``path`` (atomically, folders created, one final newline) and, with
    ``echo``, print them.

    Example:
        >>> import tempfile
        >>> out = Path(tempfile.mkdtemp()) / "results" / "demo.md"
        >>> publish(out, ["# Demo", "", "| a |"], echo=False)
        >>> out.read_text(encoding="utf-8")
        '# Demo\\n\\n| a |\\n'
    """
    text = "\n".join(lines).rstrip("\n") + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, text)
    if echo:
        print(text, end="")
