"""One call for "compacted, now write both documents": used by `compaction compact --restore`, the
CLI's `restore --transcript`, the language server and agent hooks."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from compaction import statedir
from compaction.config import Settings
from compaction.events import EventKind, extract_events
from compaction.model import Transcript
from compaction.shipped import memory_withheld
from compaction.summary import CompactionResult
from restore.paths import project_name
from restore.render import write_restore
from restore.state import RestoreState, build_restore_state
from restore.workspace import WorkspaceIndex


def transcript_activity(transcript: Transcript, events: list[Any] | None = None, root: str | None = None
                        ) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(edits, reads) as (recorded path, round), from the transcript's events (which also see shell
    writes such as `sed -i`), without the edits of files the session deleted last (by name, by the folder
    removed around them, `rm -rf tmp_check`, or by a glob, `rm -f reproduce*.py`); pass the compaction's
    events to avoid extracting them again, and its `root` (the cwd, else the one it inferred) by which
    paths spelled relatively and absolutely are one."""
    cwd = root or (transcript.cwd if transcript is not None else None)
    last: dict[str, tuple[int, int]] = {}  # each file's last edit: (its place among the events, round)
    spelled: dict[str, str] = {}  # each file as the session first named it
    reads: list[tuple[str, int]] = []
    removed: dict[str, int] = {}  # a file or folder deleted → the place of its last deletion
    globs: list[tuple[int, str]] = []  # `rm -f reproduce*.py`: (place, pattern)
    for i, e in enumerate(extract_events(transcript) if events is None else events):
        if not e.path:
            continue
        if e.kind in (EventKind.EDIT, EventKind.WRITE):
            name = project_name(e.path, cwd)
            spelled.setdefault(name, e.path)
            last[name] = (i, e.round)
        elif e.kind is EventKind.DELETE:
            name = project_name(e.path, cwd).rstrip("/")
            if any(c in name for c in "*?["):
                globs.append((i, name))
            else:
                removed[name] = i
        elif e.kind is EventKind.READ:
            reads.append((e.path, e.round))
    kept = [(name, at, rnd) for name, (at, rnd) in last.items() if not _removed_after(name, at, removed, globs)]
    kept.sort(key=lambda x: x[1])
    return [(spelled[name], rnd) for name, _, rnd in kept], reads


def _removed_after(name: str, at: int, removed: dict[str, int], globs: list[tuple[int, str]]) -> bool:
    """Whether a deletion after place `at` removed the file `name`: itself, a folder around it, a glob."""
    parts = name.split("/")
    if any(removed.get("/".join(parts[:k]), -1) > at for k in range(1, len(parts) + 1)):
        return True
    return any(i > at and fnmatch.fnmatchcase(name, pattern) for i, pattern in globs)



def restore_from_transcript(
    workspace: str | os.PathLike[str],
    transcript: Transcript,
    result: CompactionResult,
    settings: Settings | None = None,
    *,
    open_files: Sequence[str] | None = None,
    index: WorkspaceIndex | None = None,
    diagnostics: Any = None,
    stored_errors: tuple[list[Any] | None, str] | None = None,
    excerpts: bool = True,
) -> RestoreState:
    """`stored_errors` = (records, block) of the workspace's whole error memory, when the caller has
    it; the restore state then carries that complete block rather than this transcript's alone."""
    edits, reads = transcript_activity(transcript, result.events, result.root)
    records, block = stored_errors if stored_errors else (None, "")
    return build_restore_state(
        workspace,
        open_files=open_files,
        compaction=result,
        error_records=records,
        error_memory_markdown=block,
        settings=settings,
        index=index,
        transcript_edits=edits,
        transcript_reads=reads,
        cwd=transcript.cwd or result.cwd,
        diagnostics=diagnostics,
        excerpts=excerpts,
    )


def stored_error_memory(workspace: str | os.PathLike[str], lang: str = "en", settings: Settings | None = None
                        ) -> tuple[list[Any] | None, str]:
    """The workspace's persisted error memory (records in the boundary shape and its complete
    Markdown block); (None, "") when there is no store yet — reading never creates one — or when
    the store is shipped with the repository and the user did not trust it (compaction.shipped)."""
    if not statedir.exists(workspace, "state.db"):
        return None, ""
    if memory_withheld(workspace, bool(settings and settings.trust_shipped_memory)):
        return None, ""
    return ingest_and_read_errors(workspace, None, lang)


def ingest_and_read_errors(workspace: str | os.PathLike[str], transcript: Transcript | None,
                           lang: str = "en", records: list[Any] | None = None) -> tuple[list[Any], str]:
    """Record the transcript's errors in the workspace store (idempotent) and return the complete
    memory as (ErrorRecordOut list, Markdown block). `records`: the compaction's scan, if at hand."""
    from compaction.errors import ErrorMemory, records_to_out

    with ErrorMemory(workspace) as memory:
        if transcript is not None:
            memory.ingest(transcript, records)
        return records_to_out(memory.list()), memory.export(lang)


def write_after_compaction(
    workspace: str | os.PathLike[str],
    transcript: Transcript,
    result: CompactionResult,
    settings: Settings | None = None,
    *,
    open_files: Sequence[str] | None = None,
    index: WorkspaceIndex | None = None,
    ingest: bool = True,
) -> list[Path]:
    """Write `.compaction/latest.md` (the compaction) and `.compaction/restore.md`; return both paths.
    With `ingest`, the transcript's errors enter the workspace error memory first, and the restore
    document carries the whole memory (every session's records), as the seed asks."""
    ws = Path(workspace)
    latest = statedir.write_text(ws, "latest.md",
                                 result.markdown if result.markdown.endswith("\n") else result.markdown + "\n")
    lang = settings.lang if settings else "en"
    if ingest:
        stored = ingest_and_read_errors(ws, transcript, lang, result.error_records)
        if memory_withheld(ws, bool(settings and settings.trust_shipped_memory)):
            stored = (None, "")  # this transcript's own error memory only, not the shipped store's
    else:
        stored = stored_error_memory(ws, lang, settings)
    state = restore_from_transcript(ws, transcript, result, settings, open_files=open_files, index=index,
                                    stored_errors=stored)
    restored = write_restore(state)
    return [latest, restored]
