"""`compaction errors list|show|check|add|resolve|forget|export|import|ingest|ignore`: the
workspace's error memory (seed 003 §2). Markdown/text on stdout, `--json` for machines; a bad
request (unknown or malformed id, unreadable block) exits 1."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from compaction.errors import ErrorMemory, record_to_out
from compaction.errors.memory import ErrorMemoryError
from compaction.errors.records import ErrorRecord
from compaction.transcripts import load_transcript


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workspace", default=".", metavar="DIR", help="workspace holding .compaction/ (default: cwd)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("errors", help="error memory: recorded mistakes, advice, proactive warnings")
    esub = p.add_subparsers(dest="errors_command", metavar="ACTION")

    s = esub.add_parser("list", help="all records as the `## Error Memory` block")
    s.add_argument("--lang", choices=["en", "zh"], default="en")
    _common(s)
    s.set_defaults(func=run_list)

    s = esub.add_parser("show", help="one record with every occurrence, its evidence and location")
    s.add_argument("id")
    _common(s)
    s.set_defaults(func=run_show)

    s = esub.add_parser("check", help="warn about recorded errors resembling the work at hand")
    s.add_argument("task", nargs="?", default="", help="what is about to be done")
    s.add_argument("--file", action="append", default=[], dest="files", help="a file about to be touched")
    s.add_argument("--command", action="append", default=[], dest="commands", help="a command about to be run")
    s.add_argument("--code", help="a file holding code about to be written ('-' for stdin)")
    s.add_argument("--limit", type=int, default=3)
    s.add_argument("--lang", choices=["en", "zh"], default="en")
    _common(s)
    s.set_defaults(func=run_check)

    s = esub.add_parser("add", help="record an error by hand")
    s.add_argument("id", help="ERR_<FAMILY>_<Name>, e.g. ERR_LOGIC_OffByOne")
    s.add_argument("--solution")
    s.add_argument("--avoidance")
    s.add_argument("--round", type=int)
    s.add_argument("--evidence", default="")
    s.add_argument("--path")
    s.add_argument("--line", type=int)
    s.add_argument("--symbol")
    s.add_argument("--cmd", dest="cmd", help="the command that failed")
    _common(s)
    s.set_defaults(func=run_add)

    s = esub.add_parser("resolve", help="mark a record resolved (optionally with its solution)")
    s.add_argument("id")
    s.add_argument("--solution")
    _common(s)
    s.set_defaults(func=run_resolve)

    s = esub.add_parser("forget", help="delete a record (or all of them with --all)")
    s.add_argument("id", nargs="?")
    s.add_argument("--all", action="store_true", help="empty the error memory (explicit request only)")
    _common(s)
    s.set_defaults(func=run_forget)

    s = esub.add_parser("export", help="write the `## Error Memory` block (seed format)")
    s.add_argument("--lang", choices=["en", "zh"], default="en")
    s.add_argument("--output", "-o", help="write to FILE (atomically) instead of stdout")
    s.add_argument("--no-protocol", action="store_true", help="omit the §2.5 protocol lines")
    _common(s)
    s.set_defaults(func=run_export)

    s = esub.add_parser("import", help="import an `## Error Memory` block (e.g. from CLAUDE.md)")
    s.add_argument("file", help="Markdown file holding the block ('-' for stdin)")
    _common(s)
    s.set_defaults(func=run_import)

    s = esub.add_parser("ingest", help="record the errors of a transcript (idempotent)")
    s.add_argument("transcript")
    s.add_argument("--format", help="transcript format (default: detect)")
    _common(s)
    s.set_defaults(func=run_ingest)

    s = esub.add_parser("ignore", help="the user overrides a warning: record `@decision: ignore_ERR_xxx`")
    s.add_argument("id")
    s.add_argument("--note")
    _common(s)
    s.set_defaults(func=run_ignore)

    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _guard(fn):
    def wrapped(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except ErrorMemoryError as exc:
            print(f"compaction errors: {exc}", file=sys.stderr)
            return 1
    wrapped.__name__ = fn.__name__
    return wrapped


def _dump(obj) -> None:
    print(json.dumps(obj, indent=2, ensure_ascii=False))


def _record_json(rec: ErrorRecord, occurrences: bool = False) -> dict:
    out = record_to_out(rec).model_dump()
    out.update(family=rec.family, merged=rec.merged, resolved=rec.resolved, ts_codes=rec.ts_codes, tests=rec.tests)
    if occurrences:
        out["occurrences"] = [{
            "transcript": o.transcript, "round": o.round, "evidence": o.evidence, "message": o.message,
            "source": o.source, "start": o.start, "end": o.end, "location": o.location.as_dict(),
            "signals": o.signals, "target": o.target} for o in rec.occurrences]
    return out


@_guard
def run_list(args: argparse.Namespace) -> int:
    with ErrorMemory(args.workspace) as mem:
        if args.json:
            _dump({"records": [_record_json(r) for r in mem.list()], "decisions": mem.decisions()})
        else:
            print(mem.export(args.lang), end="")
    return 0


@_guard
def run_show(args: argparse.Namespace) -> int:
    with ErrorMemory(args.workspace) as mem:
        rec = mem.get(args.id)
        if rec is None:
            raise ErrorMemoryError(f"no error {args.id} in this workspace's memory")
        if args.json:
            _dump(_record_json(rec, occurrences=True))
            return 0
        from compaction.errors.render import render_record

        print(render_record(rec))
        for o in rec.occurrences:
            loc = o.location
            where = ":".join(str(x) for x in (loc.path, loc.line) if x) or "-"
            extra = f" in {loc.symbol}" if loc.symbol else ""
            cmd = f" (`{loc.command.splitlines()[0][:80]}`)" if loc.command else ""
            print(f"  r{o.round} [{o.transcript[:8]}] {where}{extra}{cmd}{' target' if o.target else ''}")
            if o.evidence:
                print("    " + o.evidence.replace("\n", "\n    ")[:600])
    return 0


@_guard
def run_check(args: argparse.Namespace) -> int:
    code = ""
    if args.code:
        code = sys.stdin.read() if args.code == "-" else Path(args.code).read_text(encoding="utf-8", errors="replace")
    with ErrorMemory(args.workspace) as mem:
        warns = mem.check(args.task, files=args.files, code=code, commands=args.commands, limit=args.limit,
                          lang=args.lang)
    if args.json:
        _dump({"warnings": [w.as_dict() for w in warns]})
    else:
        for w in warns:
            print(f"> {w.line}\n  ({w.reason})")
        if not warns:
            print("no recorded error resembles this work" if args.lang == "en" else "无相似的历史错误")
    return 0


@_guard
def run_add(args: argparse.Namespace) -> int:
    with ErrorMemory(args.workspace) as mem:
        rec = mem.add(args.id, solution=args.solution, avoidance=args.avoidance, round=args.round,
                      evidence=args.evidence, path=args.path, line=args.line, symbol=args.symbol, command=args.cmd)
    _out(args, rec)
    return 0


@_guard
def run_resolve(args: argparse.Namespace) -> int:
    with ErrorMemory(args.workspace) as mem:
        rec = mem.resolve(args.id, args.solution)
    _out(args, rec)
    return 0


def _out(args: argparse.Namespace, rec: ErrorRecord) -> None:
    if args.json:
        _dump(_record_json(rec))
    else:
        from compaction.errors.render import render_record

        print(render_record(rec))


@_guard
def run_forget(args: argparse.Namespace) -> int:
    if args.all and args.id:
        raise ErrorMemoryError("give an id or --all, not both")
    with ErrorMemory(args.workspace) as mem:
        ids = mem.forget(args.id, everything=args.all)
    if args.json:
        _dump({"forgotten": ids})
    else:
        print(f"forgot {len(ids)} record(s): {', '.join(ids) or '-'}")
    return 0


@_guard
def run_export(args: argparse.Namespace) -> int:
    with ErrorMemory(args.workspace) as mem:
        text = mem.export(args.lang, args.output, protocol=not args.no_protocol)
        n = len(mem.list())
    if args.json:
        _dump({"markdown": text, "records": n, "output": args.output})
    elif args.output:
        print(f"wrote {n} record(s) to {args.output}")
    else:
        print(text, end="")
    return 0


@_guard
def run_import(args: argparse.Namespace) -> int:
    if args.file == "-":
        text = sys.stdin.read()
    else:
        path = Path(args.file)
        if not path.is_file():
            raise ErrorMemoryError(f"{path}: no such file")
        text = path.read_text(encoding="utf-8", errors="replace")
    with ErrorMemory(args.workspace) as mem:
        ids = mem.import_block(text, origin="stdin" if args.file == "-" else Path(args.file).name)
    if args.json:
        _dump({"imported": ids})
    else:
        print(f"imported {len(ids)} record(s): {', '.join(ids) or '-'}")
    return 0


@_guard
def run_ingest(args: argparse.Namespace) -> int:
    from compaction.config import load_settings

    transcript = load_transcript(args.transcript, args.format,
                                 redact=load_settings(args.workspace).redact_secrets)
    with ErrorMemory(args.workspace) as mem:
        report = mem.ingest(transcript)
    if args.json:
        _dump(report.as_dict())
    else:
        print(f"{report.records} error id(s), {report.new_occurrences} new occurrence(s) from {args.transcript}")
    return 0


@_guard
def run_ignore(args: argparse.Namespace) -> int:
    with ErrorMemory(args.workspace) as mem:
        decision = mem.ignore(args.id, args.note)
    if args.json:
        _dump({"decision": decision})
    else:
        print(decision)
    return 0
