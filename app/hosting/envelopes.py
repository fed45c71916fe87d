"""The queue's own routes, screened at the door (issue 53): what a request names must exist before Gradio reads it.

The page talks to the server through Gradio's queue routes. A request naming an event, a session or an event id
that does not exist reached Gradio's code, which answered with a 500 and a traceback in the log, or cut an event
stream mid-chunk:
- `POST /gradio_api/queue/join`, `/gradio_api/cancel` and `/gradio_api/run/predict` carry an envelope (`fn_index`,
  `session_hash`, `trigger_id`, `event_id`) beside the values. An envelope number that is NaN or ±Infinity (Python's
  JSON reader accepts them) → 400; an `fn_index` that is not a whole number → 400; one that names no event, or an
  event computed in the page only (no function on the server: `relabel`, the runs' in-page steps) → 404;
- `GET /gradio_api/queue/data?session_hash=…` for a session with nothing waiting, and
  `GET /gradio_api/call/<name>/<event_id>` for an event id the queue never gave or no longer holds → 404.

Each answer is one sentence (`app.hosting.door` writes it). The values themselves are the events' to check
(`app.hosting.checked_values`), as before.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any
from urllib.parse import parse_qs

from app import gradio_compat

ENVELOPE_ROUTES = re.compile(r"/gradio_api/(queue/join|cancel|run/predict)/*$")
"""POST routes whose body names an event by its number (group 1: which route)."""
STREAM_ROUTES = re.compile(r"/gradio_api/(?:queue/data|call(?:/v2)?/[^/]+/([^/]+))/*$")
"""GET routes that stream a session's answers (group 1: the event id of a call's stream; None: /queue/data)."""
ENVELOPE_KEYS = ("fn_index", "session_hash", "trigger_id", "event_id")

NOT_FINITE = "The request's fn_index, session_hash, trigger_id and event_id must not be NaN or Infinity."
NOT_AN_INDEX = "fn_index must be a whole number: the number of one of the app's events."
NO_SUCH_EVENT = "ALBERT Lab has no event of that number on the server; the API page (?view=api) lists the endpoints."
NO_SUCH_SESSION = "No answers are waiting for that session: join the queue first (POST /gradio_api/queue/join)."
NO_SUCH_CALL = "No call has that event id (or its answer was read already): POST /gradio_api/call/<name> first."


def envelope_refusal(path: str, body: bytes, server_app: Any) -> tuple[int, str] | None:
    """(status, sentence) for a POST to a queue route whose envelope names nothing that exists; None to let it in
    (a body that is not a JSON object is left to Gradio, which answers it with a 422)."""
    route = ENVELOPE_ROUTES.search(path)
    if route is None:
        return None
    non_finite: list[str] = []
    try:
        envelope = json.loads(body or b"null", parse_constant=lambda name: non_finite.append(name) or math.nan)
    except (ValueError, RecursionError):
        return None
    if not isinstance(envelope, dict):
        return None
    if non_finite and any(_not_finite(envelope.get(key)) for key in ENVELOPE_KEYS):
        return 400, NOT_FINITE
    index = envelope.get("fn_index")
    if index is None and route.group(1) != "cancel":
        return None  # Gradio answers a call without a number itself (400, or by the name of its route)
    if type(index) is not int:
        return 400, NOT_AN_INDEX
    if not gradio_compat.serves_event(server_app, index):
        return 404, NO_SUCH_EVENT
    return None


def stream_refusal(path: str, query: bytes, server_app: Any) -> tuple[int, str] | None:
    """(status, sentence) for a GET of an answer stream that names no session or call the queue holds; None to let
    it in."""
    stream = STREAM_ROUTES.search(path)
    if stream is None:
        return None
    event_id = stream.group(1)
    if event_id is not None:
        known = gradio_compat.queue_holds(server_app, event_id=event_id)
        return None if known in (True, None) else (404, NO_SUCH_CALL)
    sessions = parse_qs(query.decode("latin-1")).get("session_hash", [])
    if len(sessions) != 1:
        return None  # Gradio answers a missing parameter itself (422)
    known = gradio_compat.queue_holds(server_app, session_hash=sessions[0])
    return None if known in (True, None) else (404, NO_SUCH_SESSION)


def _not_finite(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)
