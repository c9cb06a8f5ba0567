"""False positives of secret redaction on real sessions: every redaction listed with its kind and context.

Runs `compaction.redact` over the 30 real sessions in `../shared/transcripts/` and `more-agents/`:
through the project's loaders where they read the file (every text a transcript carries: messages,
tool-call commands and argument strings, tool results, session summaries), else over the file's raw
text. Each hit is printed with 60 characters each side and the judgement recorded in `VERDICTS`
(read by a person, hit by hit); the count of false positives per 100,000 tokens is the figure the
target (<= 1) is about.

`python -m bench.redaction_false_positives [--out FILE]` prints the report and writes it
(default bench/results/redaction_false_positives.txt).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from compaction import tokens  # noqa: E402
from compaction.model import Transcript  # noqa: E402
from compaction.redact import Finding, map_strings, redact_text  # noqa: E402
from compaction.transcripts import load_transcript  # noqa: E402

SKIP = {"README.md", "MANIFEST.tsv", "GROUND_TRUTH.jsonl"}

# Judgement of each hit, read in context: (file, kind, sha256(value)[:12]) -> (verdict, why).
# verdict "fp" = not a credential at all; "tp" = a credential (a test or sample one in these public files).
VERDICTS: dict[tuple[str, str, str], tuple[str, str]] = {
    ("oh-fastjson2-2775.json", "password", "c151c55f3109"): (
        "tp", "a 32-hex `token` value in a JSON body a test web app logged: a session token (a test one)"),
    ("antigravity-applysense.jsonl", "password", "48dddab61e02"): (
        "tp", "DJANGO_SECRET_KEY of the project's .env (a hand-made dev key, `django-insecure-…-12345`): "
              "the value a Django SECRET_KEY has, public here because the session is"),
    ("antigravity-applysense.jsonl", "password", "ef92b778bafe"): (
        "tp", "a test user's password in a Django test (`'password': 'password123'`): a credential, of a test"),
    ("antigravity-applysense.jsonl", "password", "8f38f83db4ce"): (
        "tp", "a test user's password in a Django test (`password='loginpass123'`): a credential, of a test"),
}


@dataclass
class FileReport:
    name: str
    source: str  # "loader:<format>" or "raw text (<why>)"
    tokens: int = 0
    findings: list[Finding] = field(default_factory=list)


def session_files(shared: Path) -> list[Path]:
    """The real sessions: transcripts/ and transcripts/more-agents/ without their READMEs and manifests."""
    out = []
    for folder in (shared, shared / "more-agents"):
        out += sorted(p for p in folder.iterdir() if p.is_file() and p.name not in SKIP)
    return out


def strings_in(value: object) -> list[str]:
    """Every string inside a JSON value (keys excluded)."""
    out: list[str] = []

    def keep(s: str) -> str:
        out.append(s)
        return s

    map_strings(value, keep)
    return out


def transcript_texts(t: Transcript) -> list[str]:
    """Every text of a loaded transcript, as redaction sees it (the same fields `redact_transcript` covers)."""
    texts: list[str] = []
    for msg in t.messages:
        texts.append(msg.text)
        for call in msg.tool_calls:
            texts += [call.command or "", call.path or "", *strings_in(call.arguments)]
        texts += [r.content for r in msg.tool_results]
    if isinstance(t.meta.get("summaries"), list):
        texts += strings_in(t.meta["summaries"])
    return [s for s in texts if s]


def scan(path: Path) -> FileReport:
    try:
        t = load_transcript(path, redact=False)
        texts, source = transcript_texts(t), f"loader:{t.format}"
    except Exception as exc:  # noqa: BLE001 - an unreadable format is scanned as raw text, as the brief asks
        texts = [path.read_text(encoding="utf-8", errors="replace")]
        source = f"raw text ({type(exc).__name__}: no loader reads it)"
    rep = FileReport(path.name, source)
    seen: set[str] = set()
    for s in texts:
        if s in seen:  # a command is also its `command` argument: judge it once
            continue
        seen.add(s)
        rep.tokens += tokens.count(s)
        redact_text(s, Counter(), found=rep.findings)
    return rep


def key_of(name: str, f: Finding) -> tuple[str, str, str]:
    return name, f.kind, hashlib.sha256(f.value.encode()).hexdigest()[:12]


def shown(value: str) -> str:
    """The value as the report shows it: short values whole, long ones cut (the report is public too)."""
    v = value if len(value) <= 24 else f"{value[:10]}…{value[-4:]} ({len(value)} chars)"
    return v.replace("\n", "\\n")


def one_line(s: str) -> str:
    return s.replace("\n", "\\n").replace("\r", "\\r")


def report(files: list[FileReport], seconds: float) -> tuple[str, int, int]:
    lines = ["# Secret redaction over the real sessions: every hit, judged", ""]
    total_tokens = sum(f.tokens for f in files)
    hits = fps = unjudged = 0
    for f in files:
        lines.append(f"## {f.name} — {f.source}, {f.tokens:,} tokens, {len(f.findings)} redaction(s)")
        for hit in f.findings:
            verdict, why = VERDICTS.get(key_of(f.name, hit), ("UNJUDGED", ""))
            hits += 1
            fps += verdict == "fp"
            unjudged += verdict == "UNJUDGED"
            lines.append(f"- [{verdict}] {hit.kind}: `{shown(hit.value)}` (key {key_of(f.name, hit)[2]})")
            lines.append(f"    …{one_line(hit.before)}⟦{hit.kind}⟧{one_line(hit.after)}…")
            if why:
                lines.append(f"    why: {why}")
        lines.append("")
    per100k = fps / total_tokens * 100_000 if total_tokens else 0.0
    kinds = Counter(h.kind for f in files for h in f.findings)
    lines += [
        "## Totals",
        f"sessions: {len(files)} ({sum(f.source.startswith('loader') for f in files)} through a loader, "
        f"{sum(not f.source.startswith('loader') for f in files)} as raw text)",
        f"tokens scanned: {total_tokens:,}",
        f"redactions: {hits} ({dict(sorted(kinds.items()))})",
        f"false positives: {fps} = {per100k:.3f} per 100,000 tokens (target <= 1)",
        f"unjudged: {unjudged}",
        f"time: {seconds:.1f} s",
    ]
    return "\n".join(lines) + "\n", fps, total_tokens


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shared = Path(os.environ.get("COMPACTION_SHARED") or ROOT.parent / "shared")
    ap.add_argument("--transcripts", type=Path, default=shared / "transcripts")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "redaction_false_positives.txt")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    files = [scan(p) for p in session_files(args.transcripts)]
    text, _, _ = report(files, time.perf_counter() - t0)
    print(text, end="")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
