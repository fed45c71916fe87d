"""Control characters a visitor sends are written into the log as escapes (issue 53, item 4): never a raw ESC, NUL
or right-to-left override, and no line the visitor wrote."""

from __future__ import annotations

import logging

import pytest

from app.hosting.log_lines import EscapedControls, escaped
from tests.app.support import running_app, tiny_assets

SENT = "en\x1b[2J\x00\u202egnp.\nINFO app: a line the visitor wrote\u2066"


def test_controls_are_escaped_and_the_record_is_left_as_it_was() -> None:
    assert escaped(SENT) == "en\\x1b[2J\\x00\\u202egnp.\\nINFO app: a line the visitor wrote\\u2066"
    assert escaped("tab\tand 中文 and emoji 🙂") == "tab\tand 中文 and emoji 🙂"
    record = logging.LogRecord("app", logging.INFO, __file__, 1, "refused %r: %s", ("x", SENT), None)
    line = EscapedControls("%(levelname)s %(message)s").format(record)
    assert "\x1b" not in line and "\x00" not in line and "\u202e" not in line and "\n" not in line
    assert line.startswith("INFO refused 'x': en\\x1b[2J") and record.args == ("x", SENT)


def test_a_traceback_keeps_its_lines() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord("app", logging.ERROR, __file__, 1, "failed", (), __import__("sys").exc_info())
    assert EscapedControls("%(message)s").format(record).count("\n") >= 3


@pytest.mark.slow
def test_the_launched_servers_log_holds_no_raw_control_character() -> None:
    import httpx

    url = running_app().rstrip("/")
    log = tiny_assets().root / "server.log"
    start = log.stat().st_size
    with httpx.Client(timeout=60) as http:
        for endpoint, data in (("fill_mask", ["the [MASK]", 5, "", SENT, ""]), ("preset", [SENT, "en"])):
            posted = http.post(f"{url}/gradio_api/call/{endpoint}", json={"data": data})
            http.get(f"{url}/gradio_api/call/{endpoint}/{posted.json()['event_id']}")
    with open(log, encoding="utf-8") as handle:
        handle.seek(start)
        new = handle.read()
    assert "got “en\\x1b" in new  # the refusal quoted what was sent, escaped
    assert not any(character in new for character in ("\x1b", "\x00", "\u202e", "\u2066"))
    assert "\nINFO app: a line the visitor wrote" not in new
