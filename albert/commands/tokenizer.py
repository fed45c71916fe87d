"""`python -m albert.tokenizer`: train an ALBERT SentencePiece tokenizer (the training and loading code is
`albert.data.tokenizer`'s, whose docstring is this command's --help).

    python -m albert.tokenizer --files zh-train.txt.xz reviews-train.txt --output-dir runs/zh-tokenizer \\
        --vocab-size 8000 --han-characters
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from albert.cli import run_command
from albert.data import tokenizer as tokenizer_data
from albert.data.tokenizer import train_tokenizer
from albert.training.state import check_output_folder

logger = logging.getLogger("albert.tokenizer")


@dataclass
class TokenizerConfig:
    """Train an ALBERT SentencePiece tokenizer: `python -m albert.tokenizer --files TEXT --output-dir DIR`."""

    files: tuple[str, ...]
    """Training text: files (.txt, .xz, .gz; blank line between documents) or a `datasets` name (hf:NAME);
    training text only, never the held-out files."""
    output_dir: str
    """Where spiece.model and the transformers files go (give it to albert.pretrain --tokenizer)."""
    vocab_size: int = 16000
    """Pieces in the vocabulary, the 5 special ones included."""
    han_characters: bool = False
    """A character vocabulary for Chinese: one Han character a piece, none holding two (see train_tokenizer)."""
    max_sentences: int = 2_000_000
    """SentencePiece trains on a random sample of this many sentences when the text has more."""
    seed: int = 0
    """Seed of that sample and of SentencePiece."""

    def __post_init__(self) -> None:
        check_output_folder(self.output_dir)  # a file there: an argument error with one sentence, before training


def main(argv: Sequence[str] | None = None) -> None:
    def run(cfg: TokenizerConfig) -> None:
        tokenizer = train_tokenizer(
            list(cfg.files),
            cfg.output_dir,
            vocab_size=cfg.vocab_size,
            max_sentences=cfg.max_sentences,
            seed=cfg.seed,
            han_characters=cfg.han_characters,
        )
        logger.info("wrote a %d-piece tokenizer to %s", len(tokenizer), cfg.output_dir)

    run_command(
        "albert.tokenizer", TokenizerConfig, run, (ValueError, OSError), argv, description=tokenizer_data.__doc__
    )


if __name__ == "__main__":
    main()
