"""Lines an exporter writes about a tool call, not its output: the tool's own name (`Tool use:
**copilot_readFile** • reading …`), an argument's name and value (`"relativeWorkspacePath": "src"`),
or a path the call was given, repeated with little else. SpecStory's export of Copilot Chat shows a read's result as
such lines alone (the file's text was never exported): what they say, the call already said."""

from __future__ import annotations

from compaction.events import argument_strings
from compaction.model import ToolCall

ECHO_REST = 32  # characters a line may hold besides a path argument it repeats and still only echo it


def echoes_call(line: str, call: ToolCall, name: str | None = None) -> bool:
    """The line names the tool (`call.name`, or the result's own `name`) or repeats the call's arguments."""
    for tool in (call.name, name):
        if tool and len(tool) > 3 and tool in line:
            return True
    if any(isinstance(v, str) and v and k in line and v in line for k, v in call.arguments.items()):
        return True  # the argument's name and value: `"relativeWorkspacePath": "src"`
    for value in argument_strings(list(call.arguments.values()), max_depth=2, max_items=8):
        # a path the call was given, with little else: `读取 [](file:///repo/a.ts#10-10)，行 10 到 40`
        # (a searched pattern is no echo: the lines found hold it, and they are the output)
        if len(value) >= 6 and ("/" in value or "\\" in value) and value in line and len(line) - len(value) <= ECHO_REST:
            return True
    return False


def only_echo(content: str, call: ToolCall | None, name: str | None = None) -> bool:
    """Every line of a result echoes its call (blank lines aside): an output that shows nothing."""
    if call is None or not content.strip():
        return False
    lines = [ln for ln in content.splitlines() if ln.strip()]
    return len(lines) <= 8 and all(echoes_call(ln, call, name) for ln in lines)
