"""`compaction compact`, `compaction stats`, `compaction formats`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from compaction.atomic import write_text_atomic
from compaction.config import load_settings

# The engine, loaders and tokenizer are imported inside the commands: every `compaction` process
# builds this parser, and the agent hooks must start fast.


def add_settings_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workspace", default=".", help="workspace folder (for .compaction/config.json); default: cwd")
    p.add_argument("--model", help="model name, for its context window")
    p.add_argument("--context-window", type=int, help="context window in tokens (overrides --model)")
    p.add_argument("--format", dest="fmt", help="transcript format (default: detect from content)")


def positive_int(text: str) -> int:
    """argparse type: a whole number > 0 (a budget of 0 or -5 tokens is a usage error, not a request)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {value}")
    return value


def settings_from(args: argparse.Namespace, **extra):
    """Settings from config.json under the flags. A bad flag value is reported as that flag (a usage
    error, exit 2), not as an error of config.json: the flags are validated alone first."""
    from pydantic import ValidationError

    from compaction.config import Settings

    layer = {k: v for k, v in {"model": args.model, "context_window": args.context_window, **extra}.items()
             if v is not None}
    try:
        Settings.model_validate(layer)
    except ValidationError as exc:
        err = exc.errors()[0]
        flag = "--" + str(err["loc"][0]).replace("_", "-")
        raise ValueError(f"argument {flag}: {err['msg']} (got {layer.get(err['loc'][0])!r})") from None
    return load_settings(args.workspace, layer)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compact", help="compact a transcript into a document an assistant can continue from")
    p.add_argument("path", help="transcript file (any supported format)")
    p.add_argument("--target-tokens", type=positive_int, help="token budget of the output (default: ~15%% of the input)")
    p.add_argument("--keep-recent", type=int, help="rounds kept verbatim (default 5)")
    p.add_argument("--role", choices=["developer", "tester", "pm"], help="role preset")
    p.add_argument("--instructions", help='free text, e.g. "keep the API decisions, ignore styling"')
    p.add_argument("--lang", choices=["en", "zh"], help="output language")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("-o", "--output", help="write the Markdown (or JSON) to FILE atomically")
    p.add_argument("--restore", action="store_true",
                   help="also write .compaction/latest.md and .compaction/restore.md in the workspace")
    add_settings_flags(p)
    p.set_defaults(func=run_compact)

    s = sub.add_parser("stats", help="tokens, rounds, utilization and whether compaction would trigger")
    s.add_argument("path")
    s.add_argument("--json", action="store_true")
    s.add_argument("--coverage", action="store_true",
                   help="also measure the share of the text the model saw that reached the parsed messages")
    add_settings_flags(s)
    s.set_defaults(func=run_stats)

    f = sub.add_parser("formats", help="list the transcript formats this tool reads")
    f.add_argument("--json", action="store_true")
    f.set_defaults(func=run_formats)


def run_compact(args: argparse.Namespace) -> int:
    from compaction.history import compact
    from compaction.transcripts import load_transcript

    settings = settings_from(args, keep_recent=args.keep_recent, role=args.role, lang=args.lang)
    transcript = load_transcript(args.path, args.fmt, redact=settings.redact_secrets)
    for warning in transcript.warnings:
        print(f"compaction: warning: {warning}", file=sys.stderr)
    result = compact(transcript, settings, target_tokens=args.target_tokens, instructions=args.instructions)
    out = result.model_dump_json(indent=2) if args.json else result.markdown
    if args.restore:
        from restore.pipeline import write_after_compaction

        paths = write_after_compaction(Path(args.workspace), transcript, result, settings)
        if not args.json:
            for p in paths:
                print(f"compaction: wrote {p}", file=sys.stderr)
    if args.output:
        write_text_atomic(args.output, out if out.endswith("\n") else out + "\n")
    else:
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0


def run_stats(args: argparse.Namespace) -> int:
    from compaction import tokens
    from compaction.transcripts import load_transcript

    settings = settings_from(args)
    transcript = load_transcript(args.path, args.fmt, redact=settings.redact_secrets)
    total = tokens.count_messages(transcript.messages)
    window = tokens.context_window(settings.model, settings.context_window)
    util = tokens.utilization(total, window)
    info = {
        "path": args.path,
        "format": transcript.format + (f" (inferred: {transcript.meta['inferred']})" if transcript.meta.get("inferred") else ""),
        "messages": len(transcript.messages),
        "rounds": len(transcript.rounds),
        "tokens": total,
        "context_window": window,
        "utilization": round(util, 4),
        "trigger_ratio": settings.trigger_ratio,
        "would_trigger": util >= settings.trigger_ratio and len(transcript.rounds) > settings.min_rounds,
        "cwd": transcript.cwd,
        "skipped_records": transcript.skipped_records,
        "skipped_kinds": transcript.skipped_kinds,
        "warnings": transcript.warnings,
    }
    if args.coverage:
        from compaction.transcripts.coverage import measure

        unredacted = load_transcript(args.path, args.fmt, redact=False) if settings.redact_secrets else transcript
        info["coverage"] = measure(args.path, unredacted).model_dump()
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        for key, value in info.items():
            if key == "coverage":
                _print_coverage(value)
            else:
                print(f"{key}: {value}")
    return 0


def _print_coverage(cov: dict) -> None:
    print(f"coverage: {cov['coverage']:.2%} of {cov['seen_chars']} characters the model saw reached the parsed messages")
    print(f"excluded: {cov['excluded_share']:.2%} ({cov['excluded_chars']} characters never shown to the model)")
    for title, rows in (("left out", cov["missing"]), ("excluded", cov["excluded"])):
        for kind, chars in rows:
            print(f"  {title}: {chars:>8}  {kind}")


def run_formats(args: argparse.Namespace) -> int:
    from compaction.transcripts import formats

    rows = [{"name": m.NAME, "description": m.DESCRIPTION} for m in formats()]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for r in rows:
            print(f"{r['name']:<16} {r['description']}")
    return 0
