"""`compaction blocks compress FILE.json`: compress context blocks by a strategy.

FILE.json is a list of blocks, or `{"blocks": [...], "target_tokens"?, "compression_ratio"?,
"strategy"?, "query"?}`; each block `{"source", "priority", "content", "metadata"?, "id"?}` with
priority a name (CRITICAL/HIGH/MEDIUM/LOW) or a number 0-100. Flags override the file's values.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from compaction.blocks import CompositeWeights, ContextBlock, ContextCompressor, Strategy, prepare_context
from compaction.config import read_config_file
from compaction.model import TranscriptError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("blocks", help="context blocks: compress by strategy under a token budget")
    bsub = p.add_subparsers(dest="blocks_command", metavar="ACTION")
    c = bsub.add_parser("compress", help="compress the blocks of FILE.json")
    c.add_argument("file", help="JSON file: a list of blocks or {blocks, target_tokens, strategy, query}")
    c.add_argument("--strategy", choices=[s.value for s in Strategy], help="default: the file's, else composite")
    c.add_argument("--target-tokens", type=int)
    c.add_argument("--ratio", type=float, help="share of tokens kept (0.7 keeps 70%%)")
    c.add_argument("--query", help="relevance query (default: the TASK blocks' text)")
    c.add_argument("--weights", help="composite weights priority,relevance,freshness (e.g. 0.5,0.3,0.2)")
    c.add_argument("--prepare", action="store_true",
                   help="assemble a prompt under the budget table instead (uses --context-window)")
    c.add_argument("--context-window", type=int, help="for --prepare (default: the model's)")
    c.add_argument("--model")
    c.add_argument("--workspace", default=".", help="workspace (for .compaction/config.json: the optional LLM)")
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.set_defaults(func=run_compress)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def load_blocks_file(path: str) -> tuple[list[ContextBlock], dict]:
    """Blocks and options from FILE.json; TranscriptError names the file and the bad block."""
    from compaction.transcripts import check_regular_file

    check_regular_file(path)
    try:
        data = read_config_file(path) if not Path(path).read_text(encoding="utf-8-sig").lstrip().startswith("[") \
            else {"blocks": json.loads(Path(path).read_text(encoding="utf-8-sig"))}
    except Exception as exc:  # ConfigError / JSONDecodeError: report as bad input
        raise TranscriptError(path, str(exc).split(": ", 1)[-1]) from None
    raw = data.get("blocks")
    if not isinstance(raw, list):
        raise TranscriptError(path, "expected a list of blocks (or an object with a `blocks` list)")
    blocks = []
    for i, b in enumerate(raw):
        try:
            blocks.append(ContextBlock.from_dict(b))
        except (KeyError, ValueError, TypeError, AttributeError) as exc:
            raise TranscriptError(path, f"block {i}: invalid ({type(exc).__name__}: {exc})") from None
    return blocks, data


def run_compress(args: argparse.Namespace) -> int:
    blocks, data = load_blocks_file(args.file)
    strategy = args.strategy or data.get("strategy") or Strategy.COMPOSITE.value
    query = args.query or data.get("query")
    weights = None
    if args.weights:
        w = [float(x) for x in args.weights.split(",")]
        if len(w) != 3:
            raise ValueError("--weights needs three numbers: priority,relevance,freshness")
        weights = CompositeWeights(*w)
    from compaction.config import load_settings
    from compaction.llm import LLMClient

    comp = ContextCompressor(weights, llm=LLMClient.from_settings(load_settings(args.workspace).llm))
    if args.prepare:
        prepared = prepare_context(blocks, window=args.context_window, model=args.model, query=query,
                                   strategy=strategy, compressor=comp)
        out = prepared.to_dict()
        if args.json:
            print(json.dumps(out, indent=2, ensure_ascii=False))
        else:
            print(f"window {prepared.window}, utilization {prepared.utilization:.1%}, rules: "
                  f"{'; '.join(prepared.shares.rules) or 'none'}")
            for part, budget in prepared.budget.items():
                print(f"  {part:<13} {prepared.shares.percent()[part]:>3}%  {prepared.used.get(part, 0):>7} / {budget}")
            for o in prepared.dropped:
                print(f"  dropped block {o.index} ({o.source}): {o.reason}")
        return 0
    target = args.target_tokens if args.target_tokens is not None else data.get("target_tokens")
    ratio = args.ratio if args.ratio is not None else data.get("compression_ratio")
    res = comp.compress(blocks, compression_ratio=ratio, target_tokens=target, strategy=strategy, query=query)
    for notice in comp.notices:
        print(f"compaction: notice: {notice}", file=sys.stderr)
    if args.json:
        print(json.dumps(res.to_dict(), indent=2, ensure_ascii=False))
        return 0
    print(f"{res.strategy}: {res.tokens_before} -> {res.tokens_after} tokens (target {res.target_tokens})")
    for o in res.outcomes:
        extra = f" — {o.reason}" if o.reason else ""
        print(f"  [{o.index}] {o.source:<12} score {o.score:>7.2f}  {o.action:<10} {o.tokens_before}->{o.tokens_after}"
              f"{extra}")
    sys.stdout.write("\n" + "\n\n".join(b.content for b in res.blocks) + "\n")
    return 0
