"""`compaction restore`: the state an assistant needs to carry on after a compaction."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from compaction import statedir
from compaction.atomic import write_text_atomic
from compaction.config import load_settings


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("restore", help="print (and write .compaction/restore.md) the restore state of a workspace")
    p.add_argument("--workspace", default=".", help="workspace folder (default: cwd)")
    p.add_argument("--open", nargs="+", default=None, metavar="FILE", help="files open in the editor")
    p.add_argument("--transcript", metavar="PATH", help="compact this transcript and restore from it")
    p.add_argument("--format", dest="fmt", help="transcript format (default: detect)")
    p.add_argument("--lang", choices=["en", "zh"], help="headings language")
    p.add_argument("--no-excerpts", action="store_true", help="list the core files without their excerpts")
    p.add_argument("--no-write", action="store_true", help="do not write .compaction/restore.md")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("-o", "--output", help="write the Markdown (or JSON) to FILE atomically")
    p.add_argument("--trust-shipped-memory", action="store_true",
                   help="use the error memory even when the repository ships .compaction/state.db in git")
    p.set_defaults(func=run_restore)


def run_restore(args: argparse.Namespace) -> int:
    from restore.pipeline import stored_error_memory
    from restore.render import render_json, render_markdown
    from restore.state import build_restore_state

    workspace = Path(args.workspace)
    if not workspace.is_dir():
        raise ValueError(f"--workspace {args.workspace}: not a directory")
    settings = load_settings(workspace, {"lang": args.lang, "trustShippedMemory": args.trust_shipped_memory or None})
    # --open paths are relative to where the command runs, like any shell argument
    opened = [os.path.abspath(f) for f in args.open] if args.open else None
    if args.transcript:
        from compaction.history import compact
        from compaction.transcripts import load_transcript
        from restore.pipeline import restore_from_transcript

        transcript = load_transcript(args.transcript, args.fmt, redact=settings.redact_secrets)
        for warning in transcript.warnings:
            print(f"compaction: warning: {warning}", file=sys.stderr)
        result = compact(transcript, settings)
        state = restore_from_transcript(workspace, transcript, result, settings, open_files=opened,
                                        stored_errors=stored_error_memory(workspace, settings.lang, settings),
                                        excerpts=not args.no_excerpts)
        if not args.no_write:
            statedir.write_text(workspace, "latest.md", result.markdown.rstrip("\n") + "\n")
    else:
        records, block = stored_error_memory(workspace, settings.lang, settings)
        state = build_restore_state(workspace, open_files=opened, settings=settings, error_records=records,
                                    error_memory_markdown=block, excerpts=not args.no_excerpts)
    markdown = render_markdown(state, excerpts=not args.no_excerpts)
    if not args.no_write:
        statedir.write_text(workspace, "restore.md", markdown)
    out = render_json(state) if args.json else markdown
    if args.output:
        write_text_atomic(args.output, out if out.endswith("\n") else out + "\n")
    else:
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0
