"""Restore after compaction (seed 003 §3.3): what the assistant needs to carry on.

`build_restore_state(workspace, ...)` computes a RestoreState from the workspace (a
WorkspaceIndex kept fresh with `invalidate`), the editor's open files, the last compaction and
the error memory; `render_markdown`/`render_json` present it; `write_restore` writes
`.compaction/restore.md` atomically.
"""

from restore.ranking import CoreClass, classify
from restore.render import render_json, render_markdown, write_restore
from restore.state import RestoreState, build_restore_state
from restore.workspace import WorkspaceIndex

__all__ = [
    "CoreClass",
    "RestoreState",
    "WorkspaceIndex",
    "build_restore_state",
    "classify",
    "render_json",
    "render_markdown",
    "write_restore",
]
