"""Ingestion of every supported format, and unreadable files reported by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.corpus.ingest import ingest, normalise_text, read_document, reflow
from assay.errors import InvalidInputError

from ._fixtures import PENSIONS, SAVINGS, write_pdf


def by_id(corpus_dir: Path) -> dict[str, object]:
    return {d.id: d for d in ingest(corpus_dir).documents}


def test_every_format_is_read(corpus_dir: Path) -> None:
    corpus = ingest(corpus_dir)
    assert corpus.failures == [] and corpus.skipped == []
    formats = {d.id: d.format for d in corpus.documents}
    assert formats == {"cards.md": "markdown", "mortgages.txt": "text", "travel.html": "html",
                       "savings.pdf": "pdf", "pensions.docx": "docx"}


def test_html_keeps_visible_text_as_paragraphs(corpus_dir: Path) -> None:
    doc = read_document(corpus_dir / "travel.html")
    assert doc.title == "Travel insurance"
    assert "tracking" not in doc.text and "font-family" not in doc.text  # script, style
    assert "Home" not in doc.text  # navigation
    # inline markup does not split a sentence; block elements are paragraphs
    assert "Premier customers get worldwide travel insurance for trips of up to 31 days." in doc.text
    assert "Winter sports need an extra cover of 30 euros a year.\n\nCustomers aged 80" in doc.text


def test_pdf_is_read_and_reflowed(corpus_dir: Path) -> None:
    doc = read_document(corpus_dir / "savings.pdf")
    # every sentence survives extraction whole although the PDF breaks lines inside them
    for paragraph in SAVINGS:
        assert paragraph in doc.text
    assert doc.text.startswith("Savings accounts\n\n")


def test_docx_paragraphs_and_tables(corpus_dir: Path) -> None:
    doc = read_document(corpus_dir / "pensions.docx")
    assert doc.title == "Workplace pensions"
    for paragraph in PENSIONS:
        assert paragraph in doc.text
    assert "Employer contribution | 3% of salary" in doc.text


def test_unreadable_files_are_named_and_the_others_read(tmp_path: Path, corpus_dir: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "good.txt").write_text("Cards are free of charge.", encoding="utf-8")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (folder / "broken.docx").write_bytes(b"not a zip file")
    (folder / "latin1.txt").write_bytes("Caf\xe9 prices.".encode("latin-1"))
    (folder / "empty.md").write_text("   \n", encoding="utf-8")
    (folder / "image.png").write_bytes(b"\x89PNG")
    (folder / ".hidden.txt").write_text("secret", encoding="utf-8")
    corpus = ingest([folder, tmp_path / "missing-folder"])
    assert [d.id for d in corpus.documents] == ["good.txt"]
    reasons = dict(corpus.failures)
    assert set(reasons) == {str(folder / n) for n in ("broken.pdf", "broken.docx", "latin1.txt",
                                                      "empty.md")} | {str(tmp_path / "missing-folder")}
    for path, reason in reasons.items():
        assert reason.startswith(path)  # every message names its file
    assert "not a readable PDF" in reasons[str(folder / "broken.pdf")]
    assert "not a readable DOCX" in reasons[str(folder / "broken.docx")]
    assert "invalid UTF-8" in reasons[str(folder / "latin1.txt")]
    assert "no text" in reasons[str(folder / "empty.md")]
    assert corpus.skipped == [str(folder / "image.png")]


def test_explicit_unsupported_file_is_a_failure(tmp_path: Path) -> None:
    file = tmp_path / "notes.xyz"
    file.write_text("hello", encoding="utf-8")
    corpus = ingest([file])
    assert corpus.documents == [] and "unsupported file type" in corpus.failures[0][1]
    with pytest.raises(InvalidInputError, match=r"notes\.xyz"):
        read_document(file)


def test_ids_are_relative_and_unique(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "x.txt").write_text("One fact here.", encoding="utf-8")
    (tmp_path / "x.txt").write_text("Another fact here.", encoding="utf-8")
    corpus = ingest([tmp_path, tmp_path / "x.txt"])
    assert [d.id for d in corpus.documents] == ["a/b/x.txt", "x.txt", "x.txt~2"]


def test_progress_is_reported(corpus_dir: Path) -> None:
    seen: list[tuple[str, int, int]] = []
    ingest(corpus_dir, progress=lambda *a: seen.append(a))
    assert seen[-1] == ("reading documents", 5, 5)


def test_text_helpers() -> None:
    assert normalise_text("a\r\nb\r\n\r\n\r\n\r\nc  \n") == "a\nb\n\nc"
    assert reflow("long line of words that goes on and on\nand ends here.") == (
        "long line of words that goes on and on and ends here.")
    pdf = write_pdf(Path(__import__("tempfile").mkdtemp()) / "x.pdf", ["A (bracketed) word."])
    assert read_document(pdf).text == "A (bracketed) word."
