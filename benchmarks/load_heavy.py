"""The heavy-and-light phase of `benchmarks/load_check.py --heavy` (issue 35): do light requests wait behind heavy?

1. Three clients send the heaviest /measure_speed the form accepts (V 256,000, H 768, 12 layers, 12 heads,
   T 512) again and again, over raw HTTP, while 32 gradio_client clients send the mixed requests of load_check.
   Reported: /fill_mask p95 (target ≤ 1 s), the mixed clients' p95 (target ≤ 3 s), and how the measurements
   went (answered, or told to retry by the measure group's busy answer, and how fast).
2. A burst of /attention requests sent at once over HTTP, more than the heavy group's waiting line holds: the
   refused ones' busy answers are timed (target ≤ 1 s).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

HEAVIEST_MEASURE = [256_000, 128, 768, 12, 12, 3072, "all", 1, True, 512, 512, "en"]
"""The largest model /measure_speed accepts (its unshared variant, 118M parameters, is under the 150M bound)."""
ATTENTION = ["The cat sat on the mat because it was tired.", "", 1, 32, "", "", "en"]


@dataclass
class MeasureLoad:
    """What the measuring clients saw."""

    answered: list[float] = field(default_factory=list)
    """Seconds from sending to the complete answer, per answered measurement."""
    busy: list[float] = field(default_factory=list)
    """Seconds to the busy answer (HTTP 503), per refused measurement."""
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def measure_again_and_again(url: str, stop: threading.Event, load: MeasureLoad, pause: float = 0.5) -> None:
    """Send the heaviest /measure_speed until `stop`, reading each answer; after a busy answer wait `pause` s."""
    import httpx

    with httpx.Client(timeout=600) as http:
        while not stop.is_set():
            start = time.perf_counter()
            response = http.post(f"{url}/gradio_api/call/measure_speed", json={"data": HEAVIEST_MEASURE})
            if response.status_code == 503:
                with load.lock:
                    load.busy.append(time.perf_counter() - start)
                stop.wait(pause)
                continue
            if response.status_code != 200:
                with load.lock:
                    load.failures.append(f"/measure_speed: HTTP {response.status_code} {response.text[:100]}")
                continue
            stream = http.get(f"{url}/gradio_api/call/measure_speed/{response.json()['event_id']}").text
            with load.lock:
                if "event: complete" in stream and '"tokens"' in stream:
                    load.answered.append(time.perf_counter() - start)
                else:
                    load.failures.append(f"/measure_speed: {stream[:120]!r}")


def with_heavy_measurements(url: str, light: Any, measurers: int = 3) -> tuple[MeasureLoad, float]:
    """Run `light()` (the mixed clients) while `measurers` clients measure; returns what they saw and the wall s."""
    load, stop = MeasureLoad(), threading.Event()
    threads = [
        threading.Thread(target=measure_again_and_again, args=(url, stop, load), daemon=True) for _ in range(measurers)
    ]
    for thread in threads:
        thread.start()
    time.sleep(2.0)  # the measurements are under way before the light clients start
    start = time.perf_counter()
    light()
    wall = time.perf_counter() - start
    stop.set()
    for thread in threads:
        thread.join(600)
    return load, wall


@dataclass
class Burst:
    sent: int
    accepted: int
    busy_seconds: list[float]
    other: list[str]
    answered: int


def burst(url: str, count: int = 60, endpoint: str = "attention", data: list | None = None) -> Burst:
    """`count` requests to `endpoint` sent at once over HTTP; the busy answers (503) timed, the accepted ones
    read to their end."""
    import httpx

    data = ATTENTION if data is None else data
    barrier = threading.Barrier(count)

    def send(_: int) -> tuple[int, float, str]:
        with httpx.Client(timeout=600) as http:
            barrier.wait(60)
            start = time.perf_counter()
            response = http.post(f"{url}/gradio_api/call/{endpoint}", json={"data": data})
            seconds = time.perf_counter() - start
            if response.status_code != 200:
                return response.status_code, seconds, response.text[:120]
            stream = http.get(f"{url}/gradio_api/call/{endpoint}/{response.json()['event_id']}").text
            return 200, seconds, "complete" if "event: complete" in stream else stream[:120]

    with ThreadPoolExecutor(max_workers=count) as pool:
        results = list(pool.map(send, range(count)))
    busy = [seconds for status, seconds, _ in results if status == 503]
    other = [f"{status} {text}" for status, _, text in results if status not in (200, 503)]
    other += [text for status, _, text in results if status == 200 and text != "complete"]
    answered = sum(1 for status, _, text in results if status == 200 and text == "complete")
    return Burst(count, sum(1 for status, _, _ in results if status == 200), busy, other, answered)
