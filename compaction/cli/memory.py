"""`compaction memory add|retrieve|stats`: the workspace's compressed memory (seed 000)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from compaction.memory import open_memory


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("memory", help="compressed memory: key-value facts, gists, temporal items")
    msub = p.add_subparsers(dest="memory_command", metavar="ACTION")
    a = msub.add_parser("add", help="add a text (argument, --file, or stdin with '-')")
    a.add_argument("text", nargs="?", help="the text; '-' reads stdin")
    a.add_argument("--file", help="read the text from FILE")
    a.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE", help="provenance metadata")
    a.add_argument("--workspace", default=".")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=run_add)
    r = msub.add_parser("retrieve", help="retrieve memories for a query under a token budget")
    r.add_argument("query")
    r.add_argument("--token-budget", type=int, help="default: mcp.tokenBudget.maxCompressedTokens (2048)")
    r.add_argument("--workspace", default=".")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=run_retrieve)
    s = msub.add_parser("stats", help="counts and compression ratios")
    s.add_argument("--workspace", default=".")
    s.set_defaults(func=run_stats)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _meta(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"--meta expects KEY=VALUE, got {pair!r}")
        k, v = pair.split("=", 1)
        out[k] = v
    return out


def run_add(args: argparse.Namespace) -> int:
    if args.file:
        text = Path(args.file).read_text(encoding="utf-8", errors="replace")
    elif args.text == "-" or args.text is None:
        text = sys.stdin.read()
    else:
        text = args.text
    if not text.strip():
        raise ValueError("nothing to add: the text is empty")
    mem = open_memory(args.workspace)
    res = mem.add(text, _meta(args.meta))
    if args.json:
        print(json.dumps(res.__dict__, ensure_ascii=False))
    else:
        state = "already stored" if res.duplicate else f"{res.facts_added} facts added, {res.facts_merged} merged"
        print(f"memory item {res.item_id}: {state}")
        if res.gist:
            print("gist: " + "; ".join(res.gist))
    return 0


def run_retrieve(args: argparse.Namespace) -> int:
    mem = open_memory(args.workspace)
    ctx = mem.retrieve(args.query, args.token_budget)
    if args.json:
        print(json.dumps(ctx.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(ctx.text or "(no memories match)")
        print(f"\n[{ctx.tokens} of {ctx.budget} tokens]", file=sys.stderr)
    return 0


def run_stats(args: argparse.Namespace) -> int:
    print(json.dumps(open_memory(args.workspace).stats(), indent=2))
    return 0
