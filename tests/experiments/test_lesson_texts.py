"""The Train-it-yourself texts: books cut into documents at paragraph ends, and the shipped files as built."""

from __future__ import annotations

from pathlib import Path

from experiments.lesson_texts import DOCUMENT_CHARS, documents

ROOT = Path(__file__).resolve().parents[2]


def test_a_book_is_cut_at_paragraph_ends_into_documents_of_about_the_size() -> None:
    book = "\n".join(f"paragraph {i} " + "word " * 30 for i in range(100))
    cut = documents(book, size=500)
    assert "\n".join(cut) == book  # nothing lost, nothing split inside a paragraph
    assert all(len(document) >= 500 for document in cut[:-1]) and len(cut) > 1


def test_the_shipped_texts_are_documents_separated_by_blank_lines() -> None:
    train = (ROOT / "assets/training/books-train.txt").read_text(encoding="utf-8").strip().split("\n\n")
    assert len(train) == 88  # each book's last document may be shorter: two of them
    assert sum(len(document) >= DOCUMENT_CHARS for document in train) >= len(train) - 2
    ordinals = (ROOT / "assets/training/ordinals-train.txt").read_text(encoding="utf-8").strip().split("\n\n")
    assert len(ordinals) == 600 and all(document.startswith("One ") for document in ordinals)
