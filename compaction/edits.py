"""What an edit changed: the removed and added lines of one tool call, per file, from whichever
payload the agent sent (old/new strings, MultiEdit lists, apply_patch envelopes, unified diffs,
aider/Cline SEARCH/REPLACE blocks, `sed -i` expressions, a heredoc or a written file's content).

Why a module of its own: events attach these hunks to their file events, the change-record source
renders them and the error memory names the key change of the edit that ended an error; all three
read edit payloads the same way. Best effort and pure: nothing here executes or opens a file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from compaction.model import ToolCall
from compaction.shell import first_word, split_commands, words

_OLD_KEYS = ("old_string", "old_str", "old_text", "search", "old", "original", "find")
_NEW_KEYS = ("new_string", "new_str", "new_text", "replace", "new", "replacement", "updated")
_CONTENT_KEYS = ("content", "file_text", "contents", "text", "code")
_PATCH_KEYS = ("patch", "diff", "input", "raw")
_SEARCH_REPLACE_RE = re.compile(
    r"^<{5,9} SEARCH\s*\n(.*?)^={5,9}\s*\n(.*?)^>{5,9} REPLACE\s*$", re.MULTILINE | re.DOTALL)
_DEF_RE = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\(\w+\))?\s+)?(?:async\s+)?(?:static\s+)?"
    r"(?:def|class|function|fn|func|interface|struct|enum|trait|impl|type|module|actor|primitive)\s+"
    r"([A-Za-z_$][\w$]*)")
_METHOD_RE = re.compile(
    r"^\s*(?:(?:public|private|protected|static|final|override|synchronized|abstract)\s+)+"
    r"(?:<[^>]*>\s*)?[\w<>\[\], ?.]+\s+([A-Za-z_]\w*)\s*\([^;]*$")
_HUNK_HEADER_RE = re.compile(r"^@@[^@]*@@\s*(.*)$")
_SED_SUBST_RE = re.compile(r"^(\d+(?:,\d+)?|/[^/]*/)?\s*s(.)(.*?)(?<!\\)\2(.*?)(?<!\\)\2([gIip0-9]*)$", re.DOTALL)
_SED_LINE_OP_RE = re.compile(r"^(\d+(?:,\d+)?|/[^/]*/)\s*([dia])\\?\s*(.*)$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Hunk:
    """One change of one file: lines removed, lines added, and where (the enclosing definition a
    diff's `@@` header names, when it names one)."""

    removed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    context: str | None = None
    fragment: bool = False  # a substitution inside lines (`sed s/old/new/`), not whole lines
    deletes_matching: str | None = None  # `sed '/pat/d'`: every line holding this text goes
    every: bool = True  # a substitution: every occurrence in the line (`s///g`), else the first only

    @property
    def empty(self) -> bool:
        return not (self.removed or self.added or self.deletes_matching)


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
    """An old/new pair as a hunk: lines both sides share at the start and end are context, not change."""
    start = 0
    while start < len(old) and start < len(new) and old[start] == new[start]:
        start += 1
    end = 0
    while end < len(old) - start and end < len(new) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    context = next((m.group(1) for line in reversed(old[:start]) if (m := definition(line))), None)
    return Hunk(old[start:len(old) - end], new[start:len(new) - end], context)


def definition(line: str) -> re.Match[str] | None:
    """The definition a line opens (`def f`, `class C`, `function g`, a Java method), if any."""
    return _DEF_RE.match(line) or _METHOD_RE.match(line)


def definitions(lines: tuple[str, ...] | list[str]) -> list[str]:
    """The names of the definitions opened in `lines`, in order, without repeats."""
    out: list[str] = []
    for line in lines:
        m = definition(line)
        if m and m.group(1) not in out and m.group(1) not in {"if", "for", "while", "return", "new", "else"}:
            out.append(m.group(1))
    return out


def parse_unified(text: str) -> list[FileChange]:
    """Hunks of a unified diff (`--- a/x` / `+++ b/x` / `@@ … @@ ctx`) or of a Codex
    `*** Begin Patch` envelope (`*** Update File: x` / `@@ ctx`), per file, in order."""
    out: list[FileChange] = []
    path: str | None = None
    hunks: list[Hunk] = []
    removed: list[str] = []
    added: list[str] = []
    context: str | None = None
    whole = False

    def close_hunk() -> None:
        nonlocal removed, added
        if removed or added:
            hunks.append(Hunk(tuple(removed), tuple(added), context))
        removed, added = [], []

    def close_file() -> None:
        nonlocal hunks, whole
        close_hunk()
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
            context = None
            continue
        if line.startswith(("--- ", "diff --git", "index ", "*** Begin Patch", "*** End Patch", "*** Delete File")):
            if line.startswith(("diff --git", "*** Delete File")):
                close_file()
                path = None
            continue
        m = _HUNK_HEADER_RE.match(line)
        if m or line.startswith("@@"):
            close_hunk()
            header = (m.group(1) if m else line[2:]).strip()
            found = definition(header) if header else None
            context = found.group(1) if found else (header or None)
            continue
        if path is None:
            continue
        if line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
        elif line.startswith("-") and not line.startswith("---"):
            removed.append(line[1:])
        elif removed or added:
            close_hunk()
    close_file()
    return out


def parse_search_replace(text: str) -> list[Hunk]:
    """aider's and Cline's `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks."""
    return [_trim_common(_lines(m.group(1)), _lines(m.group(2))) for m in _SEARCH_REPLACE_RE.finditer(text)]


def sed_hunks(command: str) -> list[FileChange]:
    """`sed -i 's/old/new/' file` as hunks: the substitution's pattern and replacement, per file."""
    return list(_sed_hunks(command))


@lru_cache(maxsize=4096)  # events and the error memory's solutions read the same command lines
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
            for expr in script.split(";") if _SED_SUBST_RE.match(script) is None else [script]:
                expr = expr.strip()
                m = _SED_SUBST_RE.match(expr)
                if m:
                    old, new = m.group(3).replace("\\" + m.group(2), m.group(2)), m.group(4)
                    where = f"line {m.group(1)}" if m.group(1) and m.group(1)[0].isdigit() else None
                    hunks.append(Hunk((old,), (new,) if new else (), where, fragment=True, every="g" in m.group(5)))
                    continue
                op = _SED_LINE_OP_RE.match(expr)
                if op:
                    verb = {"d": "delete", "i": "insert", "a": "append"}[op.group(2)]
                    text = op.group(3).replace("\\n", "\n")
                    address = op.group(1)
                    if verb != "delete":
                        hunks.append(Hunk((), _lines(text), f"{verb} at {address}"))
                    elif address.startswith("/"):
                        literal = re.sub(r"\\(.)", r"\1", address.strip("/"))
                        hunks.append(Hunk((), (), None, deletes_matching=literal))
                    else:
                        hunks.append(Hunk((f"<line(s) {address}>",), (), None))
        for f in files:
            if hunks:
                out.append(FileChange(f, tuple(hunks)))
    return tuple(out)


def heredoc_writes(command: str) -> list[FileChange]:
    """`cat > f <<'EOF' … EOF` (and `tee`): the file's whole new content."""
    return list(_heredoc_writes(command))


@lru_cache(maxsize=1024)
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
    for key in _PATCH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and ("\n@@" in value or "*** Begin Patch" in value or value.startswith("@@")):
            out += parse_unified(value if "\n+++ " in value or "*** " in value or not path
                                 else f"+++ b/{path}\n{value}")
        elif isinstance(value, str) and "SEARCH" in value and _SEARCH_REPLACE_RE.search(value) and path:
            out.append(FileChange(path, tuple(parse_search_replace(value))))
    if out:
        return out
    edits = args.get("edits")
    if isinstance(edits, list) and path:
        hunks = [_trim_common(_lines(_first(e, _OLD_KEYS)), _lines(_first(e, _NEW_KEYS)))
                 for e in edits if isinstance(e, dict)]
        return [FileChange(path, tuple(h for h in hunks if not h.empty))]
    old, new = _first(args, _OLD_KEYS), _first(args, _NEW_KEYS)
    if path and (isinstance(old, str) or isinstance(new, str)) and call.kind != "write":
        hunk = _trim_common(_lines(old), _lines(new))
        if isinstance(args.get("insert_line"), int) and not old:
            hunk = Hunk((), _lines(new), f"after line {args['insert_line']}")
        return [FileChange(path, (hunk,))] if not hunk.empty else []
    content = _first(args, _CONTENT_KEYS)
    if path and isinstance(content, str) and call.kind in ("write", "edit"):
        return [FileChange(path, (Hunk((), _lines(content)),), whole=True)]
    if command and ("\n@@" in command or "*** Begin Patch" in command) and ("apply" in command or "patch" in command):
        return parse_unified(command)
    if command and "sed" in command:
        out += sed_hunks(command)
    if command and "<<" in command:
        out += heredoc_writes(command)
    return out


def _first(args: dict, keys: tuple[str, ...]) -> object:
    for key in keys:
        if key in args and isinstance(args[key], str):
            return args[key]
    return None
