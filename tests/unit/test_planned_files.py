"""Files a plan meant to create that the session never wrote (issue 14, "which planned pieces were never
created?"): told once the session acted on the plan, never for a file it had seen before the plan."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources.planned_files import planned_files_source
from compaction.history.sources.registry import FactContext
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

PLAN = """**Plan to convert the repository into a pip-installable package**

1. Create the package layout:

```
image_sd/
│   __init__.py          # makes it a package
│   core.py              # the code of simple.py
│   cli.py               # thin wrapper
setup.cfg
pyproject.toml
README.md
NOTICE.txt
```

2. Add the metadata files (`pyproject.toml`, `MANIFEST.in`).

```python
def main():
    run("config.yaml")
```
"""


def _write(msgs: list[Message], cid: str, path: str) -> None:
    msgs.append(Message(len(msgs), Role.ASSISTANT, "", tool_calls=[
        ToolCall("write_to_file", {"path": path, "content": "x = 1\n"}, cid, ToolKind.WRITE, path=path)]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult("written", cid, "write_to_file")]))


def _facts(msgs: list[Message]) -> list[str]:
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    ctx = FactContext(t, extract_events(t), [], role_preset(None), None, len(t.rounds))
    return [f.text for f in planned_files_source(ctx)]


def _session(*written: str) -> list[Message]:
    msgs = [Message(0, Role.USER, "make this a pip package; the README.md says how it runs",
                    meta={"environment_details": ["# Current Working Directory Files\nNOTICE.txt\nsimple.py"]}),
            Message(1, Role.ASSISTANT, PLAN), Message(2, Role.USER, "go ahead")]
    for i, path in enumerate(written):
        _write(msgs, f"w{i}", path)
    return msgs


def test_the_planned_files_never_written_are_told_once_the_plan_was_acted_on():
    [fact] = _facts(_session("/repo/image_sd/__init__.py", "/repo/image_sd/core.py", "/repo/pyproject.toml"))
    # README.md and NOTICE.txt were named before the plan (they exist: the user's words, the client's file
    # list); config.yaml is code's argument, not the layout
    assert fact.startswith("[planned, never written] `cli.py`, `setup.cfg`, `MANIFEST.in` (plan r1;")


def test_a_plan_not_acted_on_is_no_missing_file_and_a_complete_one_says_nothing():
    assert _facts(_session()) == []
    assert _facts(_session(*(f"/repo/{n}" for n in ("image_sd/__init__.py", "image_sd/core.py", "image_sd/cli.py",
                                                     "setup.cfg", "pyproject.toml", "MANIFEST.in")))) == []


def test_prose_abbreviations_calls_and_values_are_no_planned_files():
    from compaction.history.sources.planned_files import _planned
    said = ("Plan: add a helper (e.g., `x.js`) using `os.path.join(a, b)` and `np.float64`; "
            "Node.js will create `e.g` and `src/util.ts`.")
    assert _planned(said) == ["x.js", "util.ts"]
