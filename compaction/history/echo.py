"""Lines an exporter writes about a tool call, not its output: the tool's own name marked as a name
(`Tool use: **copilot_readFile** • reading …`), an argument's name and value side by side
(`"relativeWorkspacePath": "src"`), or a path the call was given, repeated with little else.
SpecStory's export of Copilot Chat shows a read's result as such lines alone (the file's text was never
exported): what they say, the call already said. A failed call's result is never an echo: its error
names the path or the tool it failed on, and is the output a successor needs."""

from __future__ import annotations

from compaction.events import argument_strings
from compaction.model import ToolCall, ToolKind, ToolResult

ECHO_REST = 32  # characters a line may hold besides a path argument it repeats and still only echo it
_MIN_VALUE = 3  # an argument value shorter than this is in too many lines by chance


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
        if len(value) >= 6 and ("/" in value or "\\" in value) and value in line and len(line) - len(value) <= ECHO_REST:
            return True
    return False


def only_echo(res: ToolResult, call: ToolCall | None) -> bool:
    """Every line of a succeeded result echoes its call (blank lines aside): an output that shows nothing."""
    if call is None or res.is_error or res.exit_code not in (None, 0) or not res.content.strip():
        return False
    lines = [ln for ln in res.content.splitlines() if ln.strip()]
    return len(lines) <= 8 and all(echoes_call(ln, call, res.name) for ln in lines)
