"""Atomic file writes: an interrupted write never leaves a file that looks complete."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it is renamed onto ``path``.

    On an exception the temporary file is removed and ``path`` is left untouched.

    Example:
        >>> import tempfile, pathlib
        >>> target = pathlib.Path(tempfile.mkdtemp()) / "x.txt"
        >>> with atomic_path(target) as tmp:
        ...     _ = tmp.write_text("done")
        >>> target.read_text()
        'done'
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    os.close(fd)
    tmp = follow_umask(Path(name))
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def current_umask() -> int:
    """The process umask, read without changing it where ``/proc`` allows (thread-safe).

    Example:
        >>> 0 <= current_umask() <= 0o777
        True
    """
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: the only portable way is to set it and put it back
    os.umask(mask)
    return mask


def follow_umask(path: Path) -> Path:
    """Give a file or directory made by :mod:`tempfile` (always 0600 / 0700) the mode a plain
    create gives under the umask, so runs can be shared through a group; returns ``path``."""
    base = 0o777 if path.is_dir() else 0o666
    os.chmod(path, base & ~current_umask())
    return path


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically and return the path."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def write_json(path: str | os.PathLike[str], data: Any) -> Path:
    """Write ``data`` as indented JSON atomically; NaN and infinities are refused."""
    return write_text(path, json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n")


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Return the hex sha256 digest of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSON Lines text: split at ``"\\n"`` only (a trailing ``"\\r"`` dropped).

    ``str.splitlines()`` also splits at U+0085, U+2028 and U+2029, which JSON writers keep raw
    inside strings (``ensure_ascii=False``): a model answer holding one would cut its record in
    two. Every JSONL reader of assay splits here.

    Example:
        >>> jsonl_lines('{"a": "x\\u2028y"}\\r\\n{"b": 1}\\n')
        ['{"a": "x\\u2028y"}', '{"b": 1}']
    """
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return lines[:-1] if lines and lines[-1] == "" else lines
