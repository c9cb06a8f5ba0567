"""Large and hostile input: a generated 100 MB Claude Code session (JSONL, read by the streamed
loader) with two tool-result lines of 20 MB each, loaded and compacted in fresh processes whose
peak memory (ru_maxrss) is measured; plus deep nesting, a binary file and an empty file.

`python -m bench.large_input [--mb 100] [--keep PATH]` prints a table and writes
bench/results/large_input.json. The target is peak memory under 500 MB for load + compaction.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "large_input.json"
LIMIT_MB = 500

FILES = ["src/app/main.py", "src/app/router.py", "src/app/models.py", "src/app/service.py", "tests/test_service.py",
         "src/app/utils/dates.py", "README.md", "pyproject.toml"]
TRACEBACK = ('Traceback (most recent call last):\n  File "/w/src/app/service.py", line {n}, in handle\n'
             '    return table[key]\nKeyError: \'{k}\'\n')


def _rec(kind: str, i: int, message: dict) -> str:
    return json.dumps({"type": kind, "sessionId": "bench", "uuid": f"u{i}", "parentUuid": f"u{i - 1}",
                       "cwd": "/w", "isSidechain": False, "userType": "external",
                       "timestamp": "2026-11-30T00:00:00Z", "message": message}) + "\n"


def _output(rng: random.Random, size: int) -> str:
    lines, n = [], 0
    while n < size:
        r = rng.random()
        if r < 0.6:
            line = f"tests/test_service.py::test_case_{rng.randint(0, 99999):05d} PASSED [{rng.randint(0, 100):3d}%]"
        elif r < 0.9:
            line = f"    {rng.choice(['x', 'value', 'result'])} = compute({rng.randint(0, 9999)}, {rng.random():.4f})"
        else:
            line = TRACEBACK.format(n=rng.randint(1, 400), k=rng.choice(["user", "id", "token_count"]))
        lines.append(line)
        n += len(line) + 1
    return "\n".join(lines)


def generate(path: Path, target_mb: int, huge_lines: int = 2, huge_mb: int = 20, seed: int = 7) -> dict:
    """Stream a Claude Code session of about `target_mb` MB to `path`; returns what it holds."""
    rng = random.Random(seed)
    target = target_mb * 2**20
    written, i, rounds = 0, 0, 0
    huge_at = {int(target * (k + 1) / (huge_lines + 1)) for k in range(huge_lines)}
    secret = "ghp_" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
                              for _ in range(36))
    with open(path, "w", encoding="utf-8") as fh:
        while written < target:
            rounds += 1
            f = rng.choice(FILES)
            text = f"Round {rounds}: fix the failing test in {f}." + (f" token {secret}" if rounds % 500 == 1 else "")
            parts = [_rec("user", i, {"role": "user", "content": text})]
            cmd = rng.choice([f"python -m pytest -q tests/test_service.py -k case_{rounds}", f"cat {f}",
                              "git status --short", f"grep -n handle {f}"])
            tool = {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": cmd}}
            if rounds % 7 == 0:
                tool = {"type": "tool_use", "id": f"t{i}", "name": "Edit",
                        "input": {"file_path": f"/w/{f}", "old_string": "table[key]", "new_string": "table.get(key)"}}
            parts.append(_rec("assistant", i + 1, {"id": f"m{i}", "role": "assistant", "content": [
                {"type": "text", "text": f"I will look at {f} (@decision: keep the public API)" if rounds % 50 == 0
                 else f"Checking {f}."}, tool]}))
            size = rng.randint(2_000, 40_000)
            if any(written <= h < written + size + 2000 for h in huge_at):
                size = huge_mb * 2**20  # a whole test log cat'ed into the conversation: one line of 20 MB
            parts.append(_rec("user", i + 2, {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"t{i}", "content": _output(rng, size),
                 "is_error": rounds % 11 == 0}]}))
            for p in parts:
                fh.write(p)
                written += len(p)
            i += 3
    return {"bytes": path.stat().st_size, "rounds": rounds, "records": i, "secret_rounds": (rounds + 499) // 500}


def generate_tiny(path: Path, records: int = 1_000_000) -> dict:
    """A Claude Code session of `records` tiny user/assistant records of a few words (~67 bytes a line):
    the shape that tests memory per record rather than per byte. Only the first record carries the
    session fields the format is detected by; the rest are as small as the format allows."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"type": "user", "sessionId": "bench", "parentUuid": None, "cwd": "/w",
                             "message": {"role": "user", "content": "Fix the failing tests in src/app."}}) + "\n")
        for i in range(1, records):
            if i % 2:
                rec = {"type": "assistant", "message": {"role": "assistant", "content": f"Done with step {i}."}}
            else:
                rec = {"type": "user", "message": {"role": "user", "content": f"now fix bug {i}"}}
            fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
    return {"bytes": path.stat().st_size, "records": records}


CHILD = """
import json, resource, sys, time
from compaction.transcripts import load_transcript
t0 = time.perf_counter()
t = load_transcript(sys.argv[1])
t1 = time.perf_counter()
out = {"messages": len(t.messages), "rounds": len(t.rounds), "redactions": t.meta.get("redactions", {}),
       "load_s": round(t1 - t0, 2), "longest_line_chars": max((len(r.content) for m in t.messages
                                                               for r in m.tool_results), default=0)}
if sys.argv[2] == "compact":
    from compaction.config import load_settings
    from compaction.history import compact
    r = compact(t, load_settings(None))
    out.update(compact_s=round(time.perf_counter() - t1, 2), tokens_before=r.stats.tokens_before,
               tokens_after=r.stats.tokens_after, stats_redactions=r.stats.redactions,
               secret_in_output=%r in r.model_dump_json())
out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
print(json.dumps(out))
"""


def measure(path: Path, mode: str, secret_prefix: str = "ghp_") -> dict:
    code = CHILD % secret_prefix
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, str(path), mode], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"}
    out = json.loads(proc.stdout)
    out["wall_s"] = round(time.perf_counter() - t0, 2)
    return out


def hostile(tmp: Path) -> list[dict]:
    """Deep nesting, binary, empty: each must end in a TranscriptError, quickly and in little memory."""
    cases = {
        "deep-json-1M-levels.json": "[" * 1_000_000 + "]" * 1_000_000,
        "deep-jsonl.jsonl": json.dumps({"type": "user", "sessionId": "s", "parentUuid": None, "message":
                                        {"role": "user", "content": "x"}}) + "\n" + '{"a":' * 500_000 + "1"
        + "}" * 500_000 + "\n",
        "binary.png": None,
        "empty.jsonl": "",
    }
    out = []
    for name, text in cases.items():
        p = tmp / name
        if text is None:
            p.write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(1 << 20))
        else:
            p.write_text(text, encoding="utf-8")
        code = ("import resource, sys, time\nfrom compaction.transcripts import load_transcript\n"
                "from compaction.model import TranscriptError\nt0 = time.perf_counter()\n"
                "try:\n    load_transcript(sys.argv[1]); r = 'loaded'\n"
                "except TranscriptError as e:\n    r = 'TranscriptError: ' + e.reason\n"
                "print(r); print(round(time.perf_counter() - t0, 3)); "
                "print(round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1))")
        proc = subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        lines = proc.stdout.strip().splitlines()
        if proc.returncode != 0 or len(lines) != 3:
            out.append({"case": name, "outcome": f"CRASH: {proc.stderr.strip().splitlines()[-1:]}"})
        else:
            out.append({"case": name, "outcome": lines[0], "seconds": float(lines[1]), "peak_rss_mb": float(lines[2])})
    return out


PASTE_TIMEOUT_S = 60


def pasted_indentation(tmp: Path) -> dict:
    """A session whose requests paste runs of indented lines broken by plain ones (a stack of nested
    output): a pattern that once backtracked exponentially in the pasted-log detector (depth 8 took
    minutes). Load + compact in a fresh process, which must finish well inside PASTE_TIMEOUT_S."""
    block = "\n".join(" " * 8 + f"frame {i}: value {i * 7}" for i in range(12)) + "\nplain words between runs\n"
    path = tmp / "indented-pastes.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for i in range(20):
            f.write(_rec("user", 2 * i, {"role": "user", "content": f"Here is the output, why does it fail?\n{block * 12}"}))
            f.write(_rec("assistant", 2 * i + 1, {"role": "assistant", "content": [{"type": "text", "text": "Looking."}]}))
    code = ("import sys, time\nfrom compaction.transcripts import load_transcript\nfrom compaction.history import compact\n"
            "t0 = time.perf_counter()\ncompact(load_transcript(sys.argv[1]), target_tokens=2000)\n"
            "print(round(time.perf_counter() - t0, 3))")
    try:
        proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                              timeout=PASTE_TIMEOUT_S, env={**os.environ, "PYTHONPATH": str(ROOT)})
    except subprocess.TimeoutExpired:
        return {"case": path.name, "outcome": f"TIMEOUT after {PASTE_TIMEOUT_S} s"}
    if proc.returncode != 0:
        return {"case": path.name, "outcome": f"CRASH: {proc.stderr.strip().splitlines()[-1:]}"}
    return {"case": path.name, "outcome": "compacted", "seconds": float(proc.stdout.strip().splitlines()[-1])}


def tiny_records(records: int) -> dict:
    """1,000,000 tiny records: peak RSS and time of load + compaction in a fresh process."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "tiny.jsonl"
        info = generate_tiny(path, records)
        out = measure(path, "compact")
    return {**info, **out}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--tiny-records", type=int, default=1_000_000,
                    help="also measure a session of this many tiny records (0: skip)")
    ap.add_argument("--keep", type=Path, help="write the generated transcript here (default: a temp dir)")
    ap.add_argument("--no-write", action="store_true", help="do not write bench/results/large_input.json")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        path = args.keep or tmp / "large-session.jsonl"
        t0 = time.perf_counter()
        info = generate(path, args.mb)
        info["generate_s"] = round(time.perf_counter() - t0, 1)
        print(f"generated {info['bytes'] / 2**20:.1f} MB, {info['rounds']} rounds, {info['records']} records "
              f"(2 lines of 20 MB) in {info['generate_s']} s", flush=True)
        load = measure(path, "load")
        print(f"load only:        {json.dumps(load)}", flush=True)
        full = measure(path, "compact")
        print(f"load + compact:   {json.dumps(full)}", flush=True)
        bad = hostile(tmp) + [pasted_indentation(tmp)]
        for row in bad:
            print(f"hostile {row['case']:26} {row['outcome']}  "
                  f"{row.get('seconds', '?')} s  peak {row.get('peak_rss_mb', '?')} MB", flush=True)
    tiny = tiny_records(args.tiny_records) if args.tiny_records else {}
    if tiny:
        print(f"tiny records:     {tiny['records']:,} records, {tiny['bytes'] / 2**20:.1f} MB: "
              f"{json.dumps({k: v for k, v in tiny.items() if k not in ('records', 'bytes')})}", flush=True)
    peak = max(load.get("peak_rss_mb", 1e9), full.get("peak_rss_mb", 1e9), tiny.get("peak_rss_mb", 0) if tiny else 0)
    ok = peak < LIMIT_MB and not full.get("secret_in_output", True) and all("CRASH" not in r["outcome"] and "TIMEOUT" not in r["outcome"] for r in bad)
    print(f"\npeak memory {peak} MB for a {info['bytes'] / 2**20:.0f} MB transcript (limit {LIMIT_MB} MB): "
          f"{'OK' if ok else 'FAIL'}")
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps({"transcript": info, "load": load, "compact": full, "hostile": bad, "tiny": tiny,
                                       "peak_rss_mb": peak, "limit_mb": LIMIT_MB, "ok": ok}, indent=2) + "\n",
                           encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
