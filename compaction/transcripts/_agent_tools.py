"""Shared pieces for the agent-CLI loaders (Claude Code, Codex, Gemini CLI, Anthropic/Cline, OpenAI).

Why one module: every agent names the same few operations differently (Bash / shell / run_shell_command
/ execute_command), and events downstream only want ToolKind + command + path. The tables and the
small parsers (apply_patch paths, exit codes in tool output, todo lists) live here once.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from compaction.model import Message, ToolCall, ToolKind, TranscriptError
from compaction.transcripts._io import read_text
from compaction.transcripts.arg_names import ArgRole, arg_text, arg_value

# Tool name (lower-cased) -> kind. Covers Claude Code, Codex, Gemini CLI, Cline, OpenHands-like and
# common OpenAI function names; unknown names are OTHER.
KIND_BY_NAME: dict[str, str] = {
    # shell
    "bash": ToolKind.SHELL, "shell": ToolKind.SHELL, "local_shell": ToolKind.SHELL,
    "exec_command": ToolKind.SHELL, "shell_command": ToolKind.SHELL, "container.exec": ToolKind.SHELL,
    "run_shell_command": ToolKind.SHELL, "execute_command": ToolKind.SHELL, "run_command": ToolKind.SHELL,
    "run": ToolKind.SHELL, "terminal": ToolKind.SHELL, "execute_bash": ToolKind.SHELL, "exec": ToolKind.SHELL,
    "run_terminal_cmd": ToolKind.SHELL, "run_in_terminal": ToolKind.SHELL,
    # read
    "read": ToolKind.READ, "read_file": ToolKind.READ, "read_many_files": ToolKind.READ,
    "view_file": ToolKind.READ, "open_file": ToolKind.READ, "cat": ToolKind.READ, "notebookread": ToolKind.READ,
    # write
    "write": ToolKind.WRITE, "write_file": ToolKind.WRITE, "write_to_file": ToolKind.WRITE,
    "create_file": ToolKind.WRITE,
    # edit
    "edit": ToolKind.EDIT, "multiedit": ToolKind.EDIT, "notebookedit": ToolKind.EDIT, "replace": ToolKind.EDIT,
    "replace_in_file": ToolKind.EDIT, "apply_patch": ToolKind.EDIT, "apply_diff": ToolKind.EDIT,
    "edit_file": ToolKind.EDIT, "str_replace": ToolKind.EDIT, "insert_content": ToolKind.EDIT,
    "search_and_replace": ToolKind.EDIT, "str_replace_based_edit_tool": ToolKind.EDIT,
    # search
    "grep": ToolKind.SEARCH, "glob": ToolKind.SEARCH, "ls": ToolKind.SEARCH, "search_files": ToolKind.SEARCH,
    "list_files": ToolKind.SEARCH, "search_file_content": ToolKind.SEARCH, "grep_search": ToolKind.SEARCH,
    "list_directory": ToolKind.SEARCH, "list_dir": ToolKind.SEARCH, "find_files": ToolKind.SEARCH,
    "file_search": ToolKind.SEARCH, "codebase_search": ToolKind.SEARCH, "search": ToolKind.SEARCH,
    "list_code_definition_names": ToolKind.SEARCH,
    # todo
    "todowrite": ToolKind.TODO, "update_plan": ToolKind.TODO, "write_todos": ToolKind.TODO,
    "todo_write": ToolKind.TODO, "task_tracking": ToolKind.TODO, "task_progress": ToolKind.TODO,
    "update_todo_list": ToolKind.TODO, "manage_todo_list": ToolKind.TODO,
    # Roo / Kilo and Copilot Chat (as SpecStory names them)
    "simple_read_file": ToolKind.READ, "copilot_readfile": ToolKind.READ, "copilot_createfile": ToolKind.WRITE,
    "copilot_applypatch": ToolKind.EDIT, "copilot_replacestring": ToolKind.EDIT,
    "copilot_multireplacestring": ToolKind.EDIT, "copilot_inserteditintofile": ToolKind.EDIT,
    "copilot_findtextinfiles": ToolKind.SEARCH, "copilot_findfiles": ToolKind.SEARCH,
    "copilot_listdirectory": ToolKind.SEARCH, "copilot_searchcodebase": ToolKind.SEARCH,
}


def looks_jsonl(head: str) -> bool:
    """True when the head is JSON Lines: a complete object on the first line and another after it."""
    first, _, rest = head.lstrip().partition("\n")
    if not first.startswith("{") or not rest.lstrip().startswith("{"):
        return False
    try:
        return isinstance(json.loads(first), dict)
    except (ValueError, RecursionError):
        return False


def kind_of(name: str) -> str:
    if not isinstance(name, str):  # a wrong-shaped record (found by fuzzing)
        return ToolKind.OTHER
    return KIND_BY_NAME.get(name.lower(), ToolKind.OTHER)


def join_command(value: Any) -> str | None:
    """A command as one line: `["bash", "-lc", "x"]` -> `x`; other argv lists are shell-quoted."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        argv = list(value)
        if len(argv) >= 3 and argv[0].rsplit("/", 1)[-1] in {"bash", "sh", "zsh"} and argv[1] in {"-lc", "-c", "-ic"}:
            return argv[2] if len(argv) == 3 else " ".join([argv[2], *map(shlex.quote, argv[3:])])
        if argv and argv[0] == "apply_patch" and len(argv) == 2:
            return "apply_patch <<'PATCH'\n" + argv[1] + "\nPATCH"
        return " ".join(shlex.quote(a) for a in argv)
    return str(value)


def first_path(args: dict[str, Any]) -> str | None:
    """The file a call is about: its first non-empty path argument (`arg_names`), else the first of a path list."""
    value = arg_text(args, ArgRole.PATH, blank=False)
    if value is not None:
        return value
    paths = args.get("paths") or args.get("file_paths")
    if isinstance(paths, list) and paths and isinstance(paths[0], str):
        return paths[0]
    return None


_PATCH_FILE = re.compile(r"^\*\*\* (Update|Add|Delete) File: (.*\S)\s*$|^\*\*\* Move to: (.*\S)\s*$", re.M)


def patch_paths(text: str) -> list[str]:
    """Files named in a Codex `*** Begin Patch` envelope, in order, without duplicates."""
    out: list[str] = []
    for m in _PATCH_FILE.finditer(text):
        p = (m.group(2) or m.group(3) or "").strip()
        if p and p not in out:
            out.append(p)
    return out


_EXIT_PATTERNS = [
    re.compile(r"^[^\S\n]*(?:Error:\s*)?Exit code:?\s*(-?\d+)\b", re.M | re.I),
    re.compile(r"Process exited with code (-?\d+)", re.I),
    re.compile(r"^[^\S\n]*Exit Code:\s*(-?\d+)\b", re.M),
    re.compile(r"exited with (?:exit )?code (-?\d+)", re.I),
]


def exit_code_in(text: str) -> int | None:
    """An exit code stated in tool output text ("Exit code 1", "Process exited with code 0"), else None."""
    if not text:
        return None
    head = text[:4000]
    tail = text[-2000:] if len(text) > 4000 else ""
    for pat in _EXIT_PATTERNS:
        m = pat.search(head) or (pat.search(tail) if tail else None)
        if m:
            return int(m.group(1))
    return None


def exit_code_for(name: str | None, text: str) -> int | None:
    """An exit code stated in the output of a shell-like (or unknown) tool; file tools' outputs are file
    contents, where "Exit code 1" is just text."""
    if name is not None and kind_of(name) not in (ToolKind.SHELL, ToolKind.OTHER):
        return None
    return exit_code_in(text)


_STATUS = {"pending": "pending", "in_progress": "in_progress", "in-progress": "in_progress", "completed": "completed",
           "done": "completed", "complete": "completed", "cancelled": "cancelled", "canceled": "cancelled"}


def normalise_todos(items: Any) -> list[dict[str, Any]]:
    """Todo items with at least `content` and `status` (raw keys kept; missing ones added)."""
    out: list[dict[str, Any]] = []
    if not isinstance(items, list):
        return out
    for item in items:
        if isinstance(item, str):
            out.append({"content": item, "status": "pending"})
            continue
        if not isinstance(item, dict):
            continue
        todo = dict(item)
        if "content" not in todo:
            todo["content"] = str(item.get("description") or item.get("step") or item.get("title") or item.get("text") or "")
        todo["status"] = _STATUS.get(str(item.get("status", "pending")).lower(), str(item.get("status", "pending")))
        out.append(todo)
    return out


_CHECKBOX = re.compile(r"^[^\S\n]*[-*]\s*\[([ xX])\]\s*+(.*\S)\s*$", re.M)


def checklist_todos(text: str) -> list[dict[str, Any]]:
    """`- [x] done` / `- [ ] open` markdown checklists (Cline's task_progress) as todo items."""
    return [{"content": m.group(2), "status": "completed" if m.group(1) in "xX" else "pending"}
            for m in _CHECKBOX.finditer(text)]


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Function-call arguments: a JSON string (OpenAI, Codex) or an object; anything else kept under `raw`."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):  # ValueError: also the int digit limit (fuzzing)
            return {"raw": raw}
        return value if isinstance(value, dict) else {"raw": value}
    if raw is None:
        return {}
    return {"raw": raw}


def make_call(name: str, args: dict[str, Any], call_id: str | None = None, kind: str | None = None) -> ToolCall:
    """Normalise one tool call: kind from the name, command for shell tools, path for file tools.

    `str_replace_editor`-style tools carry the operation in `command` (view/create/str_replace), and a
    shell tool whose command is an apply_patch envelope is an edit.
    """
    if not isinstance(name, str):  # a wrong-shaped record (found by fuzzing): keep the call, not the crash
        name = "unknown" if name is None else str(name)
    if not isinstance(args, dict):
        args = {"input": args}
    if call_id is not None and not isinstance(call_id, str):
        call_id = str(call_id)
    kind = kind or kind_of(name)
    command: str | None = None
    path: str | None = None
    lname = name.lower()
    if lname in {"str_replace_editor", "str_replace_based_edit_tool"} and isinstance(args.get("command"), str):
        op = args["command"]
        kind = {"view": ToolKind.READ, "create": ToolKind.WRITE}.get(op, ToolKind.EDIT)
        return ToolCall(name=name, arguments=args, id=call_id, kind=kind, path=first_path(args))
    if kind == ToolKind.SHELL:
        command = join_command(arg_value(args, ArgRole.COMMAND, object))
        if command and "*** Begin Patch" in command:
            paths = patch_paths(command)
            args = {**args, "paths": paths}
            kind = ToolKind.EDIT
            path = paths[0] if paths else None
    elif kind == ToolKind.EDIT and ("*** Begin Patch" in str(args.get("input", "")) or "*** Begin Patch" in str(args.get("patch", ""))):
        paths = patch_paths(str(args.get("input") or args.get("patch")))
        args = {**args, "paths": paths}
        path = paths[0] if paths else None
    elif kind == ToolKind.TODO:
        todos = args.get("todos")
        if todos is None:
            todos = args.get("plan") if isinstance(args.get("plan"), list) else None
        if todos is None and isinstance(args.get("raw"), str):
            todos = checklist_todos(args["raw"])
        args = {**args, "todos": normalise_todos(todos or [])}
    if path is None and kind in {ToolKind.READ, ToolKind.WRITE, ToolKind.EDIT, ToolKind.SEARCH}:
        path = first_path(args)
    return ToolCall(name=name, arguments=args, id=call_id, kind=kind, command=command, path=path)


def as_text(value: Any) -> str:
    """Tool output of any shape as text (strings kept, structures as compact JSON)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def renumber(messages: list[Message]) -> list[Message]:
    for i, msg in enumerate(messages):
        msg.index = i
    return messages


# --- JSON documents with line numbers -----------------------------------------------------------

_WS = " \t\r\n"


class _Lines:
    """Offset -> 1-based line, incrementally (offsets are visited in increasing order)."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line = text, 0, 1

    def at(self, offset: int) -> int:
        if offset >= self.pos:
            self.line += self.text.count("\n", self.pos, offset)
        else:
            self.line = self.text.count("\n", 0, offset) + 1
        self.pos = offset
        return self.line


def _skip_ws(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in _WS:
        i += 1
    return i


def load_json_items(path: str, keys: tuple[str, ...] = ("messages",)) -> tuple[dict[str, Any] | None, list[tuple[int, Any]]]:
    """Parse a JSON list, or an object whose list sits under one of `keys`, keeping each item's line.

    Returns (the top-level object without the list, or None for a bare list; [(line, item), ...]).
    Syntax errors and wrong shapes are TranscriptErrors naming the line. Whole-document JSON cannot be
    streamed item by item cheaply, so the text is read once and decoded element by element.
    """
    text = read_text(path)
    if not text.strip():
        raise TranscriptError(path, "empty file")
    dec = json.JSONDecoder()
    lines = _Lines(text)

    def decode(i: int) -> tuple[Any, int]:
        try:
            return dec.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise TranscriptError(path, f"invalid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
        except RecursionError:
            raise TranscriptError(path, "JSON nested too deeply", lines.at(i)) from None
        except ValueError as exc:  # an integer beyond Python's digit limit (found by fuzzing)
            raise TranscriptError(path, f"invalid JSON: {exc}", lines.at(i)) from None

    def expect_char(i: int, chars: str, what: str) -> int:
        i = _skip_ws(text, i)
        if i >= len(text):
            raise TranscriptError(path, f"invalid JSON: unexpected end of file, expected {what}", lines.at(len(text)))
        if text[i] not in chars:
            raise TranscriptError(path, f"invalid JSON: expected {what} (column {i - text.rfind(chr(10), 0, i)})",
                                  lines.at(i))
        return i

    def walk_array(i: int) -> tuple[list[tuple[int, Any]], int]:
        items: list[tuple[int, Any]] = []
        i = _skip_ws(text, i + 1)
        if i < len(text) and text[i] == "]":
            return items, i + 1
        while True:
            i = _skip_ws(text, i)
            if i >= len(text):
                raise TranscriptError(path, "invalid JSON: unexpected end of file inside a list", lines.at(len(text)))
            line = lines.at(i)
            value, i = decode(i)
            items.append((line, value))
            i = expect_char(i, ",]", "',' or ']'")
            if text[i] == "]":
                return items, i + 1
            i += 1

    start = _skip_ws(text, 0)
    top: dict[str, Any] | None = None
    items: list[tuple[int, Any]] | None = None
    if text[start] == "[":
        items, end = walk_array(start)
    elif text[start] == "{":
        top = {}
        i = _skip_ws(text, start + 1)
        if i < len(text) and text[i] == "}":
            end = i + 1
        else:
            while True:
                i = expect_char(i, '"', "a key")
                key, i = decode(i)
                i = expect_char(i, ":", "':'") + 1
                i = _skip_ws(text, i)
                if key in keys and items is None and i < len(text) and text[i] == "[":
                    items, i = walk_array(i)
                    top[key] = None
                else:
                    if i >= len(text):
                        raise TranscriptError(path, "invalid JSON: unexpected end of file", lines.at(len(text)))
                    top[key], i = decode(i)
                i = expect_char(i, ",}", "',' or '}'")
                if text[i] == "}":
                    end = i + 1
                    break
                i += 1
    else:
        value, end = decode(start)
        raise TranscriptError(path, f"unexpected shape: a JSON {type(value).__name__}, not a list of messages", 1)
    rest = _skip_ws(text, end)
    if rest < len(text):
        raise TranscriptError(path, "invalid JSON: extra data after the document", lines.at(rest))
    if items is None:
        raise TranscriptError(path, f"unexpected shape: no list under {' / '.join(repr(k) for k in keys)}", 1)
    return top, items


# Argument names under which a call carries words for the user, not an operation's input; and the
# arguments that may ride beside them (a question's choices, Cline's progress list, a demo command).
_SPEECH_KEYS = ("response", "result", "question", "answer", "message", "reply")
_BESIDE_SPEECH = frozenset({"options", "task_progress", "command", "raw"})
_SPEECH_MIN_CHARS = 40


def speech(call: ToolCall) -> tuple[str, str] | None:
    """(argument name, words) when a call says something to the user rather than does something: Cline's
    `plan_mode_respond` (the plan), `attempt_completion` (the final report), `ask_followup_question`.
    Judged by shape: no known kind, no path or command, and prose under a speech name as its only argument
    but for the few that ride beside one (`_BESIDE_SPEECH`): a commit's or an e-mail's `message` comes with
    a repository or an addressee, and stays the action's. Those words are the agent's reply; left inside a
    call, the plan and the report were invisible to what reads replies (findings, decisions, reports)."""
    if call.kind != ToolKind.OTHER or call.path or call.command or not isinstance(call.arguments, dict):
        return None
    spoken = [k for k in call.arguments if k not in _BESIDE_SPEECH]
    if len(spoken) != 1 or spoken[0] not in _SPEECH_KEYS:
        return None
    value = call.arguments[spoken[0]]
    if isinstance(value, str) and len(value) >= _SPEECH_MIN_CHARS and " " in value.strip():
        return spoken[0], value
    return None


def said_as_text(call: ToolCall, *, drop: tuple[str, ...] = ()) -> str | None:
    """The words of a speech call (`speech`), moved out of its arguments (with `drop`, other arguments that
    repeat them: a rendering of the call) so the message counts them once, in its text; None otherwise."""
    found = speech(call)
    if found is None:
        return None
    key, words = found
    call.arguments = {k: v for k, v in call.arguments.items() if k != key and k not in drop}
    return words.strip()
