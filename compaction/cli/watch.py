"""`compaction watch`: follow the newest transcript of the workspace, show its utilization, and compact
at the trigger ratio (rate-limited) so the restore state is ready before the agent's own compaction."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("watch", help="compact the workspace's newest transcript automatically at the trigger ratio")
    p.add_argument("--workspace", default=".", help="workspace folder (default: cwd)")
    p.add_argument("--interval", type=float, default=2.0, help="seconds between checks (default 2)")
    p.add_argument("--trigger", type=float, help="trigger ratio (default: settings, 0.70)")
    p.add_argument("--model", help="model name, for its context window")
    p.add_argument("--context-window", type=int, help="context window in tokens")
    p.add_argument("--once", action="store_true", help="one check, then exit")
    p.add_argument("--json", action="store_true", help="one JSON object per event")
    p.set_defaults(func=run_watch)


def run_watch(args: argparse.Namespace) -> int:
    from compaction.cli.integrations.watcher import Watcher
    from compaction.config import load_settings

    layer = {"model": args.model, "context_window": args.context_window, "trigger_ratio": args.trigger}
    settings = load_settings(args.workspace, {k: v for k, v in layer.items() if v is not None})
    watcher = Watcher(args.workspace, settings)

    def emit(event) -> None:
        print(json.dumps(event.as_dict()) if args.json else event.line(), flush=True)

    if args.once:
        emit(watcher.step())
        return 0
    try:
        watcher.run(args.interval, emit)
    except KeyboardInterrupt:
        print("", file=sys.stderr)
    return 0
