"""Build (or check) `bench/ground_truth/more_agents.jsonl`: one ground-truth line per session of
`../shared/transcripts/more-agents/`.

The mechanical part (files changed, task opening) is recomputed from the sessions by the
`derive_*` modules; what reading added is kept in the JSONL itself (`project_root`, `read_added`,
`read_removed`, `deleted_files`, `notes`), so no session's content lives anywhere else.

    python -m bench.ground_truth.build_more_agents            # rewrite the JSONL
    python -m bench.ground_truth.build_more_agents --check    # exit 1 if it is out of date
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sys
import tempfile
from pathlib import Path

from bench.ground_truth import (
    derive_aider,
    derive_antigravity,
    derive_claude_code,
    derive_cline,
    derive_codex,
    derive_gemini,
    derive_pi,
    derive_specstory,
)
from bench.ground_truth.common import Derived, relative, unique

REPO = Path(__file__).resolve().parents[2]
OUT = Path(__file__).with_name("more_agents.jsonl")
SET_ASIDE = REPO / "bench" / "holdout" / "SET_ASIDE.md"
DERIVERS = {
    "claude-code-session-jsonl": derive_claude_code.derive,
    "codex-rollout-jsonl": derive_codex.derive,
    "gemini-cli-history-json": derive_gemini.derive,
    "pi-coding-agent-session-jsonl": derive_pi.derive,
    "antigravity-trajectory-jsonl": derive_antigravity.derive,
    "cline-task-export-md": derive_cline.derive,
    "aider-chat-history-md": derive_aider.derive,
    "specstory-md-v2": derive_specstory.derive,
}
CURATED = ("project_root", "read_added", "read_removed", "deleted_files", "notes")


def shared_dir() -> Path:
    env = os.environ.get("COMPACTION_SHARED")
    return (Path(env) if env else REPO.parent / "shared") / "transcripts" / "more-agents"


def held_out(text: str) -> dict[str, list[str]]:
    """File name -> the issues it is set aside for, read from SET_ASIDE.md's sections."""
    out: dict[str, list[str]] = {}
    issue = None
    for line in text.splitlines():
        if line.startswith("## "):  # a section of another kind (the fresh exams) sets aside for no issue's sets
            head = re.match(r"^## Issue (\d+)", line)
            issue = f"issue-{head.group(1)}" if head else None
            continue
        item = re.match(r"^- `(?:more-agents/)?([^`]+)`", line)
        if item and issue:
            out.setdefault(item.group(1), []).append(issue)
    return out


def manifest(folder: Path) -> list[dict[str, str]]:
    with (folder / "MANIFEST.tsv").open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def record(row: dict[str, str], derived: Derived, curated: dict, held: list[str]) -> dict:
    roots = [r for r in [curated.get("project_root", "")] if r] + derived.roots
    mechanical = unique([relative(p, roots) for p in derived.changed])
    added, removed = curated.get("read_added", []), curated.get("read_removed", [])
    modified = unique([p for p in mechanical if p not in removed] + added)
    method = "read" if (added or removed) else f"mechanical:{derived.how}"
    return {
        "file": row["file"], "format": row["format"], "agent": row["agent"],
        "set_aside": "issue-13" in held, "held_out_for": held,
        "task_excerpt": derived.task,
        "modified_files": modified, "modified_files_method": method,
        "deleted_files": curated.get("deleted_files", []),
        "project_root": curated.get("project_root") or (derived.roots[0] if derived.roots else ""),
        "mechanical_files": mechanical, "mechanical_how": derived.how,
        "read_added": added, "read_removed": removed,
        "notes": curated.get("notes", ""),
    }


def build(folder: Path, previous: dict[str, dict]) -> list[dict]:
    held = held_out(SET_ASIDE.read_text(encoding="utf-8"))
    out = []
    for row in manifest(folder):
        derive = DERIVERS[row["format"]]
        curated = {k: v for k, v in previous.get(row["file"], {}).items() if k in CURATED}
        out.append(record(row, derive(folder / row["file"]), curated, held.get(row["file"], [])))
    return out


def load(path: Path) -> dict[str, dict]:
    if not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {r["file"]: r for r in rows}


def dump(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=Path, default=shared_dir())
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--check", action="store_true", help="exit 1 when the file differs from a fresh build")
    args = ap.parse_args(argv)
    previous = load(args.out)
    text = dump(build(args.sessions, previous))
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is out of date: run python -m bench.ground_truth.build_more_agents", file=sys.stderr)
            return 1
        print(f"{args.out}: up to date")
        return 0
    write_atomic(args.out, text)
    print(f"wrote {args.out} ({text.count(chr(10))} sessions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
