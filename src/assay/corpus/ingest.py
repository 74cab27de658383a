"""Corpus ingestion: a folder or a list of files (txt, md, html, pdf, docx) into documents.

Each reader returns the document's plain text; chunk offsets index that text
(:attr:`Document.text`). Plain text and Markdown are read as they are (UTF-8, line endings
normalised), HTML through BeautifulSoup (scripts and styles removed, block elements as
paragraphs), PDF through pypdf (lines re-flowed into paragraphs, hyphenated line breaks joined)
and DOCX through python-docx (paragraphs and table rows). A file that cannot be read is recorded
as a failure naming the file and the reason, and the others are still read.
"""

from __future__ import annotations

import logging
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assay.errors import InvalidInputError, require
from assay.progress import ProgressCallback

logger = logging.getLogger(__name__)

#: File extensions read, and the format each one is read as.
FORMATS: dict[str, str] = {
    ".txt": "text", ".text": "text", ".md": "markdown", ".markdown": "markdown",
    ".rst": "text", ".html": "html", ".htm": "html", ".pdf": "pdf", ".docx": "docx",
}
_BLOCK_TAGS = (
    "p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table", "br",
    "section", "article", "header", "footer", "pre", "blockquote", "dd", "dt", "dl", "td", "th",
    "title", "main", "aside", "figcaption", "hr",
)
_DROP_TAGS = ("script", "style", "noscript", "template", "svg", "head", "nav")


@dataclass(frozen=True)
class Document:
    """One ingested document.

    Attributes:
        id: Stable identifier: the path relative to the corpus root (POSIX separators).
        path: The file it was read from.
        format: ``text``, ``markdown``, ``html``, ``pdf`` or ``docx``.
        text: The extracted plain text (chunk offsets index it).
        title: The document's title where the format has one (HTML ``<title>``, first heading).
    """

    id: str
    path: str
    format: str
    text: str
    title: str | None = None


@dataclass
class Corpus:
    """The documents read and the files that could not be read (``(path, reason)``)."""

    documents: list[Document] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.documents)


def normalise_text(text: str) -> str:
    """NFC, ``\\n`` line endings, no trailing spaces, at most one blank line in a row.

    Example:
        >>> normalise_text("a  \\r\\nb\\n\\n\\n\\nc\\u00a0d")
        'a\\nb\\n\\nc d'
    """
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\u00a0", " ").replace("\x00", "")
    text = re.sub(r"[ \t\f\v]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n")


def reflow(text: str) -> str:
    """Join lines broken inside paragraphs (PDF extraction), keeping paragraph breaks.

    A blank line ends a paragraph, and so does a line clearly shorter than the longest line
    of its block (under 70%) followed by one starting with a capital (a heading or the last
    line of a paragraph); ``exam-`` + newline + ``ple`` becomes ``example``.

    Example:
        >>> print(reflow("Fees\\nThe fee is waived when the account is\\nfunded. Ex-\\nample "
        ...              "line that is long enough.\\n\\nNew paragraph."))
        Fees
        <BLANKLINE>
        The fee is waived when the account is funded. Example line that is long enough.
        <BLANKLINE>
        New paragraph.
    """
    out: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        longest = max(len(line) for line in lines)
        current = ""
        for index, line in enumerate(lines):
            if current.endswith("-") and line[:1].islower():
                current = current[:-1] + line
            else:
                current = f"{current} {line}" if current else line
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if following and len(line) < 0.7 * longest and following[:1].isupper():
                out.append(re.sub(r"[ \t]{2,}", " ", current))
                current = ""
        if current:
            out.append(re.sub(r"[ \t]{2,}", " ", current))
    return "\n\n".join(out)


def _decode(path: Path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"{path}: invalid UTF-8 at byte {exc.start} ({exc.reason}); save the file as UTF-8"
        ) from None


def _first_heading(text: str) -> str | None:
    match = re.search(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", text, re.MULTILINE)
    return match.group(1) if match else None


def read_text(path: Path) -> tuple[str, str | None]:
    """A plain-text or Markdown file: its text and first Markdown heading."""
    text = normalise_text(_decode(path))
    return text, _first_heading(text)


def read_html(path: Path) -> tuple[str, str | None]:
    """Visible text of an HTML file, one paragraph per block element, and its ``<title>``."""
    bs4 = require("bs4", extra="generate", package="beautifulsoup4")
    soup = bs4.BeautifulSoup(_decode(path), "html.parser")  # type: ignore[attr-defined]
    title_tag = soup.find("title")
    title = title_tag.get_text(" ", strip=True) if title_tag is not None else None
    for tag in soup(list(_DROP_TAGS)):
        tag.decompose()
    for tag in soup.find_all(list(_BLOCK_TAGS)):
        tag.insert_before("\n\n")
        tag.insert_after("\n\n")
    lines = [re.sub(r"\s+", " ", line).strip() for line in soup.get_text("").split("\n\n")]
    text = "\n\n".join(line for line in lines if line)
    return normalise_text(text), title or None


def read_pdf(path: Path) -> tuple[str, str | None]:
    """Text of every page of a PDF (pypdf), re-flowed into paragraphs; its metadata title."""
    pypdf = require("pypdf", extra="generate")
    try:
        reader = pypdf.PdfReader(str(path))  # type: ignore[attr-defined]
        if reader.is_encrypted:
            reader.decrypt("")
        pages = [page.extract_text() or "" for page in reader.pages]
        title = reader.metadata.title if reader.metadata is not None else None
    except Exception as exc:  # pypdf raises many types for broken files
        raise InvalidInputError(
            f"{path}: not a readable PDF ({type(exc).__name__}: {exc})"
        ) from None
    text = "\n\n".join(reflow(normalise_text(page)) for page in pages if page.strip())
    return normalise_text(text), (str(title) if title else None)


def read_docx(path: Path) -> tuple[str, str | None]:
    """Paragraphs and table rows of a DOCX file (python-docx); its core-properties title."""
    docx = require("docx", extra="generate", package="python-docx")
    try:
        document = docx.Document(str(path))  # type: ignore[attr-defined]
    except Exception as exc:
        raise InvalidInputError(
            f"{path}: not a readable DOCX file ({type(exc).__name__}: {exc})"
        ) from None
    parts = [p.text.strip() for p in document.paragraphs if p.text.strip()]
    for table in document.tables:
        for row in table.rows:
            cells = [cell.text.strip() for cell in row.cells if cell.text.strip()]
            if cells:
                parts.append(" | ".join(dict.fromkeys(cells)))
    title = document.core_properties.title or None
    return normalise_text("\n\n".join(parts)), title


_READERS: dict[str, Callable[[Path], tuple[str, str | None]]] = {
    "text": read_text, "markdown": read_text, "html": read_html, "pdf": read_pdf,
    "docx": read_docx,
}


def read_document(path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None
                  ) -> Document:
    """Read one file into a :class:`Document`.

    Args:
        path: The file.
        root: Folder the document id is relative to (default: the file's folder).

    Raises:
        InvalidInputError: naming the file, when it cannot be read, has an unsupported
            extension or holds no text.

    Example:
        >>> import tempfile, pathlib
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (folder / "fees.md").write_text("# Fees\\n\\nThe fee is 5 euros.\\n")
        >>> doc = read_document(folder / "fees.md")
        >>> doc.id, doc.format, doc.title, doc.text
        ('fees.md', 'markdown', 'Fees', '# Fees\\n\\nThe fee is 5 euros.')
    """
    file = Path(path)
    fmt = FORMATS.get(file.suffix.lower())
    if fmt is None:
        raise InvalidInputError(
            f"{file}: unsupported file type {file.suffix or '(none)'!r}; expected one of "
            f"{', '.join(sorted(FORMATS))}"
        )
    if not file.is_file():
        raise InvalidInputError(f"{file}: no such file")
    try:
        text, title = _READERS[fmt](file)
    except InvalidInputError:
        raise
    except OSError as exc:
        raise InvalidInputError(f"{file}: cannot be read ({exc.strerror or exc})") from None
    if not text.strip():
        raise InvalidInputError(f"{file}: no text could be extracted (empty or scanned?)")
    base = Path(root) if root is not None else file.parent
    try:
        ident = file.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        ident = file.name
    return Document(id=ident, path=str(file), format=fmt, text=text, title=title)


def _expand(sources: Iterable[Path]) -> Iterable[tuple[Path, Path, bool]]:
    """(file, root, explicitly named) for every source; folders are walked in sorted order."""
    for source in sources:
        if source.is_dir():
            for file in sorted(p for p in source.rglob("*") if p.is_file()):
                if not any(part.startswith(".") for part in file.relative_to(source).parts):
                    yield file, source, False
        else:
            yield source, source.parent, True


def ingest(
    sources: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    progress: ProgressCallback | None = None,
) -> Corpus:
    """Read a folder (recursively, hidden files skipped) or a list of files and folders.

    Files of unsupported types found in folders are listed in ``skipped``; unreadable files
    (and unsupported files named explicitly) in ``failures`` with the reason; the others are
    read. Document ids are unique (a clash gets ``~2``, ``~3`` appended).

    Example:
        >>> import tempfile, pathlib
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (folder / "a.txt").write_text("Cards are free.")
        >>> _ = (folder / "b.pdf").write_bytes(b"not a pdf")
        >>> corpus = ingest(folder)
        >>> [d.id for d in corpus.documents], len(corpus.failures)
        (['a.txt'], 1)
    """
    if isinstance(sources, str | os.PathLike):
        sources = [sources]
    paths = [Path(s) for s in sources]
    missing = [p for p in paths if not p.exists()]
    corpus = Corpus()
    for path in missing:
        corpus.failures.append((str(path), f"{path}: no such file or folder"))
    files = list(_expand(p for p in paths if p.exists()))
    seen: dict[str, int] = {}
    for done, (file, root, named) in enumerate(files, start=1):
        if file.suffix.lower() not in FORMATS and not named:
            corpus.skipped.append(str(file))
        else:
            try:
                document = read_document(file, root=root)
            except InvalidInputError as exc:
                logger.warning("skipping %s", exc)
                corpus.failures.append((str(file), str(exc)))
            else:
                count = seen.get(document.id, 0) + 1
                seen[document.id] = count
                if count > 1:
                    document = Document(f"{document.id}~{count}", document.path,
                                        document.format, document.text, document.title)
                corpus.documents.append(document)
        if progress is not None:
            progress("reading documents", done, len(files))
    return corpus
