"""benchmarks/http_load.py: the lean load client reads Gradio's event streams as a page would."""

from __future__ import annotations

from benchmarks.http_load import read_event_stream


def test_the_last_event_of_a_stream_and_its_data_are_read() -> None:
    stream = 'event: heartbeat\ndata: null\n\nevent: complete\ndata: [{"a": 1}, "text"]\n\n'
    assert read_event_stream(stream) == ("complete", [{"a": 1}, "text"])
    assert read_event_stream("event: error\ndata: not json\n\n") == ("error", "not json")
    assert read_event_stream("event: error\ndata: null\n\n") == ("error", None)
    assert read_event_stream("") == ("", None)
