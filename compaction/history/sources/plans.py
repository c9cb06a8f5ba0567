"""The agent's latest written plan, as a decision: its title and the lines that name where and what
(files, functions, lines), not its prose.

Why: a plan (a plan tool's argument, a plan file the agent wrote, a "## Plan" block in its reply)
is the agent's own statement of what it decided to change and where; the change records say what
was done, not what was intended nor why that place. Only the newest plan counts: a plan revised or
approved later supersedes the earlier drafts.
"""

from __future__ import annotations

import re

from compaction.events import EventKind
from compaction.history.facts import WS_RE, Fact
from compaction.history.sections import Section
from compaction.history.sources.decisions import AHEAD
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Role, ToolKind

# A plan's title: a Markdown heading whose first or second word is "Plan" ("# Plan: …", "## Approved Plan:").
_TITLE_RE = re.compile(r"(?m)^#{1,3}[ \t]+(?:[\w-]+[ \t]+)?Plan\b[:\t ]*(.*)$")
# A line that says where: a code span, a path with an extension, a line number.
_WHERE_RE = re.compile(r"`[^`\n]+`|(?<![\w./-])[./-]*+\b[\w./-]+\.[a-zA-Z]{1,5}\b|\blines? \d+")
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


# Why the plan's place: a delegated report (a sub-agent's findings) that describes the line range the
# plan's target line falls in ("**Shutdown Sequence** (`main.go` lines 1837-1904):" and its items) says
# what happens there, the reason the place was chosen.
_TARGET_RE = re.compile(r"`?(?<![\w./-])([\w./-]+\.[a-zA-Z]{1,5})`?[^\n`]{0,30}?\blines? (\d+)\b")
_ITEM_RE = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+(.+)$")
MAX_WHY_ITEMS = 4
WHY_ITEM_CHARS = 90
REPORT_CHARS = 30000


def _where(lines: list[str]) -> tuple[str, int] | None:
    """(file name, line) of the plan's first line naming a line of a file."""
    for line in lines:
        m = _TARGET_RE.search(line)
        if m:
            return m.group(1).rsplit("/", 1)[-1], int(m.group(2))
    return None


def _why_there(ctx: FactContext, name: str, line: int, until: int) -> tuple[int, str] | None:
    """(round, "heading: item; item") of the first delegated report before round `until` whose text
    describes a line range of `name` holding `line`, with the list items under it."""
    range_re = re.compile(re.escape(name) + r"`?\)?,?\s*\**\s*(?:lines?|L)\s*(\d+)\s*[-–]\s*(\d+)")
    for rnd in ctx.transcript.rounds[:until]:
        for msg in rnd.messages:
            for call in msg.tool_calls:
                if call.kind is not ToolKind.OTHER:
                    continue
                res = ctx.results_of(rnd).get(id(call))
                text = res.content[:REPORT_CHARS] if res is not None and res.content else ""
                if text.find(name) < 0:
                    continue
                for m in range_re.finditer(text):
                    if not int(m.group(1)) <= line <= int(m.group(2)) or int(m.group(2)) - int(m.group(1)) > 400:
                        continue
                    start = text.rfind("\n", 0, m.start()) + 1
                    rest = text[start:].splitlines()
                    items: list[str] = []
                    for ln in rest[1:]:
                        im = _ITEM_RE.match(ln)
                        if not im:
                            if items or ln.strip():
                                break
                            continue
                        item = WS_RE.sub(" ", im.group(1)).strip()
                        items.append(item if len(item) <= WHY_ITEM_CHARS else item[:WHY_ITEM_CHARS - 1] + "…")
                        if len(items) >= MAX_WHY_ITEMS:
                            break
                    if items:
                        head = WS_RE.sub(" ", rest[0].replace("**", "")).strip().rstrip(":")
                        return rnd.number, f"{head}: " + "; ".join(items)
    return None


_CHECKS_HEAD_RE = re.compile(r"(?i)^\W*(?:verif\w*|test\w*|check\w*|validat\w*)\b[^:]{0,30}:")
_TICKED_RE = re.compile(r"`([^`\n]{3,120})`")
# A plan's section after its checks ("Files:", "Code change:", "Rollback:"): the sections plans hold, as a hint
_OTHER_SECTION_RE = re.compile(r"(?i)^\W*(?:files?(?: to (?:modify|change|create))?|code changes?|changes?|implementation|"
                               r"approach|summary|context|current state|proposed change|styling(?: details)?|notes?|"
                               r"risks?|rollback|out of scope|next steps?)\s*:")
CHECK_WORDS = 3  # of a planned check's command, the words a run must hold


def _checks_told(ctx: FactContext, lines: list[str], planned: int) -> list[str]:
    """The plan's checks (its Verification section's commands) each with whether the session ran it after
    the plan: "(ran r21)" or "(not run)". Why: a plan's "Run `go build`; test with `--silent`" read as
    done when only the linter ran."""
    runs = [(e.round, " ".join(e.command.split())) for e in ctx.events
            if e.kind is EventKind.COMMAND and e.command and e.round >= planned]
    out: list[str] = []
    checking = False
    for line in lines:
        if _CHECKS_HEAD_RE.match(line):
            checking = True
        elif _OTHER_SECTION_RE.match(line):
            checking = False  # the next section ("Files: …") is no check ("Unit tests: `pytest`" is one)
        ticked = [t for t in _TICKED_RE.findall(line) if " " in t.strip() or t.startswith("./")] if checking else []
        if ticked:
            # its words but flags (`npm run build` is not `npm run lint`; `pytest t.py -v` ran as `pytest t.py -q`)
            key = [w for w in ticked[0].split() if not w.startswith("-")][:CHECK_WORDS]
            ran = next((r for r, c in runs if all(w in c.split() for w in key)), None)
            line += f" (ran r{ran})" if ran is not None else " (not run)"
        out.append(line)
    return out


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
    lines = _checks_told(ctx, lines, rnd)
    rounds = sorted({first_round or rnd, rnd})
    head = f"Plan{f' “{title}”' if title else ''} (r{rnd})"
    out = [Fact(Section.DECISIONS, f"{head}: {lines[0]}", rounds, score=43, priority=AHEAD,
                full_text=head + ":\n" + "\n".join(f"  - {x}" for x in lines) if len(lines) > 1 else None)]
    where = _where(lines)
    why = _why_there(ctx, where[0], where[1], rnd) if where else None
    if why:
        out.append(Fact(Section.DECISIONS, f"Why the plan's place (`{where[0]}` line {where[1]}), per the report "
                                           f"(r{why[0]}): {why[1]}", sorted({why[0], rnd}), score=44))
    return out
