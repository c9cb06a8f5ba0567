"""Claude Code's `PreCompact` and `SessionStart` hooks: our compaction before theirs, our restore
block injected after it.

Flow: `PreCompact` (stdin: session_id, transcript_path, cwd, hook_event_name, trigger manual|auto,
custom_instructions) compacts the transcript with our rules (honouring the instructions), ingests its
errors into the workspace error memory and writes `.compaction/latest.md`, `.compaction/restore.md`,
`.compaction/error-memory.md` and `.compaction/hook-state.json`. `SessionStart` with source `compact`
(stdin: session_id, transcript_path, cwd, hook_event_name, source) then prints a restore block sized
to the hook's output limit (10,000 characters by default): the current request, the task, where the
session ended and the marked items first (each held to a share of the limit), then the complete
error-memory block, decisions, modified files, what changed in them, unfinished tasks and the restore
state's file list, every cut announced.

Why JSON output (`hookSpecificOutput.additionalContext`) rather than plain stdout: it is the
structured form Claude Code documents for SessionStart context, it is not echoed as a hook message,
and it cannot be confused with an error text. `plain=True` gives the same block as text.

Heavy modules (the compaction engine, restore) are imported inside the functions that need them;
pygls, openai and mcp are never imported on this path.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from compaction import statedir

# The log lives in hook_log so that the session-start fast path can write it without this module's imports.
from compaction.cli.integrations.hook_log import LOG_FILE, log, log_exception  # noqa: F401

DEFAULT_LIMIT = 10_000
STATE_FILE = "hook-state.json"
ERRORS_FILE = "error-memory.md"


class HookInputError(ValueError):
    """The hook's stdin is not the JSON object Claude Code sends."""


class HookPayload(BaseModel):
    """What Claude Code writes on a hook's stdin (unknown fields such as permission_mode are kept)."""

    model_config = ConfigDict(extra="allow")

    session_id: str = ""
    transcript_path: str | None = None
    cwd: str | None = None
    hook_event_name: str = ""
    trigger: str | None = None  # PreCompact: manual | auto
    custom_instructions: str | None = None  # PreCompact (`/compact keep X`)
    source: str | None = None  # SessionStart: startup | resume | clear | compact


class HookState(BaseModel):
    """What the last pre-compact run left for the session-start hook (`.compaction/hook-state.json`)."""

    session_id: str = ""
    transcript: str
    format: str = ""
    trigger: str | None = None
    written_at: float
    lang: str = "en"
    rounds: int = 0
    compacted: bool = True
    tokens_before: int = 0
    tokens_after: int = 0
    goal: list[str] = Field(default_factory=list)
    modified_files: list[str] = Field(default_factory=list)
    unfinished: list[str] = Field(default_factory=list)
    decisions: list[str] = Field(default_factory=list)  # the agent's choices and the user's constraints
    marked: list[str] = Field(default_factory=list)  # @important/@decision/@warning/@todo lines, verbatim
    current_work: list[str] = Field(default_factory=list)  # where the session ended: last calls, checks, pending
    changes: list[str] = Field(default_factory=list)  # per file: what changed, not only which file
    findings: list[str] = Field(default_factory=list)  # the agent's diagnoses and commands' outcomes, dated


class PreCompactReport(BaseModel):
    workspace: str
    written: list[str]
    rounds: int
    tokens_before: int
    tokens_after: int
    errors_ingested: int
    elapsed_ms: float


# --- input ------------------------------------------------------------------------------------------
def parse_payload(raw: bytes | str) -> HookPayload:
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    if not raw.strip():
        raise HookInputError("empty stdin (expected the hook's JSON object)")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise HookInputError(f"stdin:{exc.lineno}: invalid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise HookInputError("stdin:1: expected a JSON object")
    if isinstance(data.get("transcript_path"), str) and data["transcript_path"].startswith("~"):
        data["transcript_path"] = str(Path(data["transcript_path"]).expanduser())
    try:
        return HookPayload.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise HookInputError(f"stdin: unexpected hook payload: {err['loc']}: {err['msg']}") from None


def workspace_for(payload: HookPayload | None, env: Mapping[str, str] | None = None, cwd: str | None = None) -> Path:
    """`$CLAUDE_PROJECT_DIR`, else the `.git` root at or above the payload's cwd, else that cwd
    (see `workspace.resolve_workspace`: the payload's cwd follows the agent's `cd`)."""
    from compaction.cli.integrations.workspace import resolve_workspace

    return resolve_workspace(payload.cwd if payload else None, env, fallback=cwd)




# --- pre-compact ------------------------------------------------------------------------------------------
def pre_compact(payload: HookPayload, workspace: Path, settings: Any = None) -> PreCompactReport:
    """Compact `payload.transcript_path` with our rules and write the restore files into `workspace`."""
    started = time.perf_counter()
    from compaction.config import ConfigError, Settings, load_settings
    from compaction.transcripts import load_transcript

    if not payload.transcript_path:
        raise HookInputError("the payload has no transcript_path")
    if settings is None:
        try:
            settings = load_settings(workspace, report=lambda m: log(workspace, "pre-compact", f"warning: {m}"))
        except ConfigError as exc:  # a broken config.json must not cost the user the restore: defaults
            log(workspace, "pre-compact", f"warning: {exc}; using the default settings")
            settings = Settings()
    transcript = load_transcript(payload.transcript_path, redact=settings.redact_secrets)
    return compact_to_workspace(transcript, workspace, settings, session_id=payload.session_id,
                                trigger=payload.trigger, instructions=payload.custom_instructions or None,
                                started=started)


def compact_to_workspace(transcript: Any, workspace: Path, settings: Any, *, session_id: str = "",
                         trigger: str | None = None, instructions: str | None = None,
                         started: float | None = None) -> PreCompactReport:
    """Compact a loaded transcript; write latest.md, restore.md, error-memory.md and hook-state.json;
    ingest its errors into the workspace error memory. Shared by the hook and `compaction watch`."""
    started = time.perf_counter() if started is None else started
    from compaction.errors import ErrorMemory
    from compaction.history import compact
    from restore.pipeline import write_after_compaction

    if not transcript.cwd:
        # The agent ran in the project the hook serves (Gemini CLI sessions record no cwd): its
        # absolute paths are that project's files, not scratch files elsewhere. Assumed, not
        # recorded: the document does not print it (it would claim a record, and its tokens would
        # make the budget's choices depend on where the workspace happens to live).
        transcript.cwd = str(workspace)
        transcript.meta["cwd_assumed"] = True
    result = compact(transcript, settings, instructions=instructions)
    with ErrorMemory(workspace) as memory:
        report = memory.ingest(transcript, result.error_records)
        errors_path = statedir.write_text(workspace, ERRORS_FILE, memory.export(settings.lang))
    # Already ingested above: the restore document reads the whole stored memory.
    written = write_after_compaction(workspace, transcript, result, settings, ingest=False)
    state = HookState(
        session_id=session_id, transcript=str(transcript.path), format=transcript.format,
        trigger=trigger, written_at=time.time(), lang=settings.lang, rounds=result.rounds,
        compacted=result.compacted, tokens_before=result.stats.tokens_before, tokens_after=result.stats.tokens_after,
        goal=[i.text for i in result.summary.goal], modified_files=[i.text for i in result.summary.modified_files],
        unfinished=[i.text for i in result.summary.next_steps],
        decisions=[i.text for i in result.summary.decisions], marked=[i.text for i in result.summary.marked],
        current_work=[i.text for i in result.summary.current_work], changes=[i.text for i in result.summary.changes],
        findings=[i.text for i in result.summary.findings])
    state_path = statedir.write_text(workspace, STATE_FILE, state.model_dump_json(indent=2) + "\n")
    # The block session-start will print, built now while the engine is loaded (see hook_fastpath) —
    # unless the store is shipped with the repository and not trusted: then session-start takes the
    # full path, which refuses to inject it (compaction.shipped).
    if not shipped_refused(workspace):
        from compaction.cli.integrations.hook_fastpath import write_cached_block

        limit = hook_limit()
        write_cached_block(workspace, session_id, state.written_at, limit,
                           build_restore_block(workspace, state, limit=limit))
    return PreCompactReport(workspace=str(workspace), written=[str(p) for p in [*written, errors_path, state_path]],
                            rounds=result.rounds, tokens_before=result.stats.tokens_before,
                            tokens_after=result.stats.tokens_after, errors_ingested=report.records,
                            elapsed_ms=round((time.perf_counter() - started) * 1000, 1))


def hook_limit() -> int:
    """The injected block's size limit: `$COMPACTION_HOOK_LIMIT`, else 10,000 characters."""
    try:
        return int(os.environ.get("COMPACTION_HOOK_LIMIT") or DEFAULT_LIMIT)
    except ValueError:
        return DEFAULT_LIMIT


def read_state(workspace: Path) -> HookState | None:
    try:
        text = statedir.read_text(workspace, STATE_FILE)
        return HookState.model_validate_json(text) if text is not None else None
    except (OSError, ValueError):
        return None


# --- session-start ----------------------------------------------------------------------------------------
def should_inject(payload: HookPayload, state: HookState | None, *, any_source: bool = False) -> bool:
    """`compact`: always (it is the moment the restore exists for). `resume`: when our state belongs to
    this session. `startup` / `clear`: only when asked (`any_source`), since the user chose a fresh
    context there."""
    if payload.source in (None, "compact"):
        return True
    if payload.source == "resume":
        return any_source or bool(state and payload.session_id and state.session_id == payload.session_id)
    return any_source


def _compact_inline(payload: HookPayload, workspace: Path) -> bool:
    pre_compact(payload, workspace)
    return True


def session_start(payload: HookPayload, workspace: Path, *, limit: int = DEFAULT_LIMIT,
                  any_source: bool = False, trust_shipped: bool = False,
                  compact_now: Callable[[HookPayload, Path], bool] = _compact_inline) -> str | None:
    """The restore block to inject, or None when there is nothing to say for this source — or when
    the store or restore files are shipped with the repository and the user did not trust them.
    `compact_now` compacts a session our pre-compact missed; False means it could not finish in
    time (the hook's deadline), and the block is the last good state with a note saying so."""
    state = read_state(workspace)
    if not should_inject(payload, state, any_source=any_source):
        return None
    if shipped_refused(workspace, trust_shipped):
        return None
    stale = state is None or (payload.session_id and state.session_id != payload.session_id)
    note = None
    if stale and payload.source == "compact" and payload.transcript_path and Path(payload.transcript_path).is_file():
        # Our pre-compact did not run for this session (not installed, or failed): compact now.
        if compact_now(payload, workspace):
            state = read_state(workspace)
        else:
            note = T["zh" if state and state.lang == "zh" else "en"]["late"]
            if state is not None:
                note += " " + T["zh" if state.lang == "zh" else "en"]["late_state"].format(
                    when=_dt.datetime.fromtimestamp(state.written_at, _dt.UTC).strftime("%Y-%m-%d %H:%M UTC"))
            return build_restore_block(workspace, state, limit=limit, note=note)
    if state is None and not _restore_text(workspace):
        return None
    return build_restore_block(workspace, state, limit=limit)


def shipped_refused(workspace: Path, trust_shipped: bool = False) -> bool:
    """True (and a hooks.log line) when files the block is built from are tracked by git and neither
    the flag nor the user config (`trustShippedMemory`) trusts them."""
    from compaction.config import ConfigError, load_settings
    from compaction.shipped import HOOK_FILES, memory_withheld

    if not trust_shipped:
        try:
            trust_shipped = load_settings(workspace, report=lambda m: log(workspace, "session-start",
                                                                          f"warning: {m}")).trust_shipped_memory
        except ConfigError:
            trust_shipped = False
    return memory_withheld(workspace, trust_shipped, HOOK_FILES,
                           report=lambda m: log(workspace, "session-start", f"not injected: {m}"))


def _restore_text(workspace: Path) -> str:
    """`.compaction/restore.md`, or "" when absent or unsafe: a link shipped as restore.md (or as the
    folder) is neither read nor injected (compaction.statedir)."""
    try:
        return statedir.read_text(workspace, "restore.md") or ""
    except OSError:
        return ""


# --- the restore block ------------------------------------------------------------------------------------
T = {
    "en": {
        "title": "# Restored after compaction",
        "intro": "Context restored by the `compaction` tool{how}. Full restore state: `.compaction/restore.md`; "
                 "compaction summary: `.compaction/latest.md`.",
        "how": " from the {rounds}-round conversation ({before:,} → {after:,} tokens)",
        "task": "## Current task", "modified": "## Modified files", "unfinished": "## Unfinished tasks",
        "request": "## Current request (the user's last)",
        "marked": "## Marked items", "decisions": "## Key decisions and constraints",
        "current": "## Where the session ended", "changes": "## What changed",
        "files": "## Files to restore (from `.compaction/restore.md`)",
        "findings": "## Findings (what the agent found, round by round)",
        "em_cut": "_Error memory cut to fit the {limit:,}-character limit: {k} of {n} records shown (recurring first, "
                  "then the most recent); the complete block is in `.compaction/error-memory.md`, the restore state "
                  "in `.compaction/restore.md`._",
        "cut": "_… {n} more cut to fit the {limit:,}-character limit; see `{where}`._",
        "omitted": "_Cut to fit the {limit:,}-character limit: {names}; see `.compaction/restore.md`._",
        "late": "_The compaction of this session did not finish within the hook's time limit; it goes on in "
                "the background and will write `.compaction/restore.md`._",
        "late_state": "_Below: the last good state, from {when}._",
    },
    "zh": {
        "title": "# 压缩后恢复",
        "intro": "由 `compaction` 工具恢复的上下文{how}。完整恢复状态：`.compaction/restore.md`；压缩摘要：`.compaction/latest.md`。",
        "how": "（{rounds} 轮对话，{before:,} → {after:,} tokens）",
        "task": "## 当前任务", "modified": "## 修改的文件", "unfinished": "## 未完成的任务",
        "request": "## 当前请求（用户最后的请求）",
        "marked": "## 标记内容", "decisions": "## 关键决策与约束",
        "current": "## 会话结束时的状态", "changes": "## 具体改动",
        "files": "## 需恢复的文件（来自 `.compaction/restore.md`）",
        "findings": "## 发现（代理逐轮得出的结论）",
        "em_cut": "_错误记忆已按 {limit:,} 字符上限截断：显示 {n} 条中的 {k} 条（优先重复出现的与最近的）；完整内容见 "
                  "`.compaction/error-memory.md`，恢复状态见 `.compaction/restore.md`。_",
        "cut": "_… 另有 {n} 项因 {limit:,} 字符上限被截去；见 `{where}`。_",
        "omitted": "_因 {limit:,} 字符上限省略：{names}；见 `.compaction/restore.md`。_",
        "late": "_本会话的压缩未能在钩子时限内完成；它在后台继续，完成后写入 `.compaction/restore.md`。_",
        "late_state": "_以下为上一次的有效状态（{when}）。_",
    },
}
_CUT_RESERVE = 140  # room kept for one cut announcement
_REQUEST_SHARE = 0.25  # the current request's most of the limit (the rest of it: `.compaction/latest.md`)
FIRST_SHARE = {"task": 0.2, "current": 0.1, "marked": 0.12}  # of the limit, at most, for the sections before the error memory
_CURRENT = "Current request: "


def current_request(goal: list[str]) -> tuple[str | None, list[str]]:
    """(the user's last request, the other task lines): the latest `Current request`, else the task
    itself when it was the only request."""
    for i in range(len(goal) - 1, -1, -1):
        if goal[i].startswith(_CURRENT):
            return goal[i][len(_CURRENT):], goal[:i] + goal[i + 1:]
    return (goal[0], goal[1:]) if len(goal) == 1 else (None, goal)


def _request_section(request: str, limit: int, lang: str) -> str:
    """The current request under its heading, its head kept when it alone is longer than its share."""
    heading = T[lang]["request"]
    room = max(200, int(limit * _REQUEST_SHARE)) - len(heading) - 2
    text = " ".join(request.split())
    if len(text) > room:
        note = " " + T[lang]["cut"].format(n=1, limit=limit, where=".compaction/latest.md")
        text = text[: max(0, room - len(note) - 1)].rstrip() + "…" + note
    return f"{heading}\n{text}"


def restore_file_sections(markdown: str, lang: str = "en") -> list[tuple[str, list[str]]]:
    """The file-list sections of a rendered restore state: (heading, list lines)."""
    from restore.render import H

    t = H["zh" if lang == "zh" else "en"]
    wanted = [t["open"], t["core"], t["problem_files"], t["arch"], t["tests"]]
    out = []
    for chunk in ("\n" + markdown).split("\n## ")[1:]:
        heading, _, body = chunk.partition("\n")
        if not any(heading.startswith(w) for w in wanted):
            continue
        lines = [ln for ln in body.splitlines() if ln.startswith(("- ", "* ")) or ln[:1].isdigit()]
        if lines:
            out.append((heading.strip(), lines))
    return out


def _error_memory(workspace: Path, lang: str) -> tuple[list[Any], str]:
    from compaction.errors import ErrorMemory

    with ErrorMemory(workspace) as memory:
        records = memory.list()
        return records, memory.export(lang)


def _fit_error_memory(records: list[Any], full: str, cap: int, lang: str, limit: int) -> str:
    """The complete block when it fits in `cap`; else its recurring and most recent records, announced."""
    if len(full) <= cap:
        return full.rstrip("\n")
    from compaction.errors.render import render_block, render_record

    t = T[lang]
    note = t["em_cut"].format(limit=limit, k=0, n=len(records))
    empty = render_block([], lang).rstrip("\n")
    head = empty.rsplit("\n\n", 1)[0]  # heading + protocol, without the "(no errors recorded)" line
    room = cap - len(head) - len(note) - 8
    order = sorted(range(len(records)),
                   key=lambda i: (not records[i].recurring, -records[i].last_round, -i))
    chosen: set[int] = set()
    for i in order:
        size = len(render_record(records[i], lang)) + 1
        if size <= room:
            chosen.add(i)
            room -= size
    shown = [records[i] for i in sorted(chosen)]
    body = "\n".join(render_record(r, lang) for r in shown)
    note = t["em_cut"].format(limit=limit, k=len(shown), n=len(records))
    return "\n\n".join(x for x in (head, body, note) if x)


def _section(heading: str, lines: list[str], room: int, limit: int, where: str, lang: str) -> tuple[str, bool]:
    """The section with as many lines as fit in `room` (a cut announced); ("", False) if not even one."""
    if not lines:
        return "", True
    out = [heading]
    size = len(heading)
    for k, line in enumerate(lines):
        rest = len(lines) - k
        need = size + 1 + len(line) + (0 if rest == 1 else _CUT_RESERVE)
        if need > room:
            if k == 0:
                return "", False
            out.append(T[lang]["cut"].format(n=rest, limit=limit, where=where))
            return "\n".join(out), True
        out.append(line)
        size += 1 + len(line)
    return "\n".join(out), True


_LEAST_LINE = 160  # a line's least characters when lines share a section's room (its head says what it is)


def _fair_cap(lengths: list[int], room: int) -> int:
    """The largest length every line may keep so that all of them fit `room` (each line and its newline),
    never below _LEAST_LINE: a long request gives way before a short one vanishes (a long one keeps its
    head, never vanishes either)."""
    if sum(n + 1 for n in lengths) <= room:
        return max(lengths, default=_LEAST_LINE)
    lo, hi = _LEAST_LINE, max(lengths, default=_LEAST_LINE)
    while lo < hi:  # the sum grows with the cap: the largest that fits
        mid = (lo + hi + 1) // 2
        if sum(min(n, mid) + 1 for n in lengths) <= room:
            lo = mid
        else:
            hi = mid - 1
    return lo


def build_restore_block(workspace: Path, state: HookState | None, *, limit: int = DEFAULT_LIMIT,
                        lang: str | None = None, note: str | None = None) -> str:
    """The text injected after compaction, never longer than `limit` characters."""
    lang = "zh" if (lang or (state.lang if state else "en")) == "zh" else "en"
    t = T[lang]
    how = t["how"].format(rounds=state.rounds, before=state.tokens_before, after=state.tokens_after) \
        if state and state.compacted else ""
    header = f"{t['title']}\n\n> {t['intro'].format(how=how)}" + (f"\n\n{note}" if note else "")
    restore_text = _restore_text(workspace)

    def bullets(items: list[str], code: bool = False) -> list[str]:
        return [f"- `{x}`" if code and "`" not in x else f"- {' '.join(x.split())}" for x in items]

    # The current request and the marked items come first (each held to a share of the limit), then the
    # error memory, then decisions, files, unfinished tasks and, in the room left, the findings.
    first: list[tuple[str, list[str], str, float]] = []
    later: list[tuple[str, list[str], str]] = []
    request, others = current_request(state.goal) if state else (None, [])
    if request:  # the current request comes first: when the limit bites, it is never what goes
        header += "\n\n" + _request_section(request, limit, lang)
    if state:
        # Where the session ended tells the successor what it was doing, so it comes with the task.
        first += [(t["task"], bullets(others), ".compaction/latest.md", FIRST_SHARE["task"]),
                  (t["current"], bullets(state.current_work), ".compaction/latest.md", FIRST_SHARE["current"]),
                  (t["marked"], bullets(state.marked), ".compaction/latest.md", FIRST_SHARE["marked"])]
        later += [(t["decisions"], bullets(state.decisions), ".compaction/latest.md"),
                  (t["modified"], bullets(state.modified_files, code=True), ".compaction/latest.md"),
                  (t["changes"], bullets(state.changes), ".compaction/latest.md"),
                  (t["unfinished"], bullets(state.unfinished), ".compaction/latest.md")]
    files = restore_file_sections(restore_text, lang) if restore_text else []
    if files:
        lines = []
        for heading, items in files:
            lines.append(f"**{heading}**")
            lines += items
        later.append((t["files"], lines, ".compaction/restore.md"))
    if state and state.findings:  # what the agent learned, in the room the rest leaves (the block used half its
        # limit before); no section, no room held for one: the error memory keeps what it had
        later.append((t["findings"], bullets(state.findings), ".compaction/latest.md"))

    parts = [header]
    omitted: list[str] = []
    for heading, lines, where, share in first:
        room = int(limit * share)
        cap = _fair_cap([len(ln) for ln in lines], room - len(heading) - _CUT_RESERVE - 2)
        lines = [ln if len(ln) <= cap else ln[: cap - 45].rstrip() + f" … (whole: `{where}`)" for ln in lines]
        text, ok = _section(heading, lines, room, limit, where, lang)
        if text:
            parts.append(text)
        elif not ok:
            omitted.append(heading.lstrip("# "))
    records, full = _error_memory(workspace, lang)
    reserve = _CUT_RESERVE * (len(later) + 1)
    em = _fit_error_memory(records, full, limit - len("\n\n".join(parts)) - 2 - reserve, lang, limit)
    parts.append(em)
    for i, (heading, lines, where) in enumerate(later):
        used = len("\n\n".join(parts))
        room = limit - used - 2 - _CUT_RESERVE * (len(later) - i)
        text, ok = _section(heading, lines, room, limit, where, lang)
        if text:
            parts.append(text)
        elif not ok:
            omitted.append(heading.lstrip("# "))
    if omitted:
        parts.append(t["omitted"].format(limit=limit, names=", ".join(omitted)))
    block = "\n\n".join(parts) + "\n"
    if len(block) > limit:  # cannot happen with the reserves above; a hard guarantee all the same
        tail = "\n" + t["omitted"].format(limit=limit, names="…") + "\n"
        block = block[: max(0, limit - len(tail))] + tail
    return block


def hook_output(block: str, *, plain: bool = False) -> str:
    """What the SessionStart hook prints: the JSON Claude Code reads, or the bare text."""
    if plain:
        return block
    return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": block}})
