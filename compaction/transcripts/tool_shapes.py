"""What a tool call does, read from the shape of its arguments (issue 13 item 3).

Agents rename their tools with every release; the arguments keep their shape. A call whose name the
table in `_agent_tools.KIND_BY_NAME` (the hints, in one place) does not know is classified here:
  - a patch envelope, a unified diff or SEARCH/REPLACE blocks in any string argument: an edit;
  - a path with old/new text (or a list of such edits): an edit;
  - a path with full content: a write;
  - a command/cmd/script string (or argv list): a shell command;
  - a pattern or query (with or without a path), or a folder: a search; a path alone: a read.
`events.tool_kind` is the one place that asks; loaders keep naming what they know.
Which argument is the old text, the path or the command is `arg_names`'s to say, for every reader alike.
"""

from __future__ import annotations

import re
from typing import Any

from compaction.model import ToolCall, ToolKind
from compaction.transcripts._agent_tools import first_path, join_command, patch_paths
from compaction.transcripts.arg_names import NAMES, ArgRole, arg_text, arg_value, pick, spelled

_EDITOR_OPS = {"view": ToolKind.READ, "create": ToolKind.WRITE, "str_replace": ToolKind.EDIT,
               "insert": ToolKind.EDIT, "undo_edit": ToolKind.EDIT}  # str_replace_editor-style operations

_DIFF_FILE_RE = re.compile(r"^\+\+\+ (?:b/)?(\S+)", re.MULTILINE)
_HUNK_RE = re.compile(r"^@@ ", re.MULTILINE)
_SEARCH_REPLACE_RE = re.compile(r"^<{5,9} SEARCH(?>\s*$).*?^={5,9}(?>\s*$).*?^>{5,9} REPLACE\s*$", re.MULTILINE | re.DOTALL)


def _patch_in(args: dict[str, Any]) -> tuple[str, list[str]] | None:
    """(the text, the files it names) of a patch envelope or unified diff in any string argument."""
    for value in args.values():
        if not isinstance(value, str) or len(value) < 10:
            continue
        if "*** Begin Patch" in value:
            return value, patch_paths(value)
        if "\n+++ " in value and _HUNK_RE.search(value):
            return value, list(dict.fromkeys(m.group(1) for m in _DIFF_FILE_RE.finditer(value)))
    return None


def _has_search_replace(args: dict[str, Any]) -> bool:
    return any(isinstance(v, str) and "SEARCH" in v and _SEARCH_REPLACE_RE.search(v) for v in args.values())


def _edit_list(args: dict[str, Any]) -> bool:
    """Whether an edit-list argument holds old/new pairs (any list of dicts will not do: `changes`
    and `hunks` name other lists too)."""
    named = spelled(args)
    for key in NAMES[ArgRole.EDIT_LIST]:
        items = named.get(key)
        if isinstance(items, list) and items and all(isinstance(i, dict) for i in items):
            if any(_old_new(i) for i in items):
                return True
    return False


def _old_new(args: dict[str, Any]) -> bool:
    """Whether the arguments hold both an old and a new text (either may be empty)."""
    named = spelled(args)
    return pick(named, ArgRole.OLD) is not None and pick(named, ArgRole.NEW) is not None


def kind_by_shape(args: dict[str, Any]) -> str:
    """The kind a call's arguments describe (ToolKind.OTHER when they describe none)."""
    if not isinstance(args, dict) or not args:
        return ToolKind.OTHER
    if _patch_in(args):
        return ToolKind.EDIT
    path = first_path(args)
    if path and (_has_search_replace(args) or _edit_list(args)
                 or _old_new(args)):
        return ToolKind.EDIT
    if path and arg_text(args, ArgRole.CONTENT) is not None:
        return ToolKind.WRITE
    command = arg_value(args, ArgRole.COMMAND, object)
    if path and isinstance(command, str) and command in _EDITOR_OPS:
        return _EDITOR_OPS[command]
    if isinstance(command, str) and command.strip() or (
            isinstance(command, list) and command and all(isinstance(c, str) for c in command)):
        return ToolKind.SHELL
    if arg_text(args, ArgRole.PATTERN):
        return ToolKind.SEARCH
    if path:
        return ToolKind.SEARCH if path.endswith(("/", "\\")) or path in (".", "..") else ToolKind.READ
    return ToolKind.OTHER


def classify(call: ToolCall) -> ToolCall:
    """`call` itself when its kind is known; else a copy with the kind, path and command its arguments
    describe (the original call, as the loader made it, is never changed)."""
    if call.kind != ToolKind.OTHER or not isinstance(call.arguments, dict):
        return call
    args = call.arguments
    kind = kind_by_shape(args)
    if kind == ToolKind.OTHER:
        return call
    path = first_path(args)
    command = None
    if kind == ToolKind.EDIT:
        patch = _patch_in(args)
        if patch and patch[1]:
            args = {**args, "paths": patch[1]}
            path = path or patch[1][0]
    elif kind == ToolKind.SHELL:
        command = join_command(arg_value(args, ArgRole.COMMAND, object))
    return ToolCall(name=call.name, arguments=args, id=call.id, kind=kind, command=command, path=path)
