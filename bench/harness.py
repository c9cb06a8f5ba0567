"""The evaluation harness: every real transcript, three budgets, our engine against three baselines.

For each transcript an evaluation copy is made (harness-appended patches removed, three markers
planted in the first third, see bench/copies.py), the expected facts are read from that copy by an
independent scan (bench/facts.py), and every method's output at 5%, 10% and 20% of the transcript's
tokens is scored for how many of those facts it still carries.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench import baselines, copies, speed
from bench import facts as F
from compaction import tokens
from compaction.transcripts import load_transcript

BUDGETS = (0.05, 0.10, 0.20)
CLASSES = ("modified_files", "error_ids", "commands", "numbers", "task", "markers", "todos")
EXTRA = ("error_evidence", "task_opening", "patch_files")  # reported, not part of the total
METHODS = ("ours", "recent", "head_tail", "tfidf")
RECENT_HEADING = "## Recent rounds"


@dataclass
class ClassScore:
    expected: int = 0
    retained: int = 0
    lost: list[str] = field(default_factory=list)


@dataclass
class RunResult:
    transcript: str
    method: str
    budget: float
    target: int
    tokens_before: int
    tokens_after: int
    within_budget: bool
    seconds: float
    scores: dict[str, ClassScore]
    precision: float | None = None  # modified files listed that were really written (ours only)
    listed_files: list[str] = field(default_factory=list)
    diagnosis: dict[str, list[str]] = field(default_factory=dict)


def error_memory_ready() -> bool:
    try:
        from compaction.errors import records_to_out, scan_transcript  # noqa: F401
        from compaction.history import errors_adapter

        errors_adapter.render_block([], "en", 200, 1)
    except ImportError:
        return False
    return True


def transcript_text(transcript) -> str:
    """The transcript as one text: what the baselines cut and what the tokenizer pass encodes."""
    return "\n\n".join(f"[{m.role.value}] {m.full_text()}" for m in transcript.messages)


def _contains(hay_norm: str, needle: str) -> bool:
    return bool(needle) and F.norm(needle) in hay_norm


def score_output(exp: F.Expected, output: str, summary_part: str | None = None,
                 listed_files: list[str] | None = None) -> dict[str, ClassScore]:
    """Score one output. `listed_files` (ours) is the summary's modified-files section; baselines
    have no sections, so for them a file counts when its path appears anywhere."""
    hay = F.norm(output)
    summary_norm = F.norm(summary_part) if summary_part is not None else hay
    s = {c: ClassScore() for c in CLASSES + EXTRA}

    def add(cls: str, ok: bool, what: str) -> None:
        s[cls].expected += 1
        if ok:
            s[cls].retained += 1
        else:
            s[cls].lost.append(what)

    def file_kept(path: str) -> bool:
        if listed_files is not None:
            return any(F.same_file(path, item) for item in listed_files)
        return F.norm_path(path) in output

    for path in exp.modified_files:
        add("modified_files", file_kept(path), path)
    for path in exp.patch_files:
        add("patch_files", file_kept(path), path)
    for err_id, evidence in exp.error_ids.items():
        add("error_ids", err_id in output, err_id)
        add("error_evidence", err_id in output or evidence in output, err_id)
    for cmd in exp.commands:
        add("commands", _contains(hay, cmd), cmd)
    for num in exp.numbers:
        add("numbers", F.number_present(num, output), num)
    if exp.task:
        add("task", _contains(hay, exp.task), exp.task[:60])
        add("task_opening", _contains(hay, exp.task_opening), exp.task_opening)
    for marker in exp.markers:
        add("markers", marker in summary_norm, marker)
    for todo in exp.todos:
        add("todos", _contains(hay, todo), todo)
    return s


def _summary_part(markdown: str) -> str:
    cut = markdown.find(RECENT_HEADING)
    return markdown if cut < 0 else markdown[:cut]


def _diagnose(exp: F.Expected, sc: dict[str, ClassScore], result, transcript) -> dict[str, list[str]]:
    """Why ours lost a fact: never detected by the engine, or detected and dropped by the budget."""
    from compaction.events import EventKind, extract_events
    from compaction.history.facts import display_path

    events = extract_events(transcript)
    out: dict[str, list[str]] = {}
    edited = {display_path(e.path, transcript.cwd) for e in events
              if e.kind in (EventKind.EDIT, EventKind.WRITE, EventKind.DELETE) and e.path}
    for path in sc["modified_files"].lost:
        seen = any(F.same_file(path, p) for p in edited)
        out.setdefault("modified_files", []).append(
            f"{path}: {'detected as edited, dropped from the section' if seen else 'no edit event for it'}")
    ids = {r.id for r in result.error_memory}
    for err in sc["error_ids"].lost:
        out.setdefault("error_ids", []).append(
            f"{err}: {'in error_memory but not in the text (budget/merge)' if err in ids else 'not classified'}")
    state_cmds = {F.command_key(e.command) for e in events
                  if e.kind is EventKind.COMMAND and e.command and e.state_changing}
    for cmd in sc["commands"].lost:
        out.setdefault("commands", []).append(
            f"{cmd!r}: {'state-changing event, dropped by budget' if cmd in state_cmds else 'not seen as state-changing'}")
    markers = [e.text for e in events if e.kind is EventKind.MARKER]
    for m in sc["markers"].lost:
        out.setdefault("markers", []).append(f"{m}: {'marker event exists' if any(m in t for t in markers) else 'no marker event'}")
    for cls in ("numbers", "task", "todos"):
        if sc[cls].lost:
            out[cls] = [f"{x!r}: not in the output" for x in sc[cls].lost]
    return out


def run_ours(copy_path: Path, exp: F.Expected, budget: float) -> RunResult:
    from compaction.history import compact

    t = load_transcript(str(copy_path))
    before = tokens.count_messages(t.messages)
    target = max(1, int(before * budget))
    started = time.perf_counter()
    result = compact(t, target_tokens=target)
    seconds = time.perf_counter() - started
    md = result.markdown
    listed = [item.text for item in result.summary.modified_files]
    sc = score_output(exp, md, _summary_part(md), listed)
    true_listed = [p for p in listed if any(F.same_file(p, w) for w in exp.written)]
    after = tokens.count(md)
    rr = RunResult(copy_path.name, "ours", budget, target, before, after, after <= target, seconds, sc,
                   precision=(len(true_listed) / len(listed)) if listed else None, listed_files=listed)
    rr.diagnosis = _diagnose(exp, sc, result, t)
    return rr


def run_baseline(name: str, text: str, before: int, copy_name: str, exp: F.Expected, budget: float) -> RunResult:
    target = max(1, int(before * budget))
    started = time.perf_counter()
    out = baselines.BASELINES[name](text, target)
    seconds = time.perf_counter() - started
    after = tokens.count(out)
    return RunResult(copy_name, name, budget, target, before, after, after <= target, seconds, score_output(exp, out))


def run(transcripts: Path, budgets: tuple[float, ...] = BUDGETS, only: list[str] | None = None,
        timing: bool = True, log=print) -> dict[str, Any]:
    truth = F.load_truth(transcripts)
    names = sorted(n for n in truth if (transcripts / n).is_file() and (not only or any(o in n for o in only)))
    runs: list[RunResult] = []
    timings: list[dict[str, Any]] = []
    copies_info: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-copies-") as tmp:
        for name in names:
            copy = copies.prepare(transcripts / name, Path(tmp))
            exp = F.expected_facts(copy.path, truth[name], [m.needle for m in copy.markers], copy.fmt)
            copies_info[name] = {"removed": copy.removed, "markers": [asdict(m) for m in copy.markers],
                                 "task_source": exp.task_source, "task": exp.task,
                                 "expected": asdict(exp) | {"written": sorted(exp.written)}}
            t = load_transcript(str(copy.path))
            before = tokens.count_messages(t.messages)
            text = transcript_text(t)
            for b in budgets:
                try:
                    runs.append(run_ours(copy.path, exp, b))
                except Exception as exc:  # an engine crash is a result too: every fact counts as lost
                    target = max(1, int(before * b))
                    failed = RunResult(name, "ours", b, target, before, 0, False, 0.0, score_output(exp, ""))
                    failed.diagnosis = {"crash": [f"{type(exc).__name__}: {exc}"]}
                    runs.append(failed)
                    log(f"{name} @ {b:.0%}: engine raised {type(exc).__name__}: {exc}")
                for m in METHODS[1:]:
                    runs.append(run_baseline(m, text, before, name, exp, b))
            ours = [r for r in runs if r.transcript == name and r.method == "ours"]
            log(f"{name}: {before} tokens; ours lost " + "; ".join(
                f"{int(r.budget * 100)}%: {sum(len(s.lost) for c, s in r.scores.items() if c in CLASSES)}" for r in ours))
            if timing:
                timings.append(speed.time_one(copy.path))
    return {"runs": [_run_dict(r) for r in runs], "timings": timings, "copies": copies_info,
            "aggregate": aggregate(runs), "budgets": list(budgets)}


def _run_dict(r: RunResult) -> dict[str, Any]:
    d = asdict(r)
    return d


def aggregate(runs: list[RunResult]) -> dict[str, Any]:
    """Per method x budget x class: mean retention over transcripts (those with >0 expected), and pooled."""
    out: dict[str, Any] = {}
    for method in METHODS:
        for b in sorted({r.budget for r in runs}):
            rs = [r for r in runs if r.method == method and r.budget == b]
            if not rs:
                continue
            key = f"{method}@{int(round(b * 100))}"
            cls_stats = {}
            for c in CLASSES + EXTRA:
                per = [r.scores[c].retained / r.scores[c].expected for r in rs if r.scores[c].expected]
                exp_n = sum(r.scores[c].expected for r in rs)
                ret_n = sum(r.scores[c].retained for r in rs)
                cls_stats[c] = {"mean": statistics.mean(per) if per else None,
                                "pooled": ret_n / exp_n if exp_n else None, "expected": exp_n, "retained": ret_n}
            exp_all = sum(cls_stats[c]["expected"] for c in CLASSES)
            ret_all = sum(cls_stats[c]["retained"] for c in CLASSES)
            precisions = [r.precision for r in rs if r.precision is not None]
            out[key] = {"classes": cls_stats, "loss_total": 1 - ret_all / exp_all if exp_all else None,
                        "within_budget": sum(r.within_budget for r in rs), "n": len(rs),
                        "ratio_mean": statistics.mean(r.tokens_after / r.tokens_before for r in rs),
                        "precision_mean": statistics.mean(precisions) if precisions else None,
                        "seconds_median": statistics.median(r.seconds for r in rs)}
    return out
