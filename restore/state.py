"""RestoreState: what the assistant needs to carry on after a compaction (seed 003 §3.3).

Always: the working directory (stated explicitly), open files, unfinished tasks, problems with
their solutions and the complete error-memory block. Files: the five most recently modified core
files (ordered entry > router > business > model > test config), files with unresolved problems,
architecture documents and test configuration, with excerpts under a token budget.
"""

from __future__ import annotations

import heapq
import os
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from compaction.config import Settings
from compaction.history.sources.uncommitted import NOT_OURS
from compaction.redact import redact_text
from compaction.summary import CompactionResult, ErrorRecordOut, Item
from restore.excerpts import READ_LIMIT, Excerpt, make_excerpt
from restore.paths import PathMapper, project_name
from restore.ranking import CLASS_ORDER, RANKED_CLASSES, CoreClass, pick_five
from restore.workspace import FileEntry, WorkspaceIndex

MAX_LISTED = 10
_BACKTICK = re.compile(r"`([^`]+)`")  # architecture docs / test configs / open files listed at most


class CoreFile(BaseModel):
    path: str  # workspace-relative
    cls: CoreClass
    mtime: float
    reasons: list[str] = Field(default_factory=list)  # "edited in round 12", "git: modified", "watcher", "mtime"
    excerpt: Excerpt | None = None


class ProblemFile(BaseModel):
    path: str
    line: int | None = None
    source: str  # "error-memory" | "diagnostic"
    ids: list[str] = Field(default_factory=list)  # error ids or diagnostic codes
    message: str = ""


class RestoreStats(BaseModel):
    files_indexed: int
    core_candidates: int
    excerpt_tokens: int
    elapsed_ms: float
    cold: bool  # the workspace was scanned for this call


class RestoreState(BaseModel):
    workspace: str
    cwd: str  # the working directory, stated explicitly (absolute)
    recorded_cwd: str | None = None  # the cwd the transcript recorded (e.g. /testbed), when it differs
    lang: str = "en"
    open_files: list[str] = Field(default_factory=list)
    open_files_source: str = "none"  # "editor" | "transcript" | "none"
    core_files: list[CoreFile] = Field(default_factory=list)
    # Files the session edited (and did not delete) that this workspace does not hold, as the session
    # named them: a restore in another folder, or of a session run in a container, says so instead of
    # an empty list of core files.
    edited_elsewhere: list[str] = Field(default_factory=list)
    problem_files: list[ProblemFile] = Field(default_factory=list)
    architecture_docs: list[str] = Field(default_factory=list)
    test_config: list[str] = Field(default_factory=list)
    unfinished_tasks: list[Item] = Field(default_factory=list)
    problems: list[Item] = Field(default_factory=list)  # problems found and their solutions
    error_memory: list[ErrorRecordOut] = Field(default_factory=list)
    error_memory_markdown: str = ""
    transcript: str | None = None
    stats: RestoreStats

    def comparable(self) -> dict[str, Any]:
        """Everything but the timings (for warm == cold checks)."""
        return self.model_dump(exclude={"stats"})


_ARCH_PRIORITY = ("architecture.md", "design.md")


def _arch_key(rel: str) -> tuple:
    low = rel.lower()
    name = low.rsplit("/", 1)[-1]
    if name in _ARCH_PRIORITY:
        first = _ARCH_PRIORITY.index(name)
    elif "/adr/" in "/" + low or "/adrs/" in "/" + low or "/decisions/" in "/" + low:
        first = 2
    elif name.startswith("readme"):
        first = 4
    else:
        first = 3
    return (first, low.count("/"), low)


def _mapper(index: WorkspaceIndex, cwd: str | None) -> PathMapper:
    return PathMapper(index.root, index.entries.__contains__, cwd)


_UNANSWERED_CALL_RE = re.compile(r"`[^`\n]+` \(no result seen")  # a call shown by what it ran, with no result


def _unanswered_calls(text: str) -> bool:
    """The compaction's "Last calls" line when one of its calls shows what it ran (a command, an argument)
    and had no result: its effect is unknown to a successor. A bare action (`finish (no result seen)`) shows
    nothing to check, whatever the calls beside it show."""
    return text.startswith("Last calls: ") and _UNANSWERED_CALL_RE.search(text) is not None


_FILE_SPAN_RE = re.compile(r"`([^`\n]+)`")


def _ours_uncommitted(text: str) -> bool:
    """An "Uncommitted" line that names a file of the session's own: one that names only files no call of the
    session changed (someone else's work in progress) is no task of the successor's."""
    head, _, files = text.partition("): ")
    named = list(_FILE_SPAN_RE.finditer(files or head))
    return not named or any(not (files or head)[m.end():].startswith(NOT_OURS) for m in named)


_SCRATCH_ROOTS = ("/tmp/", "/dev/", "/proc/", "/var/tmp/")  # logs and scratch outside the project: not its files


def _on_disk(index: WorkspaceIndex, rel: str | None, raw: str, shown_root: str | None) -> bool:
    """Whether the workspace holds the file the session edited though its index does not list it (gitignored,
    under `dist/` or `vendor/`, binary, too large): looked up, never read, and only inside the workspace (no
    `..`, no absolute path, no link leading out of it)."""
    for cand in (rel, project_name(raw, shown_root)):
        if cand and not os.path.isabs(cand) and ".." not in cand.split("/") and index.inside(cand) \
                and os.path.lexists(index.root / cand):
            return True
    return False


def _edited_elsewhere(rounds: dict[str, int], root: str | None) -> list[str]:
    """The paths as the project names them (relative to its root: the recorded cwd, else the one the
    compaction inferred), latest edit first, each once (one file spelled absolutely and relatively is one),
    without the logs and scratch files outside the project; the document lists the first MAX_LISTED."""
    out: list[str] = []
    seen: set[str] = set()
    for raw in sorted(rounds, key=lambda r: -rounds[r]):
        if raw.startswith(_SCRATCH_ROOTS):
            continue
        shown = project_name(raw, root)
        if shown and shown not in seen:
            seen.add(shown)
            out.append(shown)
    return out


def _diag_items(diagnostics: Iterable[Any] | None) -> list[Mapping[str, Any]]:
    out: list[Mapping[str, Any]] = []
    for d in diagnostics or []:
        if isinstance(d, Mapping):
            out.append(d)
        elif hasattr(d, "model_dump"):
            out.append(d.model_dump())
        elif hasattr(d, "__dict__"):
            out.append(vars(d))
    return out


def _message(message: object, settings: Settings) -> str:
    """A diagnostic's message as shown (a linter may quote the hard-coded password it flags)."""
    text = str(message)
    return (redact_text(text) if settings.redact_secrets else text)[:300]


def _excerpt(index: WorkspaceIndex, entry: FileEntry, budget: int, *, redact: bool = True) -> Excerpt | None:
    """An excerpt of a workspace file. A workspace holds `.env` files and settings with keys in them: the
    text is redacted before it is cut (so a secret is never half-kept) and before anything renders it."""
    key = ("excerpt", entry.rel, entry.mtime, entry.size, budget, redact)
    cached = index.cache.get(key)
    if isinstance(cached, Excerpt):
        return cached
    text = index.read_text(entry.rel, READ_LIMIT + 1)
    if text is None:
        return None
    truncated = len(text.encode("utf-8", errors="replace")) > READ_LIMIT
    if redact:
        text = redact_text(text)
    ex = make_excerpt(entry.rel, text, budget, truncated_input=truncated)
    index.cache[key] = ex
    return ex


def build_restore_state(
    workspace: str | os.PathLike[str],
    *,
    open_files: Sequence[str] | None = None,
    compaction: CompactionResult | None = None,
    error_records: list[ErrorRecordOut] | None = None,
    error_memory_markdown: str = "",
    diagnostics: Iterable[Any] | None = None,
    settings: Settings | None = None,
    index: WorkspaceIndex | None = None,
    transcript_edits: Sequence[tuple[str, int]] | None = None,
    transcript_reads: Sequence[tuple[str, int]] | None = None,
    cwd: str | None = None,
    lang: str | None = None,
    excerpts: bool = True,
) -> RestoreState:
    """Compute the restore state. Pass the same `index` again (kept fresh with `invalidate`) for a
    warm call. `transcript_edits`/`transcript_reads` are (recorded path, round) pairs; recorded paths
    are mapped onto the workspace by the transcript's cwd (from `compaction.cwd` or `cwd`)."""
    started = time.perf_counter()
    settings = settings or Settings()
    rs = settings.restore
    if index is None:
        index = WorkspaceIndex(workspace, core_globs=rs.core_globs)
    cold = not index.scanned
    index.ensure_scanned()
    recorded_cwd = cwd or (compaction.cwd if compaction else None)
    mapper = _mapper(index, recorded_cwd)

    # --- recency signals from the transcript
    edit_round: dict[str, int] = {}
    elsewhere: dict[str, int] = {}  # as the session named them, by their latest round
    shown_root = (compaction.root if compaction else None) or recorded_cwd  # how the session's paths read
    for raw, rnd in transcript_edits or []:
        rel = mapper.map(raw)
        if rel and rel in index.entries:
            edit_round[rel] = max(edit_round.get(rel, 0), int(rnd or 0))
        elif not _on_disk(index, rel, raw, shown_root):  # (the index leaves out dist/, .env, binaries)
            elsewhere[raw] = max(elsewhere.get(raw, 0), int(rnd or 0))
    if compaction is not None and transcript_edits is None:  # no activity given: the summary's file list
        for item in compaction.summary.modified_files:
            m = _BACKTICK.search(item.text)
            raw = m.group(1) if m else item.text.split(" ", 1)[0]
            rel = mapper.map(raw)
            if rel and rel in index.entries:
                edit_round[rel] = max(edit_round.get(rel, 0), max(item.rounds or [0]))
    shown_elsewhere = _edited_elsewhere(elsewhere, shown_root)

    def key(e: FileEntry) -> tuple:
        boosted = bool(e.dirty or e.touched or e.rel in edit_round)
        return (boosted, e.recency, edit_round.get(e.rel, 0))

    # Files with a signal beyond their mtime (git-dirty, touched, edited in the transcript) outrank the
    # rest, so only those few plus the n newest by mtime can be among the five: no key for every file.
    n = rs.core_files
    with index._lock:  # the watcher and didChange update the index from other threads: read a snapshot
        entries = dict(index.entries)
        active = set(index.active)
        by_class = {cls: list(rels) for cls, rels in index.class_index().items()}
    boosted = {r for r in (*active, *edit_round) if (e := entries.get(r)) is not None and e.cls in RANKED_CLASSES}
    ranked = [e for cls in RANKED_CLASSES for r in by_class.get(cls, ())
              if (e := entries.get(r)) is not None and e.cls is cls]
    newest = heapq.nlargest(n + len(boosted), ranked, key=attrgetter("mtime", "rel"))
    pool = {e.rel: e for e in newest if e.rel not in boosted}
    pool.update((r, entries[r]) for r in boosted)
    candidates = [(e.rel, e.cls, key(e)) for e in pool.values()]
    five = pick_five(candidates, n)

    # --- excerpts within the budget (cached per file version)
    core_files: list[CoreFile] = []
    left = rs.total_tokens
    excerpt_tokens = 0
    for rel, cls, _k in five:
        e = entries[rel]
        reasons = []
        if rel in edit_round:
            reasons.append(f"edited in round {edit_round[rel]}")
        if e.dirty:
            reasons.append("git: modified")
        if e.touched:
            reasons.append("changed (watcher)")
        if not reasons:
            reasons.append("recent file time")
        ex = None
        budget = min(rs.tokens_per_file, left)
        if excerpts and budget > 0:
            ex = _excerpt(index, e, budget, redact=settings.redact_secrets)
            if ex is not None:
                left -= ex.tokens
                excerpt_tokens += ex.tokens
        core_files.append(CoreFile(path=rel, cls=cls, mtime=e.mtime, reasons=reasons, excerpt=ex))

    # --- error memory and problems
    records = list(error_records if error_records is not None else (compaction.error_memory if compaction else []))
    em_md = error_memory_markdown or (compaction.error_memory_markdown if compaction else "")
    problem_files: list[ProblemFile] = []
    seen_pf: dict[tuple[str, int | None, str], ProblemFile] = {}
    for rec in records:
        if rec.solution or rec.target_bug:
            continue  # solved, or provoked on purpose: not an open problem
        for loc in rec.locations:
            rel = mapper.map(loc.get("path")) if isinstance(loc, Mapping) else None
            if not rel or rel not in index.entries:
                continue
            line = loc.get("line")
            k = (rel, line if isinstance(line, int) else None, "error-memory")
            pf = seen_pf.get(k)
            if pf is None:
                pf = ProblemFile(path=rel, line=k[1], source="error-memory")
                seen_pf[k] = pf
                problem_files.append(pf)
            if rec.id not in pf.ids:
                pf.ids.append(rec.id)
    for d in _diag_items(diagnostics):
        raw = d.get("path") or d.get("uri") or d.get("file")
        rel = mapper.map(str(raw)) if raw else None
        if not rel or rel not in index.entries:
            continue
        line = d.get("line")
        code = d.get("code") or d.get("id")
        pf = ProblemFile(path=rel, line=line if isinstance(line, int) else None, source="diagnostic",
                         ids=[str(code)] if code else [], message=_message(d.get("message", ""), settings))
        problem_files.append(pf)

    # the compaction's own "problems and solutions" when there is one; else one line per solved record
    problems: list[Item] = list(compaction.summary.errors) if compaction is not None else []
    if not problems:
        problems = [Item(text=f"{rec.id}: {rec.solution}", rounds=list(rec.rounds)) for rec in records
                    if rec.solution]

    unfinished: list[Item] = []
    if compaction is not None:
        unfinished.extend(compaction.summary.next_steps)
        # what the session left undone where it ended (the current request unanswered, checks not run,
        # work changed after its last commit and never committed, commands it ended on before any result)
        unfinished.extend(i for i in compaction.summary.current_work
                          if i.text.startswith(("Pending", "No test run")) or _unanswered_calls(i.text)
                          or i.text.startswith("Uncommitted") and _ours_uncommitted(i.text))
        for item in compaction.summary.marked:
            if "@todo" in item.text.lower() and item.text not in {u.text for u in unfinished}:
                unfinished.append(item)

    # --- open files: the caller's list, else the files last read in the transcript
    source = "none"
    opened: list[str] = []
    if open_files:
        source = "editor"
        for raw in open_files:
            rel = index.rel(raw) if os.path.isabs(raw) else None
            rel = rel if rel is not None and rel in index.entries else mapper.map(raw)
            if rel and rel not in opened and index.inside(rel):
                opened.append(rel)
    elif transcript_reads:
        source = "transcript"
        for raw, _rnd in sorted(transcript_reads, key=lambda x: -int(x[1] or 0)):
            rel = mapper.map(raw)
            if rel and rel in index.entries and rel not in opened:
                opened.append(rel)
            if len(opened) >= MAX_LISTED:
                break

    arch = sorted((e.rel for e in index.of_class(CoreClass.ARCHITECTURE)), key=_arch_key)[:MAX_LISTED]
    tests = sorted((e.rel for e in index.of_class(CoreClass.TEST_CONFIG)),
                   key=lambda r: (r.count("/"), r))[:MAX_LISTED]

    if recorded_cwd:
        mapped = mapper.cwd_rel
        shown_cwd = str(index.root.joinpath(*mapped)) if mapped or mapper.cwd_parts else str(index.root)
    else:
        shown_cwd = str(index.root)

    return RestoreState(
        workspace=str(index.root),
        cwd=shown_cwd,
        recorded_cwd=recorded_cwd if recorded_cwd and recorded_cwd != shown_cwd else None,
        lang=lang or settings.lang,
        open_files=opened,
        open_files_source=source,
        core_files=core_files,
        edited_elsewhere=shown_elsewhere,
        problem_files=problem_files,
        architecture_docs=arch,
        test_config=tests,
        unfinished_tasks=unfinished,
        problems=problems,
        error_memory=records,
        error_memory_markdown=em_md,
        transcript=compaction.transcript if compaction else None,
        stats=RestoreStats(
            files_indexed=len(index.entries),
            core_candidates=len(ranked),
            excerpt_tokens=excerpt_tokens,
            elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
            cold=cold,
        ),
    )


def class_order(cls: CoreClass) -> int:
    return CLASS_ORDER[cls]


def workspace_path(state: RestoreState, rel: str) -> Path:
    return Path(state.workspace) / rel
