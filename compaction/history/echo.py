"""Lines an exporter writes about a tool call, not its output: the tool's own name marked as a name
(`Tool use: **copilot_readFile** • reading …`), an argument's name and value side by side
(`"relativeWorkspacePath": "src"`), or a path the call was given, repeated with little else.
SpecStory's export of Copilot Chat shows a read's result as such lines alone (the file's text was never
exported): what they say, the call already said, and the tail spends no room on them (`output_of`).
A failed call's result is never an echo but for its heading: its error names the path or the tool it
failed on, and is the output a successor needs."""

from __future__ import annotations

import re

from compaction.edits import labelled_blocks_out
from compaction.events import argument_strings
from compaction.model import ToolCall, ToolKind, ToolResult

ECHO_REST = 32  # characters a line may hold besides a path argument it repeats and still only echo it
_MIN_VALUE = 3  # an argument value shorter than this is in too many lines by chance
# what a link to the path and the lines read add around it (`读取 [](file:///a.ts#355-355)，行 355 到 390`)
_LINK_CHROME_RE = re.compile(r"file://|[\[\]()#,，\d-]")
_STATUS_RE = re.compile(r"^Status: \*\*[\w -]+\*\*\s*$")  # SpecStory's line after each call
_FENCE_OPEN_RE = re.compile(r"^\s*(`{3,}|~{3,})")


def echoes_call(line: str, call: ToolCall, name: str | None = None) -> bool:
    """The line names the tool as a name (`**x**`, `` `x` ``), holds an argument's name and value side
    by side, or holds a path the call was given with little else (not for a search: its hits start
    with the path searched)."""
    for tool in (call.name, name):
        if tool and (f"**{tool}**" in line or f"`{tool}`" in line):
            return True
    for k, v in call.arguments.items():
        if isinstance(v, str) and len(v) >= _MIN_VALUE and any(
                pair in line for pair in (f'"{k}": "{v}"', f"{k}: {v}", f"{k}={v}")):
            return True
    if call.kind == ToolKind.SEARCH:
        return False
    for value in argument_strings(list(call.arguments.values()), max_depth=2, max_items=8):
        # a path the call was given, with little else: `读取 [](file:///repo/a.ts#10-10)，行 10 到 40`
        if len(value) >= 6 and ("/" in value or "\\" in value) and value in line \
                and len(_LINK_CHROME_RE.sub("", line.replace(value, "", 1))) <= ECHO_REST:
            return True
    return False


def _names_tool(line: str, call: ToolCall, name: str | None) -> bool:
    """The line names the tool as a name: an exporter's heading (`Tool use: **Bash**`)."""
    return any(tool and (f"**{tool}**" in line or f"`{tool}`" in line) for tool in (call.name, name))


def _restates(line: str, call: ToolCall, name: str | None) -> bool:
    """The line names the tool, holds an argument's name and value side by side, or is the command or a
    non-search call's argument alone (Claude Code's export shows a command's description, then the command
    in backticks, before its output). Not a path with a little else: a command's output opens with the
    file it shows (`=== a/SKILL.md ===`), a search's with the file it found."""
    if _names_tool(line, call, name):
        return True
    if any(isinstance(v, str) and len(v) >= _MIN_VALUE and any(
            pair in line for pair in (f'"{k}": "{v}"', f"{k}: {v}", f"{k}={v}")) for k, v in call.arguments.items()):
        return True
    bare = line.strip().strip("`").strip()
    if call.kind == ToolKind.SEARCH or len(bare) < _MIN_VALUE:
        return False
    return bare == (call.command or "").strip() or any(
        bare == v.strip() for v in argument_strings(list(call.arguments.values()), max_depth=1, max_items=8))


def output_of(res: ToolResult, call: ToolCall | None) -> str:
    """The result as the tool gave it, without what was written about the call around it: the opening
    lines that restate the call (`_restates`; a failed call's only when they name the tool: its error names
    what it failed on) and, below an exporter's heading, those that echo it (`echoes_call`), its labelled metadata blocks (`labelled_blocks_out`),
    its `Status:` line, a block holding the command again, and the one block around the rest. Empty when
    nothing else is left, or (a call that succeeded) the few lines left only echo it (`echoes_call`:
    Copilot Chat's export keeps a read's summary line, never the file)."""
    if call is None or not res.content:
        return res.content
    failed = res.is_error or res.exit_code not in (None, 0)
    head = next((ln for ln in res.content.splitlines()[:3] if ln.strip()), "")
    wrapped = _names_tool(head, call, res.name)  # an exporter's rendering of the call
    lines = [ln for ln in labelled_blocks_out(res.content).splitlines() if not _STATUS_RE.match(ln)] \
        if wrapped else res.content.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or (_names_tool(line, call, res.name) if failed else _restates(line, call, res.name)
                                or wrapped and echoes_call(line, call, res.name)):
            i += 1
            continue
        fence = _FENCE_OPEN_RE.match(line)
        if not (wrapped and fence and call.command):
            break
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == fence.group(1)), None)
        if end is None or "\n".join(lines[i + 1:end]).strip() != call.command.strip():
            break
        i = end + 1  # the command again, in a block of its own
    rest = lines[i:]
    shown = [ln for ln in rest if ln.strip()]
    if not failed and len(shown) <= 8 and all(echoes_call(ln, call, res.name) for ln in shown):
        return ""  # what is left echoes the call too
    if not wrapped and not any(ln.strip() for ln in lines[:i]):
        return res.content  # nothing was written about the call: the very text (its count is known)
    last = len(rest) - 1
    while last > 0 and not rest[last].strip():
        last -= 1
    fence = _FENCE_OPEN_RE.match(rest[0]) if rest and wrapped else None
    if fence and last > 0 and rest[last].strip() == fence.group(1) \
            and not any(ln.strip().startswith(fence.group(1)) for ln in rest[1:last]):
        rest = rest[1:last]  # one block around all that is left: the output itself
    return "\n".join(rest)
