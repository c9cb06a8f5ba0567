"""Lines an exporter writes about a tool call, not its output: the tool's own name marked as a name
(`Tool use: **copilot_readFile** • reading …`), an argument's name and value side by side
(`"relativeWorkspacePath": "src"`), or a path the call was given, repeated with little else.
SpecStory's export of Copilot Chat shows a read's result as such lines alone (the file's text was never
exported): what they say, the call already said, and the tail spends no room on them (`output_of`).
A failed call's result is never an echo but for its heading and its command: its error names the path
or the tool it failed on, and is the output a successor needs."""

from __future__ import annotations

import re

from compaction.edits import labelled_blocks_out
from compaction.events import argument_strings
from compaction.model import ToolCall, ToolKind, ToolResult

ECHO_REST = 32  # characters a line may hold besides a path argument it repeats and still only echo it
_MIN_VALUE = 3  # an argument value shorter than this is in too many lines by chance
# what a link to the path adds around it (`读取 [](file:///a.ts#355-355)，行 355 到 390`): not counted as more
_LINK_CHROME_RE = re.compile(r"\[\]\(file://|#\d+(?:-\d+)?\)")
_HEADING_RE = re.compile(r"^\s*Tool use: \*\*([^*\n]+)\*\*")  # SpecStory's heading of each call it exports
_STATUS_RE = re.compile(r"^Status: \*\*[\w -]+\*\*\s*$")  # and its line after the call
_FENCE_OPEN_RE = re.compile(r"^\s*(`{3,}|~{3,})")
_ECHO_MAX_LINES = 8  # a result of more lines says more than its call, whatever they hold
_HEAD_CHARS = 4096  # where an exporter's heading is looked for: the result's opening lines


def _names_tool(line: str, call: ToolCall, name: str | None) -> bool:
    """The line names the tool as a name (`**x**`, `` `x` ``)."""
    return any(tool and (f"**{tool}**" in line or f"`{tool}`" in line) for tool in (call.name, name))


def _pairs_argument(line: str, call: ToolCall) -> bool:
    """The line holds an argument's name and value side by side (`"relativeWorkspacePath": "src"`)."""
    return any(isinstance(v, str) and len(v) >= _MIN_VALUE and any(
        pair in line for pair in (f'"{k}": "{v}"', f"{k}: {v}", f"{k}={v}")) for k, v in call.arguments.items())


def echoes_call(line: str, call: ToolCall, name: str | None = None) -> bool:
    """The line names the tool as a name, holds an argument's name and value side by side, or holds a
    path the call was given with little else (not for a search: its hits start with the path searched)."""
    if _names_tool(line, call, name) or _pairs_argument(line, call):
        return True
    if call.kind == ToolKind.SEARCH:
        return False
    for value in argument_strings(list(call.arguments.values()), max_depth=2, max_items=8):
        # a path the call was given, with little else: `读取 [](file:///repo/a.ts#10-10)，行 10 到 40`
        if len(value) >= 6 and ("/" in value or "\\" in value) and value in line \
                and len(_LINK_CHROME_RE.sub("", line.replace(value, "", 1))) <= ECHO_REST:
            return True
    return False


def _restates(line: str, call: ToolCall, name: str | None) -> bool:
    """Below an exporter's heading: the line echoes the call, or is the command or an argument alone
    (Claude Code's export shows a command's description, then the command in backticks, before its output)."""
    if echoes_call(line, call, name):
        return True
    bare = line.strip().strip("`").strip()
    if call.kind == ToolKind.SEARCH or len(bare) < _MIN_VALUE:
        return False
    return _is_command(line, call) or any(
        bare == v.strip() for v in argument_strings(list(call.arguments.values()), max_depth=1, max_items=8))


def _is_command(line: str, call: ToolCall) -> bool:
    """The line is the call's command alone (in backticks or not)."""
    return bool(call.command) and line.strip().strip("`").strip() == call.command.strip()


def _only_echo(lines: list[str], call: ToolCall, name: str | None, wrapped: bool) -> bool:
    """A succeeded result's few lines all echo the call (`echoes_call`); without an exporter's heading, a
    command's only when each holds the command itself (aider's `Running git add x`): a listing of paths
    under the directory it was given (`workdir`) is what it found."""
    shown = [ln for ln in lines if ln.strip()]
    if not shown or len(shown) > _ECHO_MAX_LINES:
        return False
    if not wrapped and call.command:
        command = call.command.strip()
        return all(command in ln or _names_tool(ln, call, name) for ln in shown)
    return all(echoes_call(ln, call, name) for ln in shown)


def output_of(res: ToolResult, call: ToolCall | None) -> str:
    """The result as the tool gave it, without what an exporter wrote about the call around it. Below
    SpecStory's heading (`Tool use: **x**`): the opening lines that restate the call (`_restates`; a failed
    call's only the heading and the command: its error names what it failed on), the labelled metadata blocks
    (`labelled_blocks_out`), the `Status:` lines, a block holding the command again, and the one block around
    the rest. Empty when nothing else is left, or the few lines left of a succeeded call only echo it
    (`_only_echo`: Copilot Chat's export keeps a read's summary line, never the file); else, without a
    heading, the very text."""
    if call is None or not res.content:
        return res.content
    failed = res.is_error or res.exit_code not in (None, 0)
    opening = res.content[:_HEAD_CHARS].splitlines()  # not the whole output: its heading is first, if anywhere
    heading = _HEADING_RE.match(next((ln for ln in opening[:3] if ln.strip()), ""))
    if heading is None or heading.group(1) not in (call.name, res.name):
        if failed or sum(1 for ln in opening if ln.strip()) > _ECHO_MAX_LINES:
            return res.content  # more lines than an echo has, in its opening already: no need to split it all
        return "" if _only_echo(res.content.splitlines(), call, res.name, False) else res.content
    lines = [ln for ln in labelled_blocks_out(res.content).splitlines() if not _STATUS_RE.match(ln)]
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or (_names_tool(line, call, res.name) or _is_command(line, call) if failed
                                else _restates(line, call, res.name)):
            i += 1
            continue
        fence = _FENCE_OPEN_RE.match(line)
        if not (fence and call.command):
            break
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == fence.group(1)), None)
        if end is None or "\n".join(lines[i + 1:end]).strip() != call.command.strip():
            break
        i = end + 1  # the command again, in a block of its own
    rest = lines[i:]
    if not failed and _only_echo(rest, call, res.name, True):
        return ""  # what is left echoes the call too
    last = len(rest) - 1
    while last > 0 and not rest[last].strip():
        last -= 1
    fence = _FENCE_OPEN_RE.match(rest[0]) if rest else None
    if fence and last > 0 and rest[last].strip() == fence.group(1) \
            and not any(ln.strip().startswith(fence.group(1)) for ln in rest[1:last]):
        rest = rest[1:last]  # one block around all that is left: the output itself
    return "\n".join(rest)
