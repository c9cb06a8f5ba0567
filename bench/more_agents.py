"""The 17 sessions of `more-agents/`, evaluated beside the 13: read or not (and why), messages,
rounds, and, on a planted copy compacted at 5%, 10% and 20% of its tokens, the modified files and
task opening kept (against `bench/ground_truth/more_agents.jsonl`), the planted markers kept, and
whether the document stayed within its budget.

Sessions set aside (`held_out_for` in the ground truth, from bench/holdout/SET_ASIDE.md) are
reported in their own tables, never in the totals; `--without-set-aside` leaves them out entirely
(not even read). A session the library cannot read today is a row "not read (reason)", never a crash.

    python -m bench.more_agents --without-set-aside          # the development sessions only
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import tempfile
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench import plant

REPO = Path(__file__).resolve().parents[1]
TRUTH = REPO / "bench" / "ground_truth" / "more_agents.jsonl"
BUDGETS = (0.05, 0.10, 0.20)
SCORED_BUDGET = 0.10
OPENING_WORDS = 20
DEVELOPMENT = "development"
GROUP_LABEL = {DEVELOPMENT: "development sessions",
               "issue-13": "set aside for issue 13 (generic reader, first run is the lead's)",
               "issue-14": "set aside for issue 14 (hand-over exam)"}
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass
class BudgetScore:
    budget: float
    target: int
    tokens: int = 0
    within: bool = False
    files_kept: list[str] = field(default_factory=list)
    files_lost: list[str] = field(default_factory=list)
    task_kept: bool = False
    markers_kept: list[str] = field(default_factory=list)  # places
    markers_lost: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass
class SessionResult:
    file: str
    format: str
    group: str
    read: bool = False
    error: str | None = None
    messages: int = 0
    rounds: int = 0
    tokens: int = 0
    files_expected: int = 0
    task_opening: str = ""
    planted: list[str] = field(default_factory=list)
    not_planted: dict[str, str] = field(default_factory=dict)
    planting_notes: list[str] = field(default_factory=list)
    budgets: list[BudgetScore] = field(default_factory=list)

    def at(self, budget: float) -> BudgetScore | None:
        return next((b for b in self.budgets if abs(b.budget - budget) < 1e-9), None)


# --------------------------------------------------------------------------- ground truth and scoring

def load_truth(path: Path = TRUTH) -> list[dict[str, Any]]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from exc
    return rows


def group_of(row: dict[str, Any]) -> str:
    held = row.get("held_out_for") or (["issue-13"] if row.get("set_aside") else [])
    return held[0] if held else DEVELOPMENT


_HOME_RE = re.compile(r"/(?:Users|home)/[^/]+/")


def file_kept(path: str, document: str, all_paths: list[str]) -> bool:
    """Kept when the path appears in the document, or a trailing part of it (its last components, its
    basename) does and no other file of the session ends the same way (Windows separators in the
    document count as slashes). A file under a home
    directory may be spelled from `~` as the session's commands wrote it (`~/Library/x.plist` is
    `/Users/me/Library/x.plist`)."""
    doc = document.replace("\\", "/")
    path, all_paths = path.replace("\\", "/"), [p.replace("\\", "/") for p in all_paths]
    if path in doc:
        return True
    home = _HOME_RE.match(path)
    if home and re.search(rf"~/{re.escape(path[home.end():])}(?!\.?[\w\-])", doc):
        return True
    # A trailing part of the path (`backend/pom.xml` of `repo/backend/pom.xml`: the document names files from
    # the project root, the ground truth may from its parent), down to the bare basename, when no other
    # file of the session ends the same way.
    parts = path.split("/")
    for k in range(1, len(parts)):
        tail = "/".join(parts[k:])
        if sum(1 for p in all_paths if p == tail or p.endswith("/" + tail)) != 1:
            continue
        lead = r"(?<![\w.\-/])" if k == len(parts) - 1 else r"(?<![\w.\-])"  # a base name alone, not inside a path
        if re.search(rf"{lead}{re.escape(tail)}(?!\.?[\w\-])", doc):
            return True
    return False


def opening_words(task_excerpt: str, limit: int = OPENING_WORDS) -> list[str]:
    """The task's first words (a word cut by the excerpt's 200-character end is dropped)."""
    words = _WORD.findall(task_excerpt.lower())
    if len(task_excerpt) >= 200 and words and len(words) <= limit:
        words = words[:-1]
    return words[:limit]


def task_kept(opening: list[str], document: str) -> bool:
    """The opening words appear in order, contiguously, in the document (formatting ignored)."""
    if not opening:
        return False
    doc = _WORD.findall(document.lower())
    n = len(opening)
    first = opening[0]
    return any(doc[i:i + n] == opening for i, w in enumerate(doc) if w == first)


def score(doc: str, row: dict[str, Any], opening: list[str], markers: list[Any], sc: BudgetScore) -> None:
    files = row.get("modified_files") or []
    for path in files:
        (sc.files_kept if file_kept(path, doc, files) else sc.files_lost).append(path)
    sc.task_kept = task_kept(opening, doc)
    for m in markers:
        (sc.markers_kept if m.needle in doc else sc.markers_lost).append(m.where)


# --------------------------------------------------------------------------- running

def _reason(exc: BaseException, original: Path | None = None) -> str:
    """One line: the error's kind and message, the session named by its file name only."""
    text = str(exc)
    if original is not None:
        text = text.replace(str(original), original.name)
    return f"{type(exc).__name__}: {text}".strip().splitlines()[0][:300]


def evaluate(original: Path, row: dict[str, Any], tmp: Path, budgets: tuple[float, ...] = BUDGETS) -> SessionResult:
    """One session: read the original, then compact a planted copy at every budget. Never raises."""
    from compaction import tokens
    from compaction.history import compact
    from compaction.transcripts import load_transcript

    res = SessionResult(row["file"], row["format"], group_of(row), files_expected=len(row.get("modified_files") or []))
    opening = opening_words(row.get("task_excerpt", ""))
    res.task_opening = " ".join(opening)
    # planting reads the raw file, not the library: an unreadable session's markers count as lost
    try:
        copy = plant.prepare(original, row["format"], tmp)
        res.planted = [m.where for m in copy.markers]
        res.not_planted, res.planting_notes = copy.missing, copy.notes
        evaluated, markers = copy.path, copy.markers
    except Exception as exc:  # noqa: BLE001 - a file the planter cannot parse is compacted unplanted
        res.planting_notes = [f"not planted: {_reason(exc, original)}"]
        evaluated, markers = original, []
    try:
        t = load_transcript(str(original))
    except Exception as exc:  # noqa: BLE001 - an unreadable session is a result, reported with its reason
        res.error = _reason(exc, original)
        return res
    res.messages, res.rounds = len(t.messages), len(t.rounds)
    if not t.messages:
        res.error = "read as zero messages"
        return res
    res.read = True
    try:
        planted_t = load_transcript(str(evaluated))
    except Exception as exc:  # noqa: BLE001
        res.error = f"planted copy not read: {_reason(exc, original)}"
        return res
    res.tokens = tokens.count_messages(planted_t.messages)
    for b in budgets:
        sc = BudgetScore(b, max(1, int(res.tokens * b)))
        try:
            doc = compact(planted_t, target_tokens=sc.target).markdown
        except Exception as exc:  # noqa: BLE001 - an engine crash loses everything at that budget
            sc.error = _reason(exc)
            sc.files_lost = list(row.get("modified_files") or [])
            sc.markers_lost = [m.where for m in markers]
            res.budgets.append(sc)
            continue
        sc.tokens = tokens.count(doc)
        sc.within = sc.tokens <= sc.target
        score(doc, row, opening, markers, sc)
        res.budgets.append(sc)
    return res


def run(sessions: Path, truth: Path = TRUTH, *, without_set_aside: bool = False, only: list[str] | None = None,
        budgets: tuple[float, ...] = BUDGETS, log=print) -> dict[str, Any]:
    rows = [r for r in load_truth(truth) if not only or any(o in r["file"] for o in only)]
    if without_set_aside:
        rows = [r for r in rows if group_of(r) == DEVELOPMENT]
    results: list[SessionResult] = []
    with tempfile.TemporaryDirectory(prefix="bench-more-agents-") as tmp:
        for row in rows:
            original = sessions / row["file"]
            if not original.is_file():
                results.append(SessionResult(row["file"], row["format"], group_of(row), error="file not found"))
                continue
            try:
                res = evaluate(original, row, Path(tmp), budgets)
            except Exception as exc:  # noqa: BLE001 - the harness itself must not stop the run
                res = SessionResult(row["file"], row["format"], group_of(row), error=f"harness error: {_reason(exc)}")
                log(traceback.format_exc())
            results.append(res)
            log(f"{row['file']}: " + (f"not read ({res.error})" if not res.read else
                                      f"{res.messages} messages, {res.rounds} rounds" + (f"; {res.error}" if res.error else "")))
    return {"sessions": [asdict(r) for r in results], "budgets": list(budgets), "scored_budget": SCORED_BUDGET,
            "without_set_aside": without_set_aside, "groups": aggregate(results)}


def aggregate(results: list[SessionResult]) -> dict[str, Any]:
    """Per group (development, each set-aside issue): pooled figures; groups are never mixed."""
    out: dict[str, Any] = {}
    for group in sorted({r.group for r in results}):
        rs = [r for r in results if r.group == group]
        at = [r.at(SCORED_BUDGET) for r in rs]
        scored = [a for a in at if a is not None]
        out[group] = {
            "sessions": len(rs), "read": sum(r.read for r in rs),
            "files_expected": sum(r.files_expected for r in rs),
            "files_kept": sum(len(a.files_kept) for a in scored),
            "task_kept": sum(a.task_kept for a in scored),
            "markers_planted": sum(len(r.planted) for r in rs),
            "markers_kept": sum(len(a.markers_kept) for a in scored),
            "within": {f"{int(round(b * 100))}": sum(1 for r in rs if (s := r.at(b)) is not None and s.within)
                       for b in BUDGETS},
        }
    return out


# --------------------------------------------------------------------------- CLI

def _shared() -> Path:
    env = os.environ.get("COMPACTION_SHARED")
    return (Path(env) if env else REPO.parent / "shared") / "transcripts" / "more-agents"


def main(argv: list[str] | None = None) -> int:
    from bench import report

    ap = argparse.ArgumentParser(prog="python -m bench.more_agents", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=Path, default=_shared())
    ap.add_argument("--truth", type=Path, default=TRUTH)
    ap.add_argument("--without-set-aside", action="store_true", help="leave the set-aside sessions out entirely")
    ap.add_argument("--only", nargs="*", help="substrings of session file names")
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument("--md", type=Path, help="also write the tables here (Markdown, dated)")
    args = ap.parse_args(argv)
    results = run(args.sessions, args.truth, without_set_aside=args.without_set_aside, only=args.only)
    section = report.more_agents_section(results)
    print()
    print(section)
    from compaction.atomic import write_text_atomic

    if args.json:
        write_text_atomic(args.json, json.dumps(results, indent=1, default=str))
    if args.md:
        flags = " --without-set-aside" if args.without_set_aside else ""
        stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        write_text_atomic(args.md, f"<!-- {stamp}, `python -m bench.more_agents{flags}` -->\n\n{section}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
