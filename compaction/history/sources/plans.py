"""The agent's latest written plan, as a decision: its title and the lines that name where and what
(files, functions, lines), not its prose.

Why: a plan (a plan tool's argument, a plan file the agent wrote, a "## Plan" block in its reply)
is the agent's own statement of what it decided to change and where; the change records say what
was done, not what was intended nor why that place. Only the newest plan counts: a plan revised or
approved later supersedes the earlier drafts.
"""

from __future__ import annotations

import re

from compaction.history.facts import WS_RE, Fact
from compaction.history.sections import Section
from compaction.history.sources.decisions import AHEAD
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Role, ToolKind

# A plan's title: a Markdown heading whose first or second word is "Plan" ("# Plan: …", "## Approved Plan:").
_TITLE_RE = re.compile(r"(?m)^#{1,3}[ \t]+(?:[\w-]+[ \t]+)?Plan\b[:\t ]*(.*)$")
# A line that says where: a code span, a path with an extension, a line number.
_WHERE_RE = re.compile(r"`[^`\n]+`|\b[\w./-]+\.[a-zA-Z]{1,5}\b|\blines? \d+")
_FENCE = "```"
MAX_LINES = 8
LINE_CHARS = 160


def _plan_text(text: str) -> tuple[str, str] | None:
    """(title, body) of the plan `text` holds, or None."""
    m = _TITLE_RE.search(text[:3000])
    if m is None:
        return None
    body = text[m.end():]
    title = m.group(1).strip()
    if not title:  # "## Approved Plan:" then "# Plan: the title" on a later line
        inner = _TITLE_RE.search(body[:600])
        if inner is not None and inner.group(1).strip():
            title, body = inner.group(1).strip(), body[inner.end():]
    return title, body


def _key_lines(body: str) -> list[str]:
    """The plan's lines outside code that name a place (file, code span, line), in order, once each;
    a heading ("### File to modify") is joined to the line under it."""
    out: list[str] = []
    heading = ""
    in_code = False
    for raw in body.splitlines():
        line = raw.strip()
        if line.startswith(_FENCE) or line.startswith("\\" + _FENCE):
            in_code = not in_code
            continue
        if in_code or not line:
            continue
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            continue
        if not _WHERE_RE.search(line):
            continue
        text = WS_RE.sub(" ", line.lstrip("-*•0123456789. ")).strip().rstrip(":")
        if heading and heading.lower() not in text.lower():
            text = f"{heading}: {text}"
        heading = ""
        text = text if len(text) <= LINE_CHARS else text[:LINE_CHARS - 1] + "…"
        if text not in out:
            out.append(text)
        if len(out) >= MAX_LINES:
            break
    return out


def _candidates(ctx: FactContext):
    """(round, text) of every place a plan may be written, in order."""
    for rnd in ctx.transcript.rounds:
        results = None
        for msg in rnd.messages:
            if msg.role is not Role.ASSISTANT or msg.harness:
                continue
            if msg.text and msg.text.find("Plan", 0, 3000) >= 0:  # a title's word: no lower-casing pass
                yield rnd.number, msg.text
            for call in msg.tool_calls:
                if call.kind not in (ToolKind.WRITE, ToolKind.OTHER, ToolKind.TODO):
                    continue
                args = [v for v in call.arguments.values() if isinstance(v, str) and len(v) > 80
                        and v.find("Plan", 0, 3000) >= 0]
                if args:
                    yield rnd.number, max(args, key=len)
                    continue
                if results is None:
                    results = ctx.results_of(rnd)
                res = results.get(id(call))
                if res is not None and res.content.find("Plan", 0, 3000) >= 0:  # a client that shows the call in its result
                    yield rnd.number, res.content


@fact_source(Section.DECISIONS)
def plan_facts(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.code:
        return []
    latest: tuple[int, str, list[str]] | None = None
    first_round: int | None = None
    for rnd, text in _candidates(ctx):
        found = _plan_text(text) if text.find("Plan", 0, 3000) >= 0 else None
        if found is None:
            continue
        lines = _key_lines(found[1])
        if not lines:
            continue
        first_round = rnd if first_round is None else first_round
        latest = (rnd, found[0], lines)
    if latest is None:
        return []
    rnd, title, lines = latest
    rounds = sorted({first_round or rnd, rnd})
    head = f"Plan{f' “{title}”' if title else ''} (r{rnd})"
    return [Fact(Section.DECISIONS, f"{head}: {lines[0]}", rounds, score=43, priority=AHEAD,
                 full_text=head + ":\n" + "\n".join(f"  - {x}" for x in lines) if len(lines) > 1 else None)]
