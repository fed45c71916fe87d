"""The library's one error for bad configurations and files: a sentence for people, a code for programs."""

from __future__ import annotations

from typing import Any


class ConfigError(ValueError):
    """A configuration (or a file) that cannot describe a valid model; the message says why in one sentence.

    `code` names the rule that failed and `params` holds the values the message quotes, so a user
    interface can say the same in another language without checking the rule again, e.g.
    `ConfigError("hidden_size (100) must be divisible by …", "heads_divide", hidden_size=100,
    num_attention_heads=3)`."""

    def __init__(self, message: str, code: str = "invalid", **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params

    def located(self, source: str) -> ConfigError:
        """The same error, its message prefixed with the file (or object) that holds the bad value."""
        return type(self)(f"{source}: {self}", self.code, source=source, **self.params)
