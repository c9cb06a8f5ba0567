"""The latest failing output: what the last failed command or tool call printed, its closing lines
(where runners put the decisive line). A successor resumes from what last went wrong; the engine
chooses it after every other fact (its priority), so it is what spare budget buys, not what crowds
out a required fact."""

from __future__ import annotations

from compaction.history.facts import Fact, first_line
from compaction.history.overlap import adding_lines
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Round, ToolCall, ToolKind, ToolResult

LAST_LINES = 12
MAX_CHARS = 1200
PRIORITY = 5.5  # after next steps: chosen with the room the other facts leave


@fact_source(Section.PROBLEMS)
def latest_failure_facts(ctx: FactContext) -> list[Fact]:
    found = _last_failure(ctx.transcript.rounds)
    if found is None:
        return []
    rnd, result, command = found
    lines = [ln for ln in result.content.rstrip().splitlines() if ln.strip()][-LAST_LINES:]
    said = [o.evidence for r in ctx.records for o in r.occurrences if o.round == rnd.number and o.evidence]
    if said and any(ev in result.content or ev.strip() in result.content for ev in said):
        lines = adding_lines(lines, " ".join([*said, command or ""]))
        if not lines:
            return []
    if all(ln.rstrip().endswith(("?", ":")) for ln in lines):
        return []  # what is left leads in to what was said already ("Did you mean one of these?")
    body = "\n".join(lines)
    if len(body) > MAX_CHARS:
        body = "…" + body[-MAX_CHARS:].split("\n", 1)[-1]
    status = f"exit {result.exit_code}" if result.exit_code not in (None, 0) else "error"
    what = f" of `{first_line(command, 100)}`" if command and ctx.preset.code else ""
    text = f"Latest failing output{what} ({status}, r{rnd.number}):\n" + "\n".join(f"  > {ln}" for ln in body.splitlines())
    return [Fact(Section.PROBLEMS, text, [rnd.number], score=1, priority=PRIORITY)]


def _last_failure(rounds: list[Round]) -> tuple[Round, ToolResult, str | None] | None:
    """The last failed call whose command, or path, did not pass later: a test that failed, then passed
    after a fix, is no longer what went wrong (matplotlib's `test_fix_annotation.py`, failing at r57, passing
    at r61), nor a file tool's call on a path that a later call of its kind, or a later write or edit, did
    without an error (bastion's read of a `.gitignore` not found, which r13 then wrote)."""
    passed_later: set[str] = set()
    paths_done: set[tuple[str, str]] = set()  # (kind, path) of later calls that went well; kind "changed": any
    for rnd in reversed(rounds):
        for msg in reversed(rnd.messages):
            for result in reversed(msg.tool_results):
                call = _call_of(rnd, result)
                command = call.command if call is not None else None
                said = " ".join(command.split()) if command else None
                path = call.path if call is not None and not command else None
                if (result.is_error or result.exit_code not in (None, 0)) and result.content.strip():
                    if said not in passed_later and (path is None or not {(call.kind, path), ("changed", path)}
                                                     & paths_done):
                        return rnd, result, command
                elif said:
                    passed_later.add(said)
                elif path:
                    paths_done.add((call.kind, path))
                    if call.kind in (ToolKind.WRITE, ToolKind.EDIT):
                        paths_done.add(("changed", path))
    return None


def _call_of(rnd: Round, result: ToolResult) -> ToolCall | None:
    calls = [c for m in rnd.messages for c in m.tool_calls]
    return next((c for c in calls if result.call_id and c.id == result.call_id), None)
