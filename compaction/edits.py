"""What an edit changed: the removed and added lines of one tool call, per file, from whichever
payload the agent sent (old/new strings, MultiEdit lists, apply_patch envelopes, unified diffs,
aider/Cline SEARCH/REPLACE blocks, `sed -i` expressions, a heredoc or a written file's content).

Why a module of its own: events attach these hunks to their file events, the change-record source
renders them and the error memory names the key change of the edit that ended an error; all three
read edit payloads the same way. Best effort and pure: nothing here executes or opens a file.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from itertools import islice
from typing import TypeVar

from compaction.literal_heads import LinePattern
from compaction.memo import per_text
from compaction.model import ToolCall
from compaction.shell import first_word, split_commands, words
from compaction.transcripts._fences import FENCE_LINE
from compaction.transcripts.arg_names import NAMES, ArgRole, arg_value, pick, spelled

_SEARCH_REPLACE_RE = re.compile(
    r"^<{5,9} SEARCH(?>\s*\n)(.*?)^={5,9}(?>\s*\n)(.*?)^>{5,9} REPLACE\s*$", re.MULTILINE | re.DOTALL)
_DEF_RE = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\(\w+\))?\s+)?(?:async\s+)?(?:static\s+)?"
    r"(?:(?:def|class|fn|interface|struct|enum|trait|impl|type|module|actor|primitive)\s+|function\s*\*?\s*"
    r"|func\s+(?:\([^)]*\)\s*)?)"
    r"([A-Za-z_$][\w$]*)")
# A named value a file declares: `const X =`, `let x =`, `var x`, `val x`, a Python/shell `UPPER_CASE =`.
_DECL_RE = re.compile(r"^(\s*)(?:export\s+)?(?:(?:const|let|var|val)\s+([A-Za-z_$][\w$]*)\s*[:=]"
                      r"|([A-Z][A-Z0-9_]{2,})\s*(?::[^=]{1,40})?=(?!=))")
_IMPORT_RE = re.compile(r"^\s*(?:from\s+[\w.]+\s+import\s+\(?([\w, ]+)|import\s+(?:type\s+)?\{([^}]*)\}\s+from"
                        r"|import\s+([\w.]+)\s*(?:$|as\b|;))")
_HEADING_RE = re.compile(r"^#{1,4}\s++(\S.{0,70}?)\s*+#*+\s*+$")  # possessive tails: linear on a line of spaces
# A configuration file's sections are its headings: TOML/INI `[project.scripts]`, `[[tool.mypy.overrides]]`.
_SECTION_RE = re.compile(r"^\s*(\[\[?\s*[A-Za-z_][^\[\]\n=]{0,60}?\s*\]\]?)\s*(?:#.*)?$")
# A pinned requirement (`ollama==0.5.3`, `requests[socks]>=2.31`): what a requirements file says.
_PIN_RE = re.compile(r"^\s*([A-Za-z0-9][\w.\-]*(?:\[[\w,\-]+\])?\s*(?:===?|>=|<=|~=|!=)\s*[\w.*+!\-]+)\s*(?:[;#].*)?$")
# Identifiers as a reader names them: dotted chains (`crypto.getRandomValues`) count as one.
_IDENT_RE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_CALL_RE = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\s*\(")  # from a word's start: linear
# A string literal handed to a call (`getItem('random-min')`, `os.environ.get("HOME")`): a key the code uses.
_KEY_RE = re.compile(r"(?<![\w$.])([\w$.]*[\w$])\(\s*(['\"`])([\w.:/@-]{2,40})\2")  # from a word's start: linear
# A constant's value when it is a short literal: `= 0.4;`, `= "v1"`, `= true`.
_LITERAL_RE = re.compile(r"""(?:[^=\n]{0,40}=(?!=))?\s*+(-?\d[\d_.]*+(?:e-?\d+)?|'[^'\n]{0,24}'|\"[^\"\n]{0,24}\"|true|false|True|False|None|null)\s*+(?:[;,]\s*+)?(?:(?://|#).*)?$""")
_COMMENT_RE = re.compile(r"^\s*(?://|#(?!include|define|!)|--|;;|/\*|\*|<!--)")
# The first character `_COMMENT_RE` and `_DECL_RE` can match after the leading whitespace (both open
# `^\s*`, which `str.lstrip` strips the same way): `digest` tries them only on lines opening with one,
# and `_KEY_RE` only on lines holding a quote. Most lines of a file open otherwise (`return`, `self.x`).
_COMMENT_HEADS = frozenset("/#-;*<")
_DECL_HEADS = frozenset("eclvABCDEFGHIJKLMNOPQRSTUVWXYZ")
_METHOD_RE = re.compile(
    r"^\s*(?:(?:public|private|protected|static|final|override|synchronized|abstract)\s++){1,8}"
    r"(?:<[^>]*>\s*)?[\w<>\[\], ?.]+?(?<! )\s+([A-Za-z_]\w*)\s*\([^;]*$")
_HUNK_HEADER_RE = re.compile(r"^@@[^@]*@@\s*(.*)$")
# `s/old/new/flags`: neither side holds its delimiter unescaped, so `250s/a/b/;272s/c/d/` is two commands
_SED_SUBST_RE = re.compile(r"^(\d+(?:,\d+)?|/[^/]*/)?\s*s(.)((?:\\.|(?!\2).)*+)\2((?:\\.|(?!\2).)*+)\2([gIip0-9]*)$",
                           re.DOTALL)
# the same, at a position of a script (`_sed_commands`): its anchors off
_SED_ONE_SUBST_RE = re.compile(_SED_SUBST_RE.pattern[1:-1], re.DOTALL)
# `i\` (then a new line) or `i \    text` keeps the text's own leading spaces (GNU sed); `i text` does not
_SED_LINE_OP_RE = re.compile(r"^(\d+(?:,\d+)?|/[^/]*/|\$)\s*([dia])(?:[ \t]*\\\n?|\s*)(.*)$", re.DOTALL)
_SED_READ_RE = re.compile(r"^(\d+|/[^/]*/|\$)\s*r\s*(\S+)$")  # `351r snippet.py`: that file's lines after line 351


@dataclass(frozen=True, slots=True)
class Hunk:
    """One change of one file: lines removed, lines added, and where (the enclosing definition a
    diff's `@@` header names, when it names one)."""

    removed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    context: str | None = None
    fragment: bool = False  # a substitution inside lines (`sed s/old/new/`), not whole lines
    deletes_matching: str | None = None  # `sed '/pat/d'`: every line holding this text goes
    # the same `d` command's pattern as written (a basic regular expression: `^import`, `l.3`), for a replay
    deletes_pattern: str | None = field(default=None, compare=False, repr=False)
    every: bool = True  # a substitution: every occurrence in the line (`s///g`), else the first only
    # An old/new pair's texts, on the pair's first hunk only: lets a reader replay the edit on a file
    # whose content it knows (a file written earlier in the session) and find where it landed.
    source: tuple[str, str] | None = field(default=None, compare=False, repr=False)
    offset: int = 0  # the hunk's first line within the pair's old text
    # Lines around the change as the tool's result showed the file after it (`cat -n` of a snippet),
    # when the payload itself is unknown: where the edit landed, not what it added.
    shown: tuple[str, ...] = ()
    # `sed '351r snippet.py'`: the lines added are that file's, as the session last wrote it (`read_in`)
    reads_in: str | None = None
    # A unified diff's context lines next to the change, up to CONTEXT_KEPT on each side, in the file's order
    # (empty: none shown there): where a change with no old/new pair lands in a file whose text a reader knows
    # (`sources.placing.place` looks for them with the removed lines, as one block)
    above: tuple[str, ...] = field(default=(), compare=False, repr=False)
    below: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @property
    def empty(self) -> bool:
        return not (self.removed or self.added or self.deletes_matching or self.shown)


@dataclass(frozen=True, slots=True)
class FileChange:
    """The hunks one call made to one file; `whole` when it wrote the file's entire content."""

    path: str
    hunks: tuple[Hunk, ...]
    whole: bool = False


def _lines(text: object) -> tuple[str, ...]:
    if not isinstance(text, str):
        return ()
    return tuple(text.splitlines())


def _trim_common(old: tuple[str, ...], new: tuple[str, ...]) -> Hunk:
    """An old/new pair as one hunk: lines both sides share at the start and end are context, not change."""
    start = 0
    while start < len(old) and start < len(new) and old[start] == new[start]:
        start += 1
    end = 0
    while end < len(old) - start and end < len(new) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    return Hunk(old[start:len(old) - end], new[start:len(new) - end], enclosing(old[:start], _first(old, new, start)),
                offset=start)


_DIFF_CELLS = 160_000  # pairs larger than this (lines × lines) are trimmed, not diffed: bounded work


def pair_hunks(old_text: object, new_text: object) -> list[Hunk]:
    """An old/new pair as the hunks a line diff finds (an insertion above a function and a rewrite of
    its body are two hunks, each with its enclosing definition), the first carrying the pair's texts."""
    old, new = _lines(old_text), _lines(new_text)
    # Only a pair with an old text can be replayed (a line-range edit names no old text).
    source = (old_text, new_text if isinstance(new_text, str) else "") if isinstance(old_text, str) else None
    if len(old) * len(new) > _DIFF_CELLS or not old or not new:
        hunk = _trim_common(old, new)
        return [Hunk(hunk.removed, hunk.added, hunk.context, source=source, offset=hunk.offset)] if not hunk.empty else []
    hunks: list[Hunk] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        removed, added = old[i1:i2], new[j1:j2]
        first = removed[0] if removed else (added[0] if added else "")
        context = enclosing(old[:i1], first) or (enclosing(new[:j1], first) if not removed else None)
        hunks.append(Hunk(removed, added, context, source=None if hunks else source, offset=i1))
    return hunks


def _first(old: tuple[str, ...], new: tuple[str, ...], at: int) -> str:
    return old[at] if at < len(old) else (new[at] if at < len(new) else "")


def enclosing(above: tuple[str, ...] | list[str], line: str) -> str | None:
    """The definition enclosing `line` given the lines above it: the nearest one opened at a smaller
    indentation (a definition closed before it, at the same indentation, does not enclose it)."""
    indent = _indent(line) if line.strip() else 10**6
    for prev in reversed(above):
        if not prev.strip():
            continue
        m = definition(prev)
        if m and _indent(prev) < indent and m.group(1) not in _NOT_NAMES:
            return m.group(1)
        if _indent(prev) < indent:
            indent = _indent(prev)
            if indent == 0 and not m:
                return None
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


# The first two letters of every word a definition can open with (`_DEF_RE`'s modifiers and keywords,
# `_METHOD_RE`'s modifiers): both patterns start `^\s*` then one of those words, and `str.lstrip` strips
# the same whitespace as `\s`. Most lines of a hunk open with none of them (`return`, `self.x =`, `}`):
# a set lookup answers for them instead of two regex matches (7 in 8 lines on the real sessions).
_DEF_HEADS = frozenset(("ex", "de", "pu", "as", "st", "cl", "fn", "in", "en", "tr", "im", "ty", "mo", "ac", "pr", "fu",
                        "fi", "ov", "sy", "ab"))


def definition(line: str) -> re.Match[str] | None:
    """The definition a line opens (`def f`, `class C`, `function g`, a Java method), if any."""
    if line.lstrip()[:2] not in _DEF_HEADS:
        return None
    return _DEF_RE.match(line) or _METHOD_RE.match(line)


_NOT_NAMES = frozenset({"if", "for", "while", "return", "new", "else"})


def definitions(lines: tuple[str, ...] | list[str]) -> list[str]:
    """The names of the definitions opened in `lines`, in order, without repeats."""
    return list(dict.fromkeys(each_definition(lines)))


def each_definition(lines: tuple[str, ...] | list[str]) -> list[str]:
    """The names of the definitions opened in `lines`, in order, each time one opens (eight classes' `__ne__`
    are eight)."""
    return [m.group(1) for line in lines if (m := definition(line)) and m.group(1) not in _NOT_NAMES]


CONTEXT_KEPT = 3  # a diff's context lines a hunk keeps on each side (`diff -u`'s default)


def parse_unified(text: str) -> list[FileChange]:
    """Hunks of a unified diff (`--- a/x` / `+++ b/x` / `@@ … @@ ctx`) or of a Codex
    `*** Begin Patch` envelope (`*** Update File: x` / `@@ ctx`), per file, in order."""
    out: list[FileChange] = []
    path: str | None = None
    hunks: list[Hunk] = []
    removed: list[str] = []
    added: list[str] = []
    context: str | None = None
    header_context: str | None = None  # what the `@@` line names
    inner: tuple[str, int] | None = None  # (name, indentation) of a definition the hunk's context lines opened
    whole = False
    run: list[str] = []  # the context lines read since the last change or header
    above: tuple[str, ...] = ()  # the open hunk's context lines above it
    closed: int | None = None  # the index in `hunks` of the hunk the context lines now read follow

    def close_hunk() -> None:
        nonlocal removed, added, closed
        if removed or added:
            hunks.append(Hunk(tuple(removed), tuple(added), context, above=above))
            closed = len(hunks) - 1
        removed, added = [], []

    def end_context() -> None:
        """The context lines read since the last hunk are the lines below it."""
        nonlocal closed
        if closed is not None and run:
            hunks[closed] = replace(hunks[closed], below=tuple(run[:CONTEXT_KEPT]))
        closed = None

    def close_file() -> None:
        nonlocal hunks, whole
        close_hunk()
        end_context()
        if path and hunks:
            out.append(FileChange(path, tuple(hunks), whole))
        hunks, whole = [], False

    for line in text.splitlines():
        if line.startswith(("*** Update File: ", "*** Add File: ", "+++ ")):
            if line.startswith("+++ ") and path and not hunks and not removed and not added:
                pass  # the `+++` line after `---`: same file
            else:
                close_file()
            raw = line.split(": ", 1)[1] if line.startswith("***") else line[4:]
            raw = raw.split("\t", 1)[0].strip()
            path = raw[2:] if raw.startswith(("a/", "b/")) else raw
            whole = line.startswith("*** Add File: ")
            context = header_context = inner = None  # a file's places are its own
            run = []
            continue
        if line.startswith(("--- ", "diff --git", "index ", "*** Begin Patch", "*** End Patch", "*** Delete File")):
            if line.startswith(("diff --git", "*** Delete File")):
                close_file()
                path = None
            continue
        m = _HUNK_HEADER_RE.match(line)
        if m or line.startswith("@@"):
            close_hunk()
            end_context()
            header = (m.group(1) if m else line[2:]).strip()
            found = definition(header) if header else None
            context = header_context = found.group(1) if found else (header or None)
            inner = None
            run = []
            continue
        if path is None:
            continue
        if line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
        elif line.startswith("-") and not line.startswith("---"):
            removed.append(line[1:])
        else:
            # git's `@@` header names the definition above the hunk's first line, context included: one its
            # context lines open (`protected boolean isBuildMethod(…) {` two lines above the change) encloses
            # a change indented deeper than it; a line back at its indentation closed it
            body = line[1:] if line.startswith(" ") else ""
            if removed or added:
                close_hunk()
                run = []
            if line.startswith(" ") or not line:
                run.append(body)
            opened = definition(body) if body.strip() else None
            if opened:
                inner = (opened.group(1), _indent(body))
            elif inner is not None and body.strip() and _indent(body) <= inner[1]:
                inner = None
            continue
        if len(removed) + len(added) == 1:  # the hunk's first changed line
            end_context()
            above = tuple(run[-CONTEXT_KEPT:])
            run = []
            changed = (removed or added)[0]
            context = inner[0] if inner is not None and changed.strip() and _indent(changed) > inner[1] \
                else header_context
    close_file()
    return out


def first_search_replace(text: str) -> tuple[str, str] | None:
    """The searched and replacing texts of a text's first whole `SEARCH` / `=======` / `REPLACE` block."""
    m = _SEARCH_REPLACE_RE.search(text)
    return (m.group(1), m.group(2)) if m else None


def parse_search_replace(text: str) -> list[Hunk]:
    """aider's and Cline's `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks."""
    return [h for m in _SEARCH_REPLACE_RE.finditer(text) for h in pair_hunks(m.group(1), m.group(2))]


def sed_hunks(command: str) -> list[FileChange]:
    """`sed -i 's/old/new/' file` as hunks: the substitution's pattern and replacement, per file."""
    return list(_sed_hunks(command))


@per_text(maxsize=4096)  # events and the error memory's solutions read the same command lines
def _sed_hunks(command: str) -> tuple[FileChange, ...]:
    out: list[FileChange] = []
    for part in split_commands(command):
        if first_word(part) != "sed":
            continue
        args = words(part)
        if not any(a.startswith("-i") or a == "--in-place" for a in args):
            continue
        scripts: list[str] = []
        files: list[str] = []
        i = 1
        while i < len(args):
            a = args[i]
            if a in {"-e", "--expression"} and i + 1 < len(args):
                scripts.append(args[i + 1])
                i += 2
                continue
            if a.startswith("-"):
                i += 1
                continue
            if not scripts:
                scripts.append(a)
            else:
                files.append(a)
            i += 1
        hunks: list[Hunk] = []
        for script in scripts:
            for expr in _sed_commands(script):
                expr = expr.strip()
                m = _SED_SUBST_RE.match(expr)
                if m:
                    old, new = m.group(3).replace("\\" + m.group(2), m.group(2)), m.group(4)
                    where = f"line {m.group(1)}" if m.group(1) and m.group(1)[0].isdigit() else None
                    hunks.append(Hunk((old,), (new,) if new else (), where, fragment=True, every="g" in m.group(5)))
                    continue
                read = _SED_READ_RE.match(expr)
                if read:
                    hunks.append(Hunk((), (), f"append at {read.group(1)}", reads_in=read.group(2).strip("'\"")))
                    continue
                op = _SED_LINE_OP_RE.match(expr)
                if op:
                    verb = {"d": "delete", "i": "insert", "a": "append"}[op.group(2)]
                    # `\\n` escapes a new line; a backslash ending a line of `i\\` text continues it
                    text = re.sub(r"\\\n", "\n", op.group(3)).replace("\\n", "\n")
                    address = op.group(1)
                    if verb != "delete":
                        hunks.append(Hunk((), _lines(text), f"{verb} at {address}"))
                    elif address.startswith("/"):
                        literal = re.sub(r"\\(.)", r"\1", address.strip("/"))
                        hunks.append(Hunk((), (), None, deletes_matching=literal, deletes_pattern=address[1:-1]))
                    else:
                        hunks.append(Hunk((f"<line(s) {address}>",), (), None))
        for f in files:
            if hunks:
                out.append(FileChange(f, tuple(hunks)))
    return tuple(out)


def _sed_commands(script: str) -> list[str]:
    """A sed script's commands: each `s` command whole, by its three delimiters (`s/int a;/long a;/` holds
    a `;`), any other up to the next `;`."""
    out: list[str] = []
    pos, n = 0, len(script)
    while pos < n:
        while pos < n and script[pos] in " \t\n;":
            pos += 1
        if pos >= n:
            break
        m = _SED_ONE_SUBST_RE.match(script, pos)
        if m is not None and (m.end() == n or script[m.end():m.end() + 1] in (";", "\n", " ", "\t", "}")):
            out.append(script[pos:m.end()])
            pos = m.end()
            continue
        end = script.find(";", pos)  # (not a line break: `10i\` takes the next line as its text)
        end = n if end < 0 else end
        out.append(script[pos:end])
        pos = end
    return out


def read_in(change: FileChange, written: Callable[[str], tuple[str, ...] | None]) -> FileChange:
    """`change` with each hunk that reads a file in (`sed '351r snippet.py'`) adding that file's lines,
    when `written(path)` knows them (a file the session wrote whole: a heredoc, a write tool)."""
    if not any(h.reads_in for h in change.hunks):
        return change
    hunks = tuple(replace(h, added=lines, reads_in=None) if h.reads_in and (lines := written(h.reads_in)) else h
                  for h in change.hunks)
    return replace(change, hunks=hunks)


def heredoc_writes(command: str) -> list[FileChange]:
    """`cat > f <<'EOF' … EOF` (and `tee`): the file's whole new content."""
    return list(_heredoc_writes(command))


@per_text(maxsize=1024)
def _heredoc_writes(command: str) -> tuple[FileChange, ...]:
    out: list[FileChange] = []
    for m in re.finditer(r"(?:cat|tee)\s+(?:-a\s+)?(?:<<-?\s*(['\"]?)(\w+)\1\s*>{1,2}\s*(\S+)|>{1,2}\s*(\S+)\s*<<-?\s*(['\"]?)(\w+)\5"
                         r"|(\S+)\s*<<-?\s*(['\"]?)(\w+)\8)[^\n]*\n", command):
        path = (m.group(3) or m.group(4) or m.group(7) or "").strip("'\"")
        tag = m.group(2) or m.group(6) or m.group(9)
        body_end = re.search(rf"^{re.escape(tag)}\s*$", command[m.end():], re.MULTILINE)
        body = command[m.end(): m.end() + body_end.start()] if body_end else command[m.end():]
        if path and not path.startswith("/dev/"):
            out.append(FileChange(path, (Hunk((), _lines(body)),), whole=True))
    return tuple(out)


def call_changes(call: ToolCall) -> list[FileChange]:
    """Every file change one tool call carries, from its arguments or its command line."""
    args = call.arguments if isinstance(call.arguments, dict) else {}
    path = call.path or ""
    out: list[FileChange] = []
    command = call.command or (args.get("command") if isinstance(args.get("command"), str) else "") or ""
    spelled_args = spelled(args)  # once for every role asked below
    for key in NAMES[ArgRole.PATCH]:  # every patch argument, not the first: each may name its own files
        value = spelled_args.get(key)
        if isinstance(value, str) and ("\n@@" in value or "*** Begin Patch" in value or value.startswith("@@")):
            out += parse_unified(value if "\n+++ " in value or "*** " in value or not path
                                 else f"+++ b/{path}\n{value}")
        elif isinstance(value, str) and "SEARCH" in value and _SEARCH_REPLACE_RE.search(value) and path:
            out.append(FileChange(path, tuple(parse_search_replace(value))))
    if out:
        return out
    edits = pick(spelled_args, ArgRole.EDIT_LIST, list)
    if isinstance(edits, list) and path:
        hunks = [h for e in edits if isinstance(e, dict)
                 for h in pair_hunks(*_old_new(spelled(e)))]
        return [FileChange(path, tuple(h for h in hunks if not h.empty))]
    old, new = _old_new(spelled_args)
    if path and (isinstance(old, str) or isinstance(new, str)) and call.kind != "write":
        if isinstance(args.get("insert_line"), int) and not old:
            return [FileChange(path, (Hunk((), _lines(new), f"after line {args['insert_line']}"),))]
        found = [h for h in pair_hunks(old, new) if not h.empty]
        return [FileChange(path, tuple(found))] if found else []
    content = _content(args, spelled_args)
    if path and isinstance(content, str) and call.kind in ("write", "edit"):
        return [FileChange(path, (Hunk((), _lines(content)),), whole=True)]
    if command and ("\n@@" in command or "*** Begin Patch" in command) and ("apply" in command or "patch" in command):
        return parse_unified(command)
    if command and "sed" in command:
        out += sed_hunks(command)
    if command and "<<" in command:
        out += heredoc_writes(command)
    return out


def new_text(call: ToolCall) -> str:
    """The text a write or edit puts in its file, from its arguments (each piece of a multi-edit on its
    own lines): what a change that names no file still says about which file it was."""
    args = call.arguments if isinstance(call.arguments, dict) else {}
    edits = arg_value(args, ArgRole.EDIT_LIST, list)
    if isinstance(edits, list):
        return "\n".join(t for e in edits if isinstance(e, dict) and isinstance(t := arg_value(e, ArgRole.NEW), str))
    found = arg_value(args, ArgRole.NEW)
    if found is None:
        found = _content(args)
    return found if isinstance(found, str) else ""


def changes_nothing(call: ToolCall) -> bool:
    """An edit whose new text is its old text (aider's block re-sent "to confirm" an export): the
    tool applies it, and the file is as it was."""
    args = call.arguments if isinstance(call.arguments, dict) else {}
    if not args or pick(spelled(args), ArgRole.EDIT_LIST, list) is not None:
        return False
    old, new = _old_new(spelled(args))
    return isinstance(old, str) and isinstance(new, str) and bool(old.strip()) and old == new


def _old_new(named: dict[str, object]) -> tuple[object, object]:
    return pick(named, ArgRole.OLD), pick(named, ArgRole.NEW)


def _content(args: dict, named: dict[str, object] | None = None) -> object:
    """A written file's text; decoded once when the agent double-encoded it (`_unquoted`)."""
    value = pick(named if named is not None else spelled(args), ArgRole.CONTENT)
    return _unquoted(value) if isinstance(value, str) else value


_TRUNCATED_RE = re.compile(r"<truncated \d+ (?:bytes|characters|chars)>\s*")


def _unquoted(value: str) -> str:
    """Some agents (Antigravity's write_to_file) send a file's text as a JSON string literal inside the
    argument, `"import re\\nimport json…"`: quoted, its line breaks escaped, on one line, an exporter's
    `<truncated N bytes>` note perhaps on a line after it. Its lines are what the file holds, and
    definitions and change records are read from them, so it is decoded once: only when the quoted line
    is a whole JSON string (a cut one when the truncation note follows), never by guesswork (a C format
    string `"Usage: %s\\n"` stays as written)."""
    head, sep, rest = value.partition("\n")
    if len(head) < 2 or head[0] != '"' or head.count("\\n") < 2:
        return value
    if not sep:
        candidates = [head]
    elif _TRUNCATED_RE.fullmatch(rest):
        candidates = [head + '"', head[:-1] + '"']  # cut after a backslash: its escape goes
    else:
        return value
    for literal in candidates:
        try:
            decoded = json.loads(literal)
        except ValueError:
            continue
        if isinstance(decoded, str):
            return decoded + sep + rest
    return value


# --- what a file holds, and what an edit swapped: the words a reader asks about ------------------------

_DIFF_FENCE_RE = re.compile(r"^```diff[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
_FENCE_RE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1\s*$", re.MULTILINE | re.DOTALL)
_SNIPPET_RE = re.compile(r"result of running `cat -n` on a snippet of the edited file:\s*\n((?:[ \t]*\d+(?:→|\t).*\n?)+)")
_NUMBERED_RE = re.compile(r"^[ \t]*(\d+)(?:→|\t)(.*)$", re.MULTILINE)
_REPLACED_ALL_RE = re.compile(r"All occurrences of '(.{1,400}?)' were successfully replaced with '(.{0,400}?)'\.?$",
                              re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Digest:
    """A file's text in a few words: what it defines (functions, classes, top-level constants; a
    document's headings), the APIs it calls (`localStorage.getItem/setItem`), the string keys it hands
    to calls (`'random-min'`) and its length. Inferred from the text alone, whatever the language."""

    names: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()
    lines: int = 0
    title: str = ""  # its first informative line ("MIT License"); a short text's lines, whole (an ignore list)
    imports: tuple[str, ...] = ()  # the names it imports (`from x import a, b`, `import {a} from 'x'`)
    document: bool = False  # prose: `names` are its headings
    key_receivers: tuple[str, ...] = ()  # for each key, what it was handed to (`localStorage`), "" unknown
    values: tuple[tuple[str, str], ...] = ()  # constants' literal values: (`BASE_CONFIDENCE`, `0.4`)
    pins: tuple[str, ...] = ()  # a document's pinned requirements (`ollama==0.5.3`)
    notes: tuple[str, ...] = ()  # what the code says of itself: docstrings, then comments atop definitions
    settings: tuple[str, ...] = ()  # a file without definitions: its lines that hold values (URLs, paths, images)
    leaves: tuple[tuple[str, str], ...] = ()  # a data file's settings (data_leaves): set by whoever knows its name
    levels: tuple[int, ...] = ()  # a document's headings' levels, one per name (a `#` count)


_T = TypeVar("_T")


_SETTING_RE = re.compile(r"""^\s*[\w.\-"']+\s*(?:=(?!=)|:(?!:))""")


def _config_shaped(lines: tuple[str, ...] | list[str]) -> bool:
    """Whether most top-level lines that are not blank, comments, `[sections]` or closing brackets set a key
    (`name = "x"`, `a: 1`): a TOML/INI file, not code whose `[attribute]` or `[a, b]` lines only look like
    sections. An array's items (indented) say nothing either way."""
    top = [ln for ln in lines[:400] if ln[:1] not in ("", " ", "\t", "#", ";", "[", "]", "}", ")")]
    return sum(1 for ln in top if _SETTING_RE.match(ln)) * 2 >= len(top)


SHORT_TEXT_LINES = 6
SHORT_TEXT_CHARS = 160
_WORDY_RE = re.compile(r"\w{3}")
_WORD_CHAR_RE = re.compile(r"\w")


def digest(lines: tuple[str, ...] | list[str], *, document: bool = False) -> Digest:
    """`document`: prose (Markdown, text), whose headings are its definitions."""
    names: list[str] = []
    decls: list[tuple[int, str]] = []
    calls: Counter[str] = Counter()
    keys: Counter[str] = Counter()
    key_calls: dict[str, str] = {}  # key -> the receiver of the call it was first handed to
    values: dict[str, str] = {}  # CONSTANT -> its literal value (`BASE_CONFIDENCE` -> `0.4`)
    def_indents: list[int] = []
    imports: list[str] = []
    title = next((ln.strip() for ln in lines[:40] if _WORDY_RE.search(ln) and len(ln.strip()) <= 120
                  and not ln.startswith("#!")), "")
    said = list(islice((ln.strip() for ln in lines if _WORD_CHAR_RE.search(ln) and not ln.lstrip().startswith("#")),
                       SHORT_TEXT_LINES + 1))  # enough to tell a short text: a long file is not listed whole
    short = 1 < len(said) <= SHORT_TEXT_LINES and sum(map(len, said)) <= SHORT_TEXT_CHARS
    if short:
        title = " · ".join(said)  # a short text (an ignore list, a two-line config) is said whole: it is its gist
    pins: list[str] = []
    sections: list[str] = []  # a configuration file's `[section]` lines, its headings
    levels: list[int] = []  # a document's headings' levels (the count of their `#`)
    fence: str | None = None  # the fence a document's line is inside
    docs: list[str] = []  # docstrings' first lines
    comments: list[str] = []  # the first line of the comment above a definition, or atop the file
    pending = ""  # the comment block read since the last line of code
    code_seen = False
    lines_after = iter(lines)  # advanced with the loop: a docstring's opening quotes alone ask for its next line
    open_doc: str | None = None  # the quotes of the triple-quoted string the loop is in (a docstring or not)
    for line in lines_after:
        if line[:1] == "[" or (line[:1] == " " and line.lstrip()[:1] == "["):
            if (m := _SECTION_RE.match(line)) and m.group(1) not in sections:
                sections.append(m.group(1))
                continue
        elif "=" in line and len(pins) < 40 and (pin := _PIN_RE.match(line)):
            pins.append(re.sub(r"\s+", "", pin.group(1)))
            continue
        if document:
            if (f := FENCE_LINE.match(line)) is not None:  # a `# comment` in a fenced sample is no heading
                if fence is None:
                    if f.group(1)[0] == "`" and "`" in line[f.end():]:
                        continue  # "```js``` is …": a code span, no fence (CommonMark: no backtick in its info)
                    fence = f.group(1)
                elif f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence) and not line[f.end():].strip():
                    fence = None
            elif fence is None and (m := _HEADING_RE.match(line)) and m.group(1) not in names:
                names.append(m.group(1))
                levels.append(len(line) - len(line.lstrip("#")))
            continue
        head = line.lstrip()[:1]  # what `\\s*` leaves: the patterns below need one of a few characters there
        if not head:
            continue
        if head in _COMMENT_HEADS and (c := _COMMENT_RE.match(line)):
            if not pending and (note := _note(line[c.end():])):  # a comment block's first line of prose
                pending = note
            continue
        if open_doc is not None:  # inside a triple-quoted string: a line with its quotes closes it
            if line.count(open_doc) % 2:
                open_doc = None
        elif head in "\"'" and (quote := line.lstrip()[:3]) in ('"""', "'''"):  # a docstring opens the line
            rest = line.strip()[3:]
            if quote not in rest:  # of several lines: its text is on this line or the next
                open_doc = quote
                if not rest:
                    rest = next(lines_after, "")
                    if quote in rest:  # that line closes it too
                        open_doc = None
            if len(docs) < MAX_NOTES and (note := _note(rest.split(quote, 1)[0])):
                docs.append(note)
            continue
        elif ('"""' in line or "'''" in line) and (quote := _opened_quote(line)):
            open_doc = quote  # a string opened after code (`QUERY = """`): its closing line is no docstring
        if not code_seen and line.startswith("#!"):
            continue  # a script's interpreter line: its header comment follows
        m = definition(line)
        if pending and (m or not code_seen) and len(comments) < MAX_NOTES:
            comments.append(pending)  # the comment documents what follows it, or the file (its header)
        pending, code_seen = "", True
        if m and m.group(1) not in _NOT_NAMES:
            def_indents.append(_indent(line))
            if m.group(1) not in names:
                names.append(m.group(1))
        if "import" in line and (im := _IMPORT_RE.match(line)):
            for name in re.split(r"[,\s]+", im.group(1) or im.group(2) or im.group(3) or ""):
                if name and name not in ("as", "type") and name not in imports:
                    imports.append(name)
            continue
        d = _DECL_RE.match(line) if head in _DECL_HEADS else None
        if d and not (d.group(3) and line.rstrip().endswith((",", "("))):  # not a keyword argument `DEBUG=True,`
            decls.append((len(d.group(1)), d.group(2) or d.group(3)))
            name = d.group(2) or d.group(3)
            if name.isupper() and (v := _LITERAL_RE.match(line, d.end())):
                values.setdefault(name, v.group(1))
        if "(" in line:
            if "." in line:  # a call on a receiver (`_CALL_RE`) names one
                for c in _CALL_RE.findall(line):
                    if not c.startswith(("this.", "self.")):
                        calls[c] += 1
            quoted = "'" in line or '"' in line or "`" in line  # a key is a string literal (`_KEY_RE`)
            for call, _, key in (_KEY_RE.findall(line) if quoted else ()):
                keys[key] += 1
                if "." in call and not call.startswith(("this.", "self.")):
                    key_calls.setdefault(key, call.rsplit(".", 1)[0])
    if sections and not names and _config_shaped(lines):  # TOML/INI: its sections are its headings
        names, document = sections, True
    if not document:
        pins = []  # `a === b;` in code is no requirement
    if decls and not document:  # CONSTANTS first (configuration a reader asks about), then top-level values last
        top = min([i for i, _ in decls] + def_indents)
        constants = [n for _, n in decls if n.isupper() and n not in names]
        names = list(dict.fromkeys(constants)) + names
        for indent, name in decls:
            if indent <= top and name not in names:
                names.append(name)
    by_receiver: dict[str, list[str]] = {}
    for call in calls:  # first appearance order
        receiver, _, method = call.rpartition(".")
        by_receiver.setdefault(receiver, []).append(method)
    grouped = tuple(f"{r}.{'/'.join(ms[:4])}" for r, ms in by_receiver.items())
    ranked_keys = sorted(keys, key=lambda k: -min(keys[k], 2))  # keys used twice (read and written) first
    notes = () if document else tuple(dict.fromkeys(docs + comments))[:MAX_NOTES]
    settings = () if names or document or short else valued_lines(lines)
    return Digest(tuple(names), grouped, tuple(ranked_keys), len(lines), title, tuple(imports), document,
                  tuple(key_calls.get(k, "") for k in ranked_keys), tuple(values.items()), tuple(pins), notes,
                  settings, levels=tuple(levels) if document and len(levels) == len(names) else ())


def outline_first(items: Sequence[_T], levels: Sequence[int], n: int) -> list[_T]:
    """`items` (headings, in the document's order) with the `n` a partial outline says first: the upper
    levels (`## When To Use What` before `### 1) Fidelity vs Friction`), still in the document's order;
    the rest after them. Levels not one per item: `items` as they are."""
    if len(items) <= n or len(levels) != len(items):
        return list(items)
    shown = sorted(sorted(range(len(items)), key=lambda i: levels[i])[:n])
    chosen = set(shown)
    return [items[i] for i in shown] + [x for i, x in enumerate(items) if i not in chosen]


# What makes a line of a configuration (nginx, a Dockerfile, a POM, YAML) worth quoting: the values it sets,
# a URL, a path, an image with its tag, a version, a port, scored in that order. Markup's tags are no paths.
_URL_RE = re.compile(r"(?<!\w)\w++://\S+")
_PATH_TOKEN_RE = re.compile(r"(?<![\w<])[\w.*~-]*/[\w./*~-]+")
_IMAGE_OR_PORT_RE = re.compile(r"\b[a-z][\w.-]*:\d[\w.-]*\b|:\d{2,5}\b")
_VERSION_RE = re.compile(r"\b\d+\.\d+(?:\.\d+)*\b")
_TAG_RE = re.compile(r"</?[\w:.-]+(?:\s[^>]*)?/?>")
_BOILERPLATE_RE = re.compile(r"<\?xml|xmlns|schemaLocation|<!DOCTYPE|<modelVersion>", re.IGNORECASE)
MAX_SETTINGS = 4
SETTING_CHARS = 100


def valued_lines(lines: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """A configuration's lines that set values, the most telling first (a URL, then a path, an image or a
    port, then a version; ties in the file's order): `proxy_pass http://backend:8080;`, `FROM node:18-alpine
    AS build`, `<sourceDirectory>../backend/src/main/java</sourceDirectory>`."""
    scored: list[tuple[int, int, str]] = []
    for i, raw in enumerate(lines[:400]):
        line = raw.strip()
        if not line or len(line) > SETTING_CHARS or line.startswith(("#", "//", "/*", "*", "<!--", ";")) \
                or _BOILERPLATE_RE.search(line) or (" " not in line and "<" not in line):
            continue  # a comment, boilerplate, or a lone word (an ignore list's pattern sets nothing)
        bare = _TAG_RE.sub(" ", line) if "<" in line else line
        score = (3 if _URL_RE.search(bare) else 0) + (2 if _PATH_TOKEN_RE.search(_URL_RE.sub(" ", bare)) else 0) \
            + (2 if _IMAGE_OR_PORT_RE.search(bare) else 0) + (1 if _VERSION_RE.search(bare) else 0)
        if score:  # without its statement end (`;`, ` {`): the record's parts are separated by "; "
            scored.append((score, i, line.rstrip(" ;{") or line))
    best = sorted(scored, key=lambda x: (-x[0], x[1]))[:MAX_SETTINGS]
    return tuple(dict.fromkeys(line for _, _, line in best))


MAX_NOTES = 3
# A comment that is no prose: a directive (`eslint-disable`, `type: ignore`, `noqa`, `@ts-…`, an encoding), a
# licence line, commented-out code (it ends like a statement or opens like one) or a rule of dashes.
_NOT_PROSE_RE = re.compile(r"(?:eslint|prettier|type:|noqa|pylint|@ts-|-\*-|pragma|region|MARK:|SPDX|[Cc]opyright)|"
                           r"[;{}(=,]\s*$|^[\W_]+$|"
                           r"^\s*(?:if|for|return|import|from|const|let|var|def|class|print|console)\b")
TWO_WORDS_RE = re.compile(r"[A-Za-z]{2,}\W+[A-Za-z]{2,}")  # two words at least


def _opened_quote(line: str) -> str | None:
    """The triple quote a line leaves open (an odd count of it), else None."""
    return next((q for q in ('"""', "'''") if line.count(q) % 2), None)


def _note(text: str) -> str:
    """A comment's or docstring's prose, cleaned (`* `, `*/`, `-->` stripped), when it says something
    in words: at most 100 characters, else ""."""
    said = text.strip().lstrip("*!/#-< ").rstrip("*/-> ").strip()
    if not (8 <= len(said) <= 100) or not TWO_WORDS_RE.search(said) or _NOT_PROSE_RE.search(said):
        return ""
    return said


_INNER_MARK_RE = re.compile(r"[A-Z0-9_]")
_STRING_LITERAL_RE = re.compile(r"(['\"`])(?:\\.|(?!\1).)*\1")


def _notable(token: str) -> bool:
    """An identifier worth naming: a dotted chain, or one with inner capitals, digits or underscores."""
    if len(token) < 3 or token.startswith("$"):
        return False
    return "." in token or _INNER_MARK_RE.search(token, 1) is not None


def _identifiers(lines: tuple[str, ...] | list[str]) -> list[str]:
    """(A line without a quote has no literal to blank, and a token met before is not weighed again:
    most tokens of a hunk repeat.)"""
    out: dict[str, None] = {}
    for line in lines:
        if not line.strip() or _COMMENT_RE.match(line):
            continue
        quoted = "'" in line or '"' in line or "`" in line
        code = _STRING_LITERAL_RE.sub(" ", line) if quoted else line  # not the words inside string literals
        for token in _IDENT_RE.findall(code):
            if token not in out and _notable(token):
                out[token] = None
    return list(out)


def notable_identifiers(lines: tuple[str, ...] | list[str]) -> list[str]:
    """The identifiers worth naming in `lines` (calls on a receiver first), in order of appearance."""
    found = _identifiers(lines)
    return sorted(found, key=lambda t: 0 if "." in t else 1)


def swapped(removed: tuple[str, ...] | list[str], added: tuple[str, ...] | list[str]) -> tuple[list[str], list[str]]:
    """The identifiers an edit dropped and the ones it brought in (each found on one side only), in
    order of appearance: `Math.random` → `crypto.getRandomValues`, `Uint8Array`."""
    gone, new = _identifiers(removed), _identifiers(added)
    old_set, new_set = set(gone), set(new)
    old_roots = {t.split(".", 1)[0] for t in gone}
    new_roots = {t.split(".", 1)[0] for t in new}

    def rank(token: str, other_roots: set[str]) -> int:
        """APIs from a root the other side never used first (`crypto.getRandomValues` before
        `Math.ceil` when `Math.random` went), then types brought in (`Uint8Array`), then other
        calls, then plain names."""
        root = token.split(".", 1)[0]
        if "." in token and root not in other_roots:
            return 0
        if "." not in token and token[0].isupper():
            return 1  # a type or constructor brought in (`Uint8Array`)
        return 2 if "." in token else 3

    only_old = sorted((t for t in gone if t not in new_set), key=lambda t: rank(t, new_roots))
    only_new = sorted((t for t in new if t not in old_set), key=lambda t: rank(t, old_roots))
    return only_old, only_new


# A short string literal as written, quotes included (`'../dist-client'`): a path, key or message.
_SHORT_LITERAL_RE = re.compile(r"(['\"])(?:\\.|(?!\1)[^\\\n]){1,60}\1")
# What a statement opens with, up to its first call, string or assignment (`const clientDistDir`, `print`):
# two lines alike in their strings but opening otherwise are two statements (`return getRequiredElement<…>(`
# of a dropped helper and `const el = document.querySelector<…>(` of another), not one line changed.
_STATEMENT_HEAD_RE = re.compile(r"\s*([^('\"`=]*)")
LITERAL_PAIR_RATIO = 0.6  # a removed and an added line this alike are one line changed inside it
LITERAL_PAIR_LINES = 40  # lines of each side paired at most: bounded work on a rewrite


def _statement_head(line: str) -> str:
    return " ".join(_STATEMENT_HEAD_RE.match(line).group(1).split())  # type: ignore[union-attr]  # matches always


def swapped_literals(removed: tuple[str, ...] | list[str],
                     added: tuple[str, ...] | list[str]) -> tuple[list[str], list[str]]:
    """The string literals a line changed inside it lost and gained, in order, its other text alike: a
    path, key or message (`path.resolve(distDir, 'client')` → `path.resolve(__dirname, '../dist-client')`)
    the identifiers an edit swapped do not say. Lines that are not alike pair nothing: a stub's message
    replaced by an import is two changes, not one swapped string."""
    def literals(line: str) -> list[str]:
        if ("'" not in line and '"' not in line) or _COMMENT_RE.match(line):
            return []
        return [m.group(0) for m in _SHORT_LITERAL_RE.finditer(line)]

    gone: dict[str, None] = {}
    new: dict[str, None] = {}
    olds = [ln for ln in removed[:LITERAL_PAIR_LINES] if literals(ln)]
    news = [ln for ln in added[:LITERAL_PAIR_LINES] if literals(ln)]
    for old in olds:
        matcher = SequenceMatcher(None, "", old.strip(), autojunk=False)
        best, ratio = "", LITERAL_PAIR_RATIO
        for candidate in news:
            matcher.set_seq1(candidate.strip())
            if matcher.real_quick_ratio() >= ratio and matcher.quick_ratio() >= ratio and matcher.ratio() >= ratio:
                best, ratio = candidate, matcher.ratio()
        if best and best != old and _statement_head(best) == _statement_head(old):
            was, now = literals(old), literals(best)
            gone.update(dict.fromkeys(x for x in was if x not in now))
            new.update(dict.fromkeys(x for x in now if x not in was))
    return list(gone), list(new)


def is_comment_only(removed: tuple[str, ...] | list[str], added: tuple[str, ...] | list[str]) -> bool:
    """Every non-blank changed line is a comment: a change with no effect on behaviour."""
    changed = [ln for ln in (*removed, *added) if ln.strip()]
    return bool(changed) and all(_COMMENT_RE.match(ln) for ln in changed)


# What edit tools print when they refuse an edit because its old text is not in the file, each its way
# (Codex's apply_patch: "verification failed: Failed to find expected lines"). One list for the error
# memory's classifier and for the events: an export that does not mark the refusal as an error must
# not have the refused edit counted as applied.
EDIT_REFUSALS = ("No replacement was performed", "String to replace not found", "SearchReplaceNoExactMatch",
                 "did not appear verbatim", "failed to exactly match lines", "The SEARCH section must exactly match",
                 "Failed to find expected lines", "0 occurrences found for old_string")
# An edit tool's linter that turned the edit down (SWE-agent: "Your proposed edit has introduced new syntax
# error(s)", "This is how your edit would have looked if applied"): refused too, though not for its old text
EDIT_NOT_APPLIED = ("introduced new syntax error", "would have looked if applied")
# A refusal is the tool's own line: near the start of a line that is not a diff's (` `, `+`, `-`, `@@`), since
# an export may show the refused patch first and the tool's answer after it (SpecStory's Codex).
_REFUSED_RE = re.compile(r"^[^\s+\-@][^\n]{0,60}?(?:" + "|".join(map(re.escape, EDIT_REFUSALS + EDIT_NOT_APPLIED))
                         + ")", re.M)


def refused(result: str) -> bool:
    """Whether an edit tool's result says it refused the edit (its old text not found, or its linter
    turned the result down): in the tool's own words, not in the file's text or the patch it echoes (a
    fence with a language, Cline's `<final_file_content>`)."""
    if not any(w in result for w in EDIT_REFUSALS + EDIT_NOT_APPLIED):
        return False
    said = _TAGGED_FENCE_RE.sub(" ", result.split("<final_file_content", 1)[0])
    return _REFUSED_RE.search(said) is not None


# A fenced block with a language (```diff, ```python): the patch or the file's text, not the tool's answer
# (an exporter shows that in a plain fence: SpecStory's Codex puts the refusal there).
_TAGGED_FENCE_RE = re.compile(r"```[^\s`]+\n.*?(?:```|\Z)", re.DOTALL)


AFTER_EDIT = "after the edit"  # the place of a hunk that is an edit's text after it (`Hunk.shown`), old text unknown


_ANCHOR_CHARS = 4  # a line shorter than this once stripped (`}`, `)`, blank) anchors no alignment
VIEWS_TRIED = 3  # the latest views of a file's lines a snippet is compared with
VIEW_MARGIN = 60  # lines of a view beyond the snippet's numbers that take part (numbers move by an edit's size)


def shows_numbered(text: str) -> bool:
    """Whether an output shows lines by number (`numbered_lines` would find some): one search, no parse."""
    return ("→" in text or "\t" in text) and _NUMBERED_RE.search(text) is not None


@per_text(maxsize=256)  # parsed when a snippet asks, once per view, not on every read of a session
def numbered_lines(text: str) -> tuple[tuple[int, str], ...]:
    """(number, text) of each line an output shows by number (`  39→…`, or a number and a tab): a read, an
    edit's snippet."""
    return tuple((int(n), line) for n, line in _NUMBERED_RE.findall(text)) if ("→" in text or "\t" in text) else ()


def snippet_diff(change: FileChange, views: list[tuple[tuple[int, str], ...]]) -> FileChange | None:
    """An edit the export kept only as the result's numbered snippet of the file after it (`cat -n` of the
    lines around it), as the lines it removed and added: the snippet against the latest earlier view of
    those lines (`views`: the file's numbered reads and earlier snippets, oldest first, none older than a
    change made otherwise), aligned by their text (the numbers moved). Only the changes between the first
    and the last line both show; None when no view overlaps, or none differs. Why: "edited lines 39-54
    (around …)" names the place, not the change. Bounded: the latest `VIEWS_TRIED` views, each within
    `VIEW_MARGIN` lines of the snippet's numbers."""
    first = change.hunks[0] if len(change.hunks) == 1 else None
    if first is None or first.removed or first.added or not first.shown or not (first.context or "").startswith("lines "):
        return None
    numbers = re.findall(r"\d+", first.context or "")
    if len(numbers) < 2:
        return None
    low_no, high_no = int(numbers[0]) - VIEW_MARGIN - len(first.shown), int(numbers[1]) + VIEW_MARGIN + len(first.shown)
    after = list(first.shown)
    tried = 0
    for view in reversed(views):
        before = [text for n, text in view if low_no <= n <= high_no]
        if not before:
            continue
        tried += 1
        if tried > VIEWS_TRIED:
            return None
        # a brace or a blank line anchors nothing: matched alone, it pairs lines of another place
        matcher = SequenceMatcher(lambda ln: len(ln.strip()) < _ANCHOR_CHARS, before, after, autojunk=False)
        blocks = [b for b in matcher.get_matching_blocks()
                  if any(len(ln.strip()) >= _ANCHOR_CHARS for ln in after[b.b:b.b + b.size])]
        if sum(b.size for b in blocks) < max(2, len(after) // 3):
            continue  # another part of the file
        low, high = blocks[0].b, blocks[-1].b + blocks[-1].size  # in both: what lies outside one side is unseen
        a_low, a_high = blocks[0].a, blocks[-1].a + blocks[-1].size
        removed: list[str] = []
        added: list[str] = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal" and low <= j1 and j2 <= high and a_low <= i1 and i2 <= a_high:
                removed += before[i1:i2]
                added += after[j1:j2]
        if not (removed or added) or not any(ln.strip() for ln in removed + added):
            return None  # the view was already of the file after the edit
        return FileChange(change.path, (Hunk(tuple(removed), tuple(added), first.context, shown=first.shown),))
    return None


def result_changes(call: ToolCall, result: str) -> list[FileChange]:
    """A write or edit whose arguments carry no payload (an exporter kept only the result): what the
    result shows it did — a written file's content echoed in a fenced block, or an editor's
    "All occurrences of 'a' were successfully replaced with 'b'"."""
    path = call.path or ""
    if not path or not result:
        return []
    m = _REPLACED_ALL_RE.search(result)
    if m:
        return [FileChange(path, (Hunk((m.group(1),), (m.group(2),) if m.group(2) else (), None, fragment=True),))]
    snippet = _SNIPPET_RE.search(result) if "cat -n" in result else None
    if snippet:
        numbered = _NUMBERED_RE.findall(snippet.group(1))
        if numbered:
            where = f"lines {numbered[0][0]}-{numbered[-1][0]}"
            return [FileChange(path, (Hunk((), (), where, shown=tuple(text for _, text in numbered)),))]
    if "```diff" in result:
        shown = _diff_in_result(path, result)
        if shown:
            return shown
    shown = shown_text(result)
    if shown and call.kind == "write":
        return [FileChange(path, (Hunk((), _lines(shown)),), whole=True)]
    if shown:  # an edit's text after it, its old text unknown: what the text holds, not what it added
        return [FileChange(path, (Hunk((), (), AFTER_EDIT, shown=_lines(shown)),))]
    if call.kind == "write":
        blocks = [b.group(2) for b in _FENCE_LINES.finditer(result)]
        body = max(blocks, key=len, default="")
        if body.strip():
            return [FileChange(path, (Hunk((), _lines(body)),), whole=True)]
    return []


# An exporter's labelled block (`Parameters:`, `Result:`, `Additional data:` then a fence): the tool's
# metadata, not the file's text.
# The label is one to three capitalised words alone on its line and the block is JSON or bare, as exporters
# write them: prose ending in a colon ("The file now reads:") introduces the file's text, not metadata.
_LABELLED_FENCE_RE = re.compile(r"^[A-Z][a-z]*(?: [A-Za-z]+){0,2}:[ \t]*\n+```(?:json)?[ \t]*\n.*?^```[ \t]*$",
                                re.MULTILINE | re.DOTALL)
_LANG_FENCE_RE = re.compile(r"^```([\w+#.-]+)[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
# The fence patterns searched by their line breaks (`literal_heads.LinePattern`), not tried at every position of a result.
_FENCE_LINES = LinePattern(_FENCE_RE)
_DIFF_FENCE_LINES = LinePattern(_DIFF_FENCE_RE)
_LABELLED_FENCE_LINES = LinePattern(_LABELLED_FENCE_RE)
_LANG_FENCE_LINES = LinePattern(_LANG_FENCE_RE)
# Block languages that say the block is not a file's text: a diff (`_diff_in_result` reads it), a tool's output.
_NOT_FILE_TEXT = frozenset({"diff", "patch", "text", "txt", "plaintext", "console", "output", "log", "terminal",
                            "shell-session", "ansi"})
# A JSON result's field holding the text an edit put in its file (Copilot Chat's `textEditContent`).
_EDIT_TEXT_KEYS = ("textEditContent",)


@per_text(256)
def shown_text(result: str) -> str:
    """The text an edit put in its file when its export kept it only in the result: a JSON result's
    `textEditContent` (Copilot Chat; its `content` field holds the same text in a fence and keeps the
    breaks between a multi-replace's pieces), else the one code block with a language (not a diff, not
    the exporter's labelled metadata) the result shows. New text only: such exports keep no old text.
    Memoized: the change's hunks, its file and its old text are each found from it."""
    if any(key in result for key in _EDIT_TEXT_KEYS):
        for block in _FENCE_LINES.finditer(result):
            found = _json_edit_text(block.group(2))
            if found:
                return found
    if "```" not in result:
        return ""
    bare = without_labelled_blocks(result)
    fences = [f for f in _LANG_FENCE_LINES.finditer(bare) if f.group(1).lower() not in _NOT_FILE_TEXT]
    return fences[0].group(2).rstrip("\n") if len(fences) == 1 and fences[0].group(2).strip() else ""


_ANCHOR_MIN = 8  # a shorter line (`}`, `end`, `return`) is no evidence of where a text sits


def anchored_change(path: str, content: str, new: str) -> FileChange | None:
    """A replacement whose old text the export dropped (`shown_text`), found in the file's known
    `content`: a replacing text keeps lines around its change, so the old text is the file's span
    from the first to the last of its lines that the new text holds and the file holds exactly once
    (widened to the new text's outer lines, `_edge`); lines the rewrite moved inside it are its change.
    None when fewer than two such lines are found or the span is far longer than the new text (the
    pieces of a multi-replace, not one place)."""
    lines, new_lines = content.splitlines(), new.splitlines()
    stripped = [ln.strip() for ln in lines]  # once: a file's lines are counted and indexed
    counts = Counter(stripped)
    where = {ln: i for i, ln in enumerate(stripped) if counts[ln] == 1 and len(ln) >= _ANCHOR_MIN}
    anchors = [(j, where[key]) for j, ln in enumerate(new_lines) if (key := ln.strip()) in where]
    if len(anchors) < 2:
        return None
    (j0, a), (j1, b) = min(anchors, key=lambda x: x[1]), max(anchors, key=lambda x: x[1])
    a = _edge(lines, [ln.strip() for ln in reversed(new_lines[:j0])], a, -1)
    b = _edge(lines, [ln.strip() for ln in new_lines[j1 + 1:]], b, 1)
    if b - a + 1 > 2 * len(new_lines) + 20:
        return None
    old = "\n".join(lines[a:b + 1])
    found = [h for h in pair_hunks(old, new) if not h.empty]
    return FileChange(path, tuple(found)) if found else None


def _edge(lines: list[str], beyond: list[str], at: int, step: int) -> int:
    """Where the old text ends past its last anchor `at` (`step` 1; its start before the first with -1),
    given the new text's lines `beyond` that anchor, nearest first: a text ends on context it kept (a
    closing `}`), so at the nearest line of the file equal to the new text's outermost line, within
    about as many lines as the new text has there (further when the line inside it matches too); else
    at the anchor, widened by the lines both texts share next to it, or that the edit changed in place
    (`_reworded`: a signature given a return type is the old line, not one to keep beside the new)."""
    if not beyond:
        return at
    outer, inner = beyond[-1], beyond[-2] if len(beyond) > 1 else None
    for i in range(at + step, at + step * (len(beyond) + 21), step):
        if not 0 <= i < len(lines):
            break
        if lines[i].strip() != outer:
            continue
        near = abs(i - at) <= len(beyond) + 2
        if near or inner is None or (0 <= i - step < len(lines) and lines[i - step].strip() == inner):
            return i
    reworded = False  # one line the edit changed in place, the outermost it kept
    while beyond and 0 <= at + step < len(lines):
        line = lines[at + step].strip()
        if line != beyond[0]:
            if reworded or not _reworded(line, beyond[0]):
                break
            reworded = True
        at, beyond = at + step, beyond[1:]
    return at


_REWORDED_RATIO = 0.75  # a line the edit changed in place keeps most of its characters
_REWORDED_CHARS = 400  # longer lines are not compared (bounded work)


def _reworded(old: str, new: str) -> bool:
    """Whether `old` is `new` as it read before the edit added to it in place (a signature given a return
    type, a call given an argument): both long enough to be evidence (`_ANCHOR_MIN`), mostly the same
    characters, and nothing of `old` replaced or dropped (`import { parseA }` is no earlier `import { parseZ }`:
    a new line beside it)."""
    if not (_ANCHOR_MIN <= len(old) <= _REWORDED_CHARS and _ANCHOR_MIN <= len(new) <= _REWORDED_CHARS):
        return False
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    return matcher.ratio() >= _REWORDED_RATIO and all(op in ("equal", "insert") for op, *_ in matcher.get_opcodes())


def replay(content: str, hunks: tuple[Hunk, ...]) -> str | None:
    """`content` after an edit whose old/new pair its hunks carry (`Hunk.source`); None when the edit
    has no pair or its old text is not in `content` (the file's text is no longer known)."""
    pairs = [h.source for h in hunks if h.source is not None]
    if not pairs:
        return None
    for old, new in pairs:
        at = content.find(old) if old else -1
        if at < 0:
            return None
        content = content[:at] + new + content[at + len(old):]
    return content


def without_labelled_blocks(text: str) -> str:
    """`text` without an exporter's labelled blocks (`Parameters:` then a fenced block): what is left
    is the tool's output and the code it showed."""
    return _LABELLED_FENCE_LINES.removed(text) if ":" in text and "```" in text else text


def labelled_blocks_out(text: str) -> str:
    """`text` with each exporter's labelled block (`Parameters:`, `Additional data:`, `Result:` then a JSON
    fence) replaced by the output its JSON holds (a non-empty `content` or `output` string), else removed:
    Copilot Chat's export puts a call's metadata and its (mostly empty) output in such blocks."""
    if ":" not in text or "```" not in text:
        return text
    return _LABELLED_FENCE_LINES.replaced(text, lambda block: _json_output(fence.group(2))
                                          if (fence := _FENCE_RE.search(block)) else "")


def _json_object(text: str) -> dict:
    """The JSON object `text` holds; empty when it holds none (not JSON, or another value)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _json_output(text: str) -> str:
    """A labelled JSON block's output: its `content` or `output` string when not empty."""
    value = _json_object(text)
    return next((v for k in ("content", "output") if isinstance(v := value.get(k), str) and v.strip()), "")


def _json_edit_text(text: str) -> str:
    value = _json_object(text)
    fenced = value.get("content")
    inner = _LANG_FENCE_LINES.search(fenced) if isinstance(fenced, str) else None
    if inner and inner.group(2).strip():
        return inner.group(2).rstrip("\n")
    found = next((value[k] for k in _EDIT_TEXT_KEYS if isinstance(value.get(k), str)), "")
    return found.rstrip("\n") if found.strip() else ""


def same_file(a: str, b: str) -> bool:
    """Two spellings of one file: one path ends with the other, at a folder boundary (`src/x.py`,
    `./src/x.py` and `/repo/src/x.py`); two `index.ts` of two folders are two files."""
    x, y = (p.replace("\\", "/").removeprefix("./").strip("/") for p in (a, b))
    if len(x) < len(y):
        x, y = y, x
    return x == y or x.endswith("/" + y)


# The label an exporter puts over a new file's diff, naming it (SpecStory's Codex export: "**Add: `docs/x.md`**")
_NEW_FILE_RE = re.compile(r"^\W*(?:add|create|new file)\w*\W*`([^`]+)`\W*$", re.IGNORECASE)


def _labelled_new(before: str, path: str) -> bool:
    """Whether the last line above a diff block labels it as this file's creation (not an earlier line, nor
    another file's label)."""
    last = next((ln for ln in reversed(before.splitlines()) if ln.strip()), "")
    m = _NEW_FILE_RE.match(last.strip())
    return m is not None and same_file(m.group(1), path)


def _diff_in_result(path: str, result: str) -> list[FileChange]:
    """The hunks of the ```diff blocks an exporter shows as an edit's result (SpecStory's Cursor and
    Codex exports: `@@ -10,4 +10,15 @@` then the lines), for the call's own file (a block that names
    its files keeps those of the call's). SpecStory writes a space after each line's marker (`+ text`,
    `  context`): when every marked and context line has it, it is the exporter's, not the code's."""
    hunks: list[Hunk] = []
    for m in _DIFF_FENCE_LINES.finditer(result):
        lines = m.group(1).splitlines()
        headers = ("+++", "---")
        marked = [ln for ln in lines if ln[:1] in ("+", "-") and not ln.startswith(headers)]
        context = [ln for ln in lines if ln[:1] == " " and len(ln) > 1]
        spaced = bool(marked) and all(len(ln) == 1 or ln[1] == " " for ln in marked) and all(
            ln[1] == " " for ln in context)
        if spaced:
            lines = [ln[0] + ln[2:] if ln[:1] in ("+", "-", " ") and len(ln) > 1 and not ln.startswith(headers) else ln
                     for ln in lines]
        named = any(ln.startswith("+++ ") for ln in lines)
        if not named and lines and all(ln[:1] == "+" for ln in lines) and _labelled_new(result[:m.start()], path):
            # "**Add: `a.md`**" over a block of additions only, no hunk header: the file written from nothing
            return [FileChange(path, (Hunk((), tuple(ln[1:] for ln in lines)),), whole=True)]
        body = "\n".join(lines) if named else "+++ b/" + path + "\n" + "\n".join(lines)
        for change in parse_unified(body):
            if not named or same_file(change.path, path):
                hunks.extend(change.hunks)
    return [FileChange(path, tuple(hunks))] if hunks else []
