"""One log line per record, with what a visitor sent shown and never obeyed (issue 53, item 4).

Refusals quote a little of what was sent (a language, a model name) so that the log says what was wrong. Raw control
characters in them reached the log as they were: an ESC began a terminal escape sequence in whoever read the log,
a NUL cut lines in some viewers, U+202E turned the rest of a line around, and a newline could write a line that
looked like the server's own. `EscapedControls` writes each of them as its escape (`\\x1b`, `\\u202e`, `\\n`)
in every record's message; a traceback, the server's own text, keeps its lines.
"""

from __future__ import annotations

import copy
import logging
import re

CONTROLS = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""C0 and C1 controls (the tab kept), line and paragraph separators, and the bidirectional marks and overrides."""
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def escaped(text: str) -> str:
    """`text` with every character of `CONTROLS` written as its Python escape."""
    return CONTROLS.sub(lambda found: found.group().encode("unicode_escape").decode("ascii"), text)


class EscapedControls(logging.Formatter):
    """A formatter that escapes the controls in each record's message (`escaped`); the record itself is left as it
    was, for the other handlers."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        clean = escaped(message)
        if clean != message:
            record = copy.copy(record)
            record.msg, record.args = clean, None
        return super().format(record)


def escape_controls(logger: logging.Logger | None = None) -> int:
    """Give every handler of `logger` (the root logger by default) an `EscapedControls` formatter of the server's
    format; returns how many handlers it set."""
    handlers = (logger or logging.getLogger()).handlers
    for handler in handlers:
        handler.setFormatter(EscapedControls(FORMAT))
    return len(handlers)
