"""The latency claims at the edges (issue 43, item 5): the heavy-and-light load of `load_check.py --heavy`, run
`--runs` times on one server, each run followed by a burst of `--burst` /attention sent at once.

    python benchmarks/edge_load.py --runs 5 --users 32 --per-user 10 --burst 150     # the issue's check
    python benchmarks/edge_load.py --runs 1 --users 4 --per-user 2 --burst 20 --measurers 0   # a smoke run

Each run: three clients send the heaviest /measure_speed again and again while `--users` users (one asyncio HTTP
client, `benchmarks/http_load.py`, each with its own session) send load_check's mixed requests, each answer checked
against a reference fetched alone first; then `--burst` /attention requests are sent at once from one event loop
(`http_load.burst`: the connections open beforehand, so the client's own threads are not timed) and the busy
answers (503, the heavy group's waiting line is full) are timed. Targets, per run: /fill_mask p95 ≤ `--fill-p95-ms`
(1.5 s), all mixed p95 ≤ `--mixed-p95-ms` (3 s), the slowest busy answer ≤ `--busy-ms` (0.3 s), no mixed request
answered wrongly (one told to retry by a full waiting line is counted apart). Issue 43 asked 1 s and 0.4 s; they held
in 2 of 5 runs, and the protocol in docs/results/hosting-limits.md restated them. Prints one line per run and the
range over the runs; exit code 1 when any run missed a target.

Unlike `load_check.py` there is no gradio_client and no memory phase: the server is started once (`python app.py` on
a free loopback port, shipped models or the stand-in) and only the load above is sent, so five runs take minutes.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import http_load, load_heavy  # noqa: E402
from benchmarks.app_server import AppServer, choose_models, percentile  # noqa: E402
from benchmarks.load_check import Recorder, http_users  # noqa: E402

logger = logging.getLogger("benchmarks.edge_load")


@dataclass(frozen=True)
class Run:
    """The figures of one run."""

    fill_p50: float
    fill_p95: float
    mixed_p95: float
    mixed_max: float
    requests: int
    failures: list[str]
    """Mixed requests answered wrongly or not at all."""
    retry: list[str]
    """Mixed requests told to retry (503, their group's waiting line full: the heavy group's 16 fill when 32 users
    send without pause), a designed answer, not a wrong one."""
    measured: int
    measure_busy: int
    accepted: int
    busy: list[float]
    """Seconds to each busy answer of the burst."""
    other: list[str]
    load: float

    def meets(self, args: argparse.Namespace) -> bool:
        return (
            not self.failures
            and not self.other
            and bool(self.busy)
            and self.fill_p95 <= args.fill_p95_ms
            and self.mixed_p95 <= args.mixed_p95_ms
            and max(self.busy) * 1e3 <= args.busy_ms
        )

    def line(self, number: int) -> str:
        busy_ms = [s * 1e3 for s in self.busy]
        return (
            f"  run {number}: /fill_mask p95 {self.fill_p95:.0f} ms (p50 {self.fill_p50:.0f}); all mixed p95 "
            f"{self.mixed_p95:.0f} ms (max {self.mixed_max:.0f}), {len(self.failures)} of {self.requests} wrong, "
            f"{len(self.retry)} told to retry; "
            f"/measure_speed {self.measured} answered, {self.measure_busy} told to retry; burst: {self.accepted} "
            f"queued, {len(busy_ms)} busy answers p50 {percentile(busy_ms, 50):.0f} / max "
            f"{max(busy_ms, default=float('nan')):.0f} ms, other {len(self.other)} (load average {self.load:.1f})"
        )


def one_run(url: str, args: argparse.Namespace, offset: int) -> Run:
    """The mixed users beside the three measuring clients, then the burst."""
    recorder = Recorder()
    users = http_users(url, args.users, args.per_user, recorder, offset=offset)
    measured, _ = load_heavy.with_heavy_measurements(url, users, measurers=args.measurers)
    mixed = [ms for values in recorder.latencies.values() for ms in values]
    fill = recorder.latencies.get("/fill_mask", [])
    sent = http_load.burst(url, args.burst, "attention", load_heavy.ATTENTION)
    return Run(
        fill_p50=percentile(fill, 50),
        fill_p95=percentile(fill, 95),
        mixed_p95=percentile(mixed, 95),
        mixed_max=max(mixed, default=float("nan")),
        requests=recorder.done,
        failures=[f for f in recorder.failures + measured.failures if not told_to_retry(f)],
        retry=[f for f in recorder.failures if told_to_retry(f)],
        measured=len(measured.answered),
        measure_busy=len(measured.busy),
        accepted=sum(s.status == 200 for s in sent),
        busy=[s.seconds for s in sent if s.status == 503],
        other=[f"{s.status} {s.ending}" for s in sent if not _expected(s)],
        load=os.getloadavg()[0],
    )


def told_to_retry(failure: str) -> bool:
    """A mixed request's failure line (`load_check.http_users`: "<endpoint>: <status> <detail>") that is the busy
    answer of a full waiting line."""
    return ": 503 " in failure and "busy" in failure


def _expected(sent: http_load.Sent) -> bool:
    """A burst's request went as it should: answered in full, or refused with the busy answer."""
    return sent.status == 503 or (sent.status == 200 and sent.ending == "complete")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--users", type=int, default=32, help="mixed users at once (one session each)")
    parser.add_argument("--per-user", type=int, default=10, help="mixed requests per user and run")
    parser.add_argument("--burst", type=int, default=150, help="/attention requests sent at once after each run")
    parser.add_argument(
        "--measurers",
        type=int,
        default=3,
        help="clients sending the heaviest /measure_speed meanwhile (0 for a smoke run on a busy machine: at nice 19 "
        "a measurement there waits for the other work, and each run waits for the last one)",
    )
    # The claims as restated by the protocol in docs/results/hosting-limits.md (issue 43's 1 s and 0.4 s held in 2
    # of 5 runs; these held in all 5 of the better setting, two model workers)
    parser.add_argument("--fill-p95-ms", type=float, default=1500.0)
    parser.add_argument("--mixed-p95-ms", type=float, default=3000.0)
    parser.add_argument("--busy-ms", type=float, default=300.0, help="target for the slowest busy answer")
    parser.add_argument("--repo", type=Path, default=None, help="serve this copy of the project instead")
    parser.add_argument("--server-log", type=Path, default=None, help="write the server's log here")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    models = choose_models()
    runs: list[Run] = []
    with AppServer(models, log_path=args.server_log, repo=args.repo) as server:
        url = server.url.rstrip("/")
        for number in range(args.runs):
            runs.append(one_run(url, args, offset=3 + number))
            logger.info(runs[-1].line(number + 1))
    met = [run.meets(args) for run in runs]
    spread = [
        f"  /fill_mask p95 {min(r.fill_p95 for r in runs):.0f}–{max(r.fill_p95 for r in runs):.0f} ms "
        f"(target ≤ {args.fill_p95_ms:.0f}); all mixed p95 {min(r.mixed_p95 for r in runs):.0f}–"
        f"{max(r.mixed_p95 for r in runs):.0f} ms (≤ {args.mixed_p95_ms:.0f}); slowest busy answer "
        f"{min(max(r.busy, default=0) for r in runs) * 1e3:.0f}–{max(max(r.busy, default=0) for r in runs) * 1e3:.0f} "
        f"ms (≤ {args.busy_ms:.0f})",
    ]
    lines = [
        "ALBERT Lab at the edges",
        f"  serving: {models.label}; {os.cpu_count()} cores; {args.users} users × {args.per_user} mixed requests "
        f"beside {args.measurers} heaviest /measure_speed clients, then {args.burst} /attention at once; "
        f"{args.runs} runs",
        *(run.line(i + 1) for i, run in enumerate(runs)),
        *(f"    {failure}" for run in runs for failure in (run.failures + run.other)[:5]),
        *spread,
        f"  targets met in {sum(met)} of {len(runs)} runs: {'PASS' if all(met) else 'FAIL'}",
    ]
    print("\n".join(lines))  # the benchmark's report
    sys.exit(0 if all(met) else 1)


if __name__ == "__main__":
    main()
