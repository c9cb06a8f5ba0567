"""One call for "compacted, now write both documents": used by `compaction compact --restore`, the
CLI's `restore --transcript`, the language server and agent hooks."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from compaction.atomic import write_text_atomic
from compaction.config import Settings
from compaction.model import ToolKind, Transcript
from compaction.summary import CompactionResult
from restore.render import restore_path, write_restore
from restore.state import RestoreState, build_restore_state
from restore.workspace import WorkspaceIndex


def transcript_activity(transcript: Transcript) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(edits, reads) as (recorded path, round): from compaction.events when available (it also sees
    shell writes such as `sed -i`), else from the normalised tool calls."""
    try:
        from compaction.events import EventKind, extract_events
    except ImportError:  # pragma: no cover - the events module ships with compaction
        extract_events = None
    if extract_events is not None:
        edits, reads = [], []
        for e in extract_events(transcript):
            if not e.path:
                continue
            if e.kind in (EventKind.EDIT, EventKind.WRITE):
                edits.append((e.path, e.round))
            elif e.kind is EventKind.READ:
                reads.append((e.path, e.round))
        return edits, reads
    edits, reads = [], []
    for rnd in transcript.rounds:
        for msg in rnd.messages:
            for call in msg.tool_calls:
                if not call.path:
                    continue
                if call.kind in (ToolKind.EDIT, ToolKind.WRITE):
                    edits.append((call.path, rnd.number))
                elif call.kind == ToolKind.READ:
                    reads.append((call.path, rnd.number))
    return edits, reads


def restore_from_transcript(
    workspace: str | os.PathLike[str],
    transcript: Transcript,
    result: CompactionResult,
    settings: Settings | None = None,
    *,
    open_files: Sequence[str] | None = None,
    index: WorkspaceIndex | None = None,
    diagnostics: Any = None,
) -> RestoreState:
    edits, reads = transcript_activity(transcript)
    return build_restore_state(
        workspace,
        open_files=open_files,
        compaction=result,
        settings=settings,
        index=index,
        transcript_edits=edits,
        transcript_reads=reads,
        cwd=transcript.cwd or result.cwd,
        diagnostics=diagnostics,
    )


def write_after_compaction(
    workspace: str | os.PathLike[str],
    transcript: Transcript,
    result: CompactionResult,
    settings: Settings | None = None,
    *,
    open_files: Sequence[str] | None = None,
    index: WorkspaceIndex | None = None,
) -> list[Path]:
    """Write `.compaction/latest.md` (the compaction) and `.compaction/restore.md`; return both paths."""
    ws = Path(workspace)
    latest = write_text_atomic(ws / ".compaction" / "latest.md",
                               result.markdown if result.markdown.endswith("\n") else result.markdown + "\n")
    state = restore_from_transcript(ws, transcript, result, settings, open_files=open_files, index=index)
    restored = write_restore(state, restore_path(ws))
    return [latest, restored]
