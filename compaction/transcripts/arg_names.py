"""The names tools give their arguments, by role: the name tables, as hints, in one place.

Why one place: tools are classified and read by what their arguments do (`tool_shapes`), and the
readers that follow (`edits`, the history sources, the loaders) must agree on which argument is the
old text, the new text, the path. Each used to keep its own list, and the lists drifted apart (one
knew `TargetContent`, another `old_content`, a third only `old_str`), so a call one module read as
an edit another read as nothing. Names are compared in one spelling (`spell`: lower case, no `_` or
`-`), so `oldText`, `old_text` and `old-text` are one name; the first name of a role's table that a
call's arguments hold wins.

Pure and dependency-free: it sits in the bottom layer, so every layer may ask it.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum


class ArgRole(StrEnum):
    """What an argument does for its tool."""

    OLD = "old"  # the text an edit replaces
    NEW = "new"  # the text it puts in its place
    CONTENT = "content"  # a written file's whole text
    PATH = "path"  # the file or folder the call is about
    COMMAND = "command"  # a shell command line (or argv list)
    PATTERN = "pattern"  # what a search looks for
    EDIT_LIST = "edit_list"  # a multi-edit's list of old/new pairs
    PATCH = "patch"  # a patch envelope, unified diff or SEARCH/REPLACE blocks


# In `spell`'s spelling, most specific first: the first name a call holds is the one read.
NAMES: dict[ArgRole, tuple[str, ...]] = {
    ArgRole.OLD: ("oldstring", "oldstr", "oldtext", "oldcontent", "search", "old", "original", "find",
               "targetcontent", "before"),
    ArgRole.NEW: ("newstring", "newstr", "newtext", "newcontent", "replace", "new", "replacement", "updated",
               "replacementcontent", "after"),
    ArgRole.CONTENT: ("content", "filetext", "contents", "text", "code", "codecontent", "filecontent", "body",
                   "data", "source"),
    ArgRole.PATH: ("filepath", "path", "absolutepath", "notebookpath", "filename", "file", "targetfile", "target",
                   "abspath", "relativepath"),
    ArgRole.COMMAND: ("command", "cmd", "commands", "script", "commandline", "proposedcommand"),
    ArgRole.PATTERN: ("pattern", "query", "regex", "glob", "searchterm", "keyword", "include", "namepattern",
                      "searchpattern"),
    ArgRole.EDIT_LIST: ("edits", "replacementchunks", "chunks", "changes", "replacements", "hunks"),
    ArgRole.PATCH: ("patch", "diff", "input", "raw"),
}

# Copilot Chat names a file by `uri` (a `file://` URI or a URI object its loader decodes) and a folder
# by `dirPath`. Elsewhere a `uri` is as often a web address and a bare folder argument would make an
# unknown tool's call read as a file read, so the general path table leaves both out.
COPILOT_PATH: tuple[str, ...] = (*NAMES[ArgRole.PATH], "uri", "dirpath")

# What a search call looked up, as the exploration source retells it: SWE-agent-style tools put the
# whole look-up in `action`, which says more than its pattern alone; `action` is no search pattern
# anywhere else (a browser's or an editor's `action` is a verb), so it is not in the pattern table.
LOOKUP: tuple[str, ...] = ("action", *NAMES[ArgRole.PATTERN])

# The generic loader's shape test (`_speakers.infer_kind`) reads keys one by one, asking for no old/new
# pair: any of these beside a path marks an edit. So only names that are nothing but edit text belong:
# the tables' broad ones stay out (a search's `find`, a grep's `before`/`after` context lines, any tool's
# `input`, `raw` or `changes`), and a few edit requests no pair table holds (`instruction`) are in.
EDIT_MARKS: tuple[str, ...] = (
    "oldstring", "oldstr", "oldtext", "oldcontent", "old", "search", "targetcontent",
    "newstring", "newstr", "newtext", "newcontent", "new", "replace", "replacement", "replacementcontent",
    "edits", "replacementchunks", "chunks", "diff", "patch", "unifieddiff", "codeedit", "instruction")
# There too a command must be a non-blank string, so `shell` (elsewhere as often a flag, `shell: true`,
# which the general table would take for the command) is one; a written file's text may be `newFile`;
# and a search's folder (`searchPath`) marks the call a search as its pattern would.
GENERIC_COMMAND: tuple[str, ...] = (*NAMES[ArgRole.COMMAND], "shell")
GENERIC_CONTENT: tuple[str, ...] = (*NAMES[ArgRole.CONTENT], "newfile")
GENERIC_SEARCH: tuple[str, ...] = (*NAMES[ArgRole.PATTERN], "searchpath")

Names = ArgRole | tuple[str, ...]


def spell(name: object) -> str:
    """An argument name in the one spelling the tables use: `oldText`, `old_text`, `old-text` -> `oldtext`."""
    return str(name).lower().replace("_", "").replace("-", "")


def spelled(args: Mapping[str, object]) -> dict[str, object]:
    """The arguments by `spell`'s spelling of their names (the first of a spelling wins): spelled once
    when a reader asks one call for several roles."""
    named: dict[str, object] = {}
    for name, value in args.items():
        named.setdefault(spell(name), value)
    return named


def _names(names: Names) -> tuple[str, ...]:
    return NAMES[names] if isinstance(names, ArgRole) else names


def is_name(name: object, names: Names) -> bool:
    """Whether an argument called `name` plays the role (`names`: a role or a named subset)."""
    return spell(name) in _names(names)


def pick(named: Mapping[str, object], names: Names, kind: type | tuple[type, ...] = str, *,
         blank: bool = True) -> object:
    """The value of the first of `names` that already-spelled arguments (`spelled`) hold as a `kind`;
    None when none does. `kind=object`: the first one present, whatever its value; `blank=False` passes
    over empty strings."""
    for key in _names(names):
        value = named.get(key)
        if key in named and isinstance(value, kind) and (blank or value != ""):
            return value
    return None


def arg_value(args: Mapping[str, object] | None, names: Names, kind: type | tuple[type, ...] = str) -> object:
    """`pick` on a call's arguments as sent (any spelling of the names)."""
    return pick(spelled(args), names, kind) if isinstance(args, Mapping) else None


def arg_text(args: Mapping[str, object] | None, names: Names, *, blank: bool = True) -> str | None:
    """The call's text for a role: the first of the role's names it holds as a string, in the table's
    order. `blank=False` passes over empty strings (a path must name something)."""
    found = pick(spelled(args), names, str, blank=blank) if isinstance(args, Mapping) else None
    return found if isinstance(found, str) else None
