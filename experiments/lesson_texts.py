"""Build the *Train it yourself* tab's texts and tokenizers under assets/training/ (run once; the results are shipped).

    python -m experiments.lesson_texts --corpus path/to/gutenberg-valid.txt.xz

- books-train.txt: L. Frank Baum, *The Road to Oz* (Project Gutenberg #485) and Arthur Conan Doyle, *The Poison Belt*
  (#126), cut into documents of about `DOCUMENT_CHARS` characters at paragraph ends (blank line between documents);
- books-valid.txt: Nathaniel Hawthorne, *The Snow-Image* (#30376) and Henry James, *Eugene Pickering* (#2534), cut
  the same way: held-out text of other authors;
- ordinals-train.txt / ordinals-valid.txt: the learnable-order construction of `experiments.sop_learnability`
  (eight sentences per document, each opening with its ordinal), 600 and 60 documents, seeds 0 and 1;
- books-tokenizer/, ordinals-tokenizer/: SentencePiece tokenizers trained on each training text (2,000 and 48 pieces).
"""

from __future__ import annotations

import argparse
import logging
import lzma
from pathlib import Path

from albert.data.tokenizer import train_tokenizer
from experiments.sop_learnability import write_corpus

logger = logging.getLogger("experiments.lesson_texts")
OUT = Path("assets/training")
TRAIN_BOOKS = ("The Road to Oz", "Being an account of another adventure of Prof. George E. Challenger")
VALID_BOOKS = ("With Illustrations by Marcus Waterman.", "EUGENE PICKERING by Henry James")
"""Each book is found by the start of its first line in the corpus file (one book per block)."""
DOCUMENT_CHARS = 4000
BOOK_VOCAB, ORDINAL_VOCAB = 2000, 48


def documents(book: str, size: int = DOCUMENT_CHARS) -> list[str]:
    """`book` (one paragraph per line) cut into documents of about `size` characters, at paragraph ends."""
    found, current = [], []
    for paragraph in book.splitlines():
        current.append(paragraph)
        if sum(len(p) for p in current) >= size:
            found.append("\n".join(current))
            current = []
    if current:
        found.append("\n".join(current))
    return found


def pick(blocks: list[str], starts: tuple[str, ...]) -> list[str]:
    chosen = [next(b for b in blocks if b.startswith(start)) for start in starts]
    return [document for book in chosen for document in documents(book)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, required=True, help="the corpus file holding the three books")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    blocks = lzma.open(args.corpus, "rt", encoding="utf-8").read().split("\n\n")
    OUT.mkdir(parents=True, exist_ok=True)
    for name, starts in (("books-train.txt", TRAIN_BOOKS), ("books-valid.txt", VALID_BOOKS)):
        docs = pick(blocks, starts)
        (OUT / name).write_text("\n\n".join(docs) + "\n", encoding="utf-8")
        logger.info("%s: %d documents, %d characters", name, len(docs), sum(map(len, docs)))
    write_corpus(OUT / "ordinals-train.txt", 600, 0, ordered=True)
    write_corpus(OUT / "ordinals-valid.txt", 60, 1, ordered=True)
    train_tokenizer([OUT / "books-train.txt"], OUT / "books-tokenizer", vocab_size=BOOK_VOCAB)
    train_tokenizer([OUT / "ordinals-train.txt"], OUT / "ordinals-tokenizer", vocab_size=ORDINAL_VOCAB)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
