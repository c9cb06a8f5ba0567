"""`python -m bench` (`make bench`): the evaluation harness, timings and the 1M-token case, then the report.

    python -m bench                  # harness + timing + synthetic 1M; writes bench/results/
    python -m bench --all            # also every other bench script present (each as a subprocess)
    python -m bench --only pydicom   # a subset (substring of the file name); --no-timing, --no-synthetic
    python -m bench --without-set-aside   # the sessions set aside (bench/holdout/SET_ASIDE.md) not even read
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OTHER_BENCHES = ("restore_bench", "lsp_bench", "avoidance_replay", "check_latency", "summarizer_vs_tfidf",
                 "hooks_bench", "gemini_hooks_bench", "large_input", "fuzz_all")


def _shared() -> Path:
    env = os.environ.get("COMPACTION_SHARED")
    return (Path(env) if env else REPO.parent / "shared") / "transcripts"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--transcripts", type=Path, default=_shared())
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--only", nargs="*", help="substrings of transcript file names")
    ap.add_argument("--no-timing", action="store_true")
    ap.add_argument("--no-synthetic", action="store_true")
    ap.add_argument("--synthetic-tokens", type=int, default=1_000_000)
    ap.add_argument("--all", action="store_true", help="also run the other bench scripts that exist")
    ap.add_argument("--without-set-aside", action="store_true",
                    help="leave the more-agents sessions set aside in bench/holdout/SET_ASIDE.md out entirely")
    ap.add_argument("--no-more-agents", action="store_true", help="skip the 17 sessions of more-agents/")
    ap.add_argument("--timeout", type=float, default=600, help="seconds allowed to each other bench script")
    args = ap.parse_args(argv)

    from bench import harness, more_agents, report, speed

    notes: list[str] = []
    if not harness.error_memory_ready():
        print("compaction.errors is not importable: the harness measures the whole engine", file=sys.stderr)
        return 2
    results = harness.run(args.transcripts, only=args.only, timing=not args.no_timing)
    more = args.transcripts / "more-agents"
    if not args.no_more_agents and more.is_dir():
        results["more_agents"] = more_agents.run(more, without_set_aside=args.without_set_aside, only=args.only)
    if not args.no_synthetic:
        results["synthetic"] = speed.synthetic_run(args.synthetic_tokens, cwd=REPO)
        syn = results["synthetic"]
        if "error" in syn:
            print("synthetic run failed:\n" + syn["error"], file=sys.stderr)
        else:
            print(f"synthetic: {syn['tokens']:,} tokens, load+compact {syn['load_s'] + syn['compact_s']:.2f} s, "
                  f"encode {syn['encode_s']:.2f} s, peak RSS {syn['peak_rss_mb']:.0f} MB")
    results["meta"] = {"generated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
                       "notes": notes, "python": sys.version.split()[0]}
    paths = report.write(results, args.out)
    print()
    print(report.readme_table(results))
    print()
    if not args.only and report.update_readme(REPO / "README.md", report.readme_table(results)):
        print("updated the results table in README.md")
    print("wrote " + ", ".join(str(p.relative_to(REPO)) if p.is_relative_to(REPO) else str(p) for p in paths.values()))

    rc = 0
    if args.all:
        for name in OTHER_BENCHES:
            if (REPO / "bench" / f"{name}.py").exists():
                print(f"\n=== bench.{name} ===", flush=True)
                code = _run_child(name, args.timeout, args.out)
                if code != 0:
                    print(f"bench.{name} exited {code}", file=sys.stderr)
                    rc = rc or code
    return rc


def _run_child(name: str, timeout: float, out_dir: Path) -> int:
    """One other bench script in its own process group, so a hung one (and its children) can be stopped;
    what it prints is shown and kept in `bench/results/<name>.txt`, the record behind the README's figures."""
    out_dir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([sys.executable, "-m", f"bench.{name}"], cwd=REPO, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    timed_out = threading.Event()

    def stop() -> None:
        timed_out.set()
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                return
            time.sleep(5)

    timer = threading.Timer(timeout, stop)
    timer.start()
    try:
        with (out_dir / f"{name}.txt").open("w", encoding="utf-8") as fh:
            fh.write(f"# python -m bench.{name}, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC\n")
            for line in proc.stdout:  # ends when the script exits or is stopped
                sys.stdout.write(line)
                fh.write(line)
        code = proc.wait()
    finally:
        timer.cancel()
    if timed_out.is_set():
        print(f"bench.{name} timed out after {timeout:.0f} s", file=sys.stderr)
        return 124
    return code


if __name__ == "__main__":
    sys.exit(main())
