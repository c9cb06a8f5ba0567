"""Claude Code hook wall time, process start included (printed, never asserted in tests).

For the largest transcript in ../shared/transcripts (or --transcript): the real `compaction hook
pre-compact` and `compaction hook session-start` processes, fed the stdin JSON Claude Code sends,
median (and min/max) of N runs each, in a fresh workspace per pre-compact run. The baseline is
`compaction --version` (interpreter start + CLI imports) on the same machine at the same time.

With `--large-mb N` (issue 15): session-start on a generated Claude Code transcript of N MB (87 in
the red-team run, where it took 58 s and Claude Code's 30 s kill left nothing injected), median of
`--runs`, both after a pre-compact ran (the state is ready) and when none ran for this session
(session-start must compact itself, and returns within its 25 s deadline with the last good state).

Run: `.venv/bin/python bench/hooks_bench.py [--runs 5] [--transcript PATH] [--large-mb 87]`
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("COMPACTION_SHARED") or REPO.parent / "shared") / "transcripts"


def largest_transcript() -> Path:
    skip = {"README.md", "MANIFEST.tsv", "GROUND_TRUTH.jsonl"}
    files = [p for p in SHARED.iterdir() if p.is_file() and p.name not in skip]
    return max(files, key=lambda p: p.stat().st_size)


def exe() -> str:
    cand = Path(sys.executable).parent / "compaction"
    return str(cand) if cand.exists() else "compaction"


CPU: dict[str, list[float]] = {}


def timed(args: list[str], stdin: bytes, cwd: Path, key: str | None = None) -> tuple[float, subprocess.CompletedProcess]:
    """Wall ms of the whole process; its CPU ms (user + sys) is recorded in CPU under the subcommand."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(args, input=stdin, cwd=cwd, capture_output=True, timeout=300)
    wall = (time.perf_counter() - t) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    CPU.setdefault(key or args[-1], []).append(cpu)
    return wall, r


def fmt(xs: list[float], key: str) -> str:
    cpu = statistics.median(CPU[key])
    return (f"wall median {statistics.median(xs):6.0f} ms (min {min(xs):.0f}, max {max(xs):.0f}, n={len(xs)}); "
            f"CPU median {cpu:5.0f} ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--transcript", type=Path)
    ap.add_argument("--large-mb", type=int, default=0,
                    help="only measure session-start on a generated Claude Code transcript of this size")
    args = ap.parse_args()
    if args.large_mb:
        return large_session_start(args.large_mb, args.runs)
    transcript = (args.transcript or largest_transcript()).absolute()
    cmd = exe()
    base, pre, start, chars, detached, start_waiting = [], [], [], [], [], []
    worker, start_ready = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as d:
            ws = Path(d)
            ms, _ = timed([cmd, "--version"], b"", ws)
            base.append(ms)
            payload = {"session_id": "bench", "transcript_path": str(transcript), "cwd": str(ws),
                       "permission_mode": "default", "hook_event_name": "PreCompact", "trigger": "auto",
                       "custom_instructions": ""}
            ms, r = timed([cmd, "hook", "pre-compact"], json.dumps(payload).encode(), ws)
            assert r.returncode == 0 and (ws / ".compaction" / "restore.md").exists(), r.stderr
            pre.append(ms)
            payload = {"session_id": "bench", "transcript_path": str(transcript), "cwd": str(ws),
                       "hook_event_name": "SessionStart", "source": "compact"}
            ms, r = timed([cmd, "hook", "session-start"], json.dumps(payload).encode(), ws)
            block = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
            start.append(ms)
            chars.append(len(block))
        with tempfile.TemporaryDirectory() as d:  # as installed: `pre-compact --detach`
            ws = Path(d)
            payload = {"session_id": "bench", "transcript_path": str(transcript), "cwd": str(ws),
                       "permission_mode": "default", "hook_event_name": "PreCompact", "trigger": "auto",
                       "custom_instructions": ""}
            ms, r = timed([cmd, "hook", "pre-compact", "--detach"], json.dumps(payload).encode(), ws,
                          "pre-compact --detach")
            assert r.returncode == 0, r.stderr
            detached.append(ms)
            payload = {"session_id": "bench", "transcript_path": str(transcript), "cwd": str(ws),
                       "hook_event_name": "SessionStart", "source": "compact"}
            ms, r = timed([cmd, "hook", "session-start"], json.dumps(payload).encode(), ws,
                          "session-start after detach")
            assert json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
            start_waiting.append(ms)
        with tempfile.TemporaryDirectory() as d:  # as it happens with a real model: the agent's own
            ws = Path(d)                          # summary takes seconds, the worker is done by then
            payload = {"session_id": "bench", "transcript_path": str(transcript), "cwd": str(ws),
                       "permission_mode": "default", "hook_event_name": "PreCompact", "trigger": "auto",
                       "custom_instructions": ""}
            t = time.perf_counter()
            timed([cmd, "hook", "pre-compact", "--detach"], json.dumps(payload).encode(), ws, "pre-compact --detach")
            pending = ws / ".compaction" / "pre-compact.pending"
            while pending.exists() and time.perf_counter() - t < 120:
                time.sleep(0.02)
            worker.append((time.perf_counter() - t) * 1000)
            payload = {"session_id": "bench", "transcript_path": str(transcript), "cwd": str(ws),
                       "hook_event_name": "SessionStart", "source": "compact"}
            ms, r = timed([cmd, "hook", "session-start"], json.dumps(payload).encode(), ws,
                          "session-start after the worker")
            assert json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
            start_ready.append(ms)
    print(f"transcript: {transcript.name} ({transcript.stat().st_size / 1e6:.2f} MB); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"baseline `compaction --version`:  {fmt(base, '--version')}")
    print(f"`compaction hook pre-compact`:    {fmt(pre, 'pre-compact')}")
    print(f"`compaction hook session-start`:  {fmt(start, 'session-start')}")
    print(f"`hook pre-compact --detach` (as installed): {fmt(detached, 'pre-compact --detach')}")
    print(f"  then `session-start` at once (waits for the background work): "
          f"{fmt(start_waiting, 'session-start after detach')}")
    print(f"  the background work itself (detach to done): wall median {statistics.median(worker):6.0f} ms")
    print(f"  `session-start` once it is done (the usual case: the agent's own summary takes longer): "
          f"{fmt(start_ready, 'session-start after the worker')}")
    print(f"injected context: {statistics.median(chars):.0f} characters (limit 10,000)")
    return 0


def large_session_start(mb: int, runs: int) -> int:
    """session-start wall time on a generated `mb` MB Claude Code transcript (median of `runs`)."""
    sys.path.insert(0, str(REPO))
    from bench.large_input import generate

    cmd = exe()
    ready, missed, missed_notes = [], [], 0
    with tempfile.TemporaryDirectory() as d:
        transcript = Path(d) / "large-session.jsonl"
        info = generate(transcript, mb)
        for _ in range(runs):
            with tempfile.TemporaryDirectory() as w:
                ws = Path(w)
                start = {"session_id": "bench", "transcript_path": str(transcript), "cwd": str(ws),
                         "hook_event_name": "SessionStart", "source": "compact"}
                # no pre-compact ran for this session: session-start has to compact, within its deadline
                ms, r = timed([cmd, "hook", "session-start"], json.dumps(start).encode(), ws, "missed")
                assert r.returncode == 0, r.stderr
                missed.append(ms)
                missed_notes += "did not finish within" in r.stdout.decode()
                _wait_for_background(ws)
                # the background run has written the state: the next session-start only reads it
                ms, r = timed([cmd, "hook", "session-start"], json.dumps(start).encode(), ws, "ready")
                assert r.returncode == 0 and json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
                ready.append(ms)
    print(f"generated Claude Code transcript: {info['bytes'] / 1e6:.1f} MB, {info['rounds']} rounds; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"session-start, no pre-compact for this session: {fmt(missed, 'missed')}; "
          f"{missed_notes}/{runs} answered with the last good state (deadline 25 s)")
    print(f"session-start, state ready:                     {fmt(ready, 'ready')}")
    return 0


def _wait_for_background(ws: Path, timeout: float = 900.0) -> None:
    """Until the detached pre-compact that session-start started has written this session's state."""
    state = ws / ".compaction" / "hook-state.json"
    pending = ws / ".compaction" / "pre-compact.pending"
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if state.exists() and not pending.exists():
            return
        time.sleep(0.5)
    raise TimeoutError("the background compaction did not finish")


if __name__ == "__main__":
    sys.exit(main())
