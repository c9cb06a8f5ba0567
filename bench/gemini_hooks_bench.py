"""Gemini CLI hook wall time, process start included (printed, never asserted in tests).

Gemini CLI (0.61) runs `PreCompress` before every model request and `BeforeAgent` before every prompt,
so their common case — nothing to do — is what the user pays most often. On a session file in the
shape Gemini CLI 0.61 writes (built here: N turns of a failing shell command and an edit, about 2 MB),
median of N runs each: PreCompress not due; BeforeAgent with no compression; PreCompress due (hands
the work to the background); BeforeAgent after a compression (waits for that work, then injects).

Run: `.venv/bin/python bench/gemini_hooks_bench.py [--runs 5] [--turns 400]`
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SESSION = "bench-gemini-session"


def exe() -> str:
    cand = Path(sys.executable).parent / "compaction"
    return str(cand) if cand.exists() else "compaction"


def session_file(path: Path, turns: int, last_input_tokens: int, snapshot: bool) -> Path:
    crash = "Traceback (most recent call last):\n  File \"/p/app.py\", line 13, in main\n    port = config[\"port\"]\n" \
            "KeyError: 'port'\n" + "log line\n" * 300
    lines = [{"sessionId": SESSION, "projectHash": "bench", "startTime": "2026-12-01T00:00:00Z", "kind": "main"}]
    for i in range(turns):
        lines += [
            {"id": f"u{i}", "type": "user", "content": [{"text": f"Please fix the crash when I run app.py ({i})"}]},
            {"id": f"g{i}", "type": "gemini", "content": "Running it.", "tokens": {"input": 1000 + i, "output": 20},
             "model": "gemini-2.5-flash",
             "toolCalls": [{"id": f"c{i}", "name": "run_shell_command", "args": {"command": "python3 app.py"}}]},
            {"id": f"r{i}", "type": "user", "content": [{"functionResponse": {
                "id": f"c{i}", "name": "run_shell_command", "response": {"output": crash}}}]},
            {"$set": {"lastUpdated": "2026-12-01T00:00:01Z"}},
        ]
    lines.append({"id": "last", "type": "gemini", "content": "Done.", "model": "gemini-2.5-flash",
                  "tokens": {"input": last_input_tokens, "output": 20}})
    if snapshot:
        lines.append({"$set": {"messages": [{"id": "snap", "type": "user",
                                             "content": [{"text": "<state_snapshot>s</state_snapshot>"}]}]}})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def run(sub: str, payload: dict, cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    r = subprocess.run([exe(), "hook", sub], input=json.dumps(payload).encode(), cwd=cwd, capture_output=True,
                       timeout=300)
    return (time.perf_counter() - t) * 1000, r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--turns", type=int, default=400)
    args = ap.parse_args()
    times: dict[str, list[float]] = {}
    size = 0.0
    chars = 0
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as d:
            ws = Path(d) / "ws"
            ws.mkdir()
            quiet = session_file(Path(d) / "quiet.jsonl", args.turns, 12_000, snapshot=False)
            due = session_file(Path(d) / "due.jsonl", args.turns, 600_000, snapshot=False)
            done = session_file(Path(d) / "done.jsonl", args.turns, 600_000, snapshot=True)
            size = due.stat().st_size / 1e6
            base = {"session_id": SESSION, "cwd": str(ws), "timestamp": "2026-12-01T00:00:00Z"}
            steps = [
                ("PreCompress, not due (every model request)", "gemini-pre-compress",
                 {**base, "hook_event_name": "PreCompress", "trigger": "auto", "transcript_path": str(quiet)}),
                ("BeforeAgent, no compression (every prompt)", "gemini-before-agent",
                 {**base, "hook_event_name": "BeforeAgent", "prompt": "go on", "transcript_path": str(quiet)}),
                ("PreCompress, due (starts the background work)", "gemini-pre-compress",
                 {**base, "hook_event_name": "PreCompress", "trigger": "auto", "transcript_path": str(due)}),
                ("BeforeAgent after a compression (waits, injects)", "gemini-before-agent",
                 {**base, "hook_event_name": "BeforeAgent", "prompt": "go on", "transcript_path": str(done)}),
            ]
            for label, sub, payload in steps:
                ms, r = run(sub, payload, ws)
                assert r.returncode == 0, r.stderr
                times.setdefault(label, []).append(ms)
                if sub == "gemini-before-agent" and r.stdout:
                    chars = len(json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"])
    print(f"Gemini CLI session file: {size:.2f} MB ({args.turns} turns); load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} CPUs")
    for label, xs in times.items():
        print(f"{label:52s} wall median {statistics.median(xs):6.0f} ms (min {min(xs):.0f}, max {max(xs):.0f}, "
              f"n={len(xs)})")
    print(f"injected context: {chars} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
