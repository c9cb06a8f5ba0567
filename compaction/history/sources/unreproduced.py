"""A reproduction that did not fail before any change: the session's own script, run before its first
edit of the project, that ended well and printed no error, with what the agent made of it next.

Why: the bug then shows only under conditions the session had to build (matplotlib's pickling error
needs a canvas Agg does not have: the agent wrote a second script with an unpicklable one). A
successor who re-checks a fix with the first script sees it pass with or without the fix, and reads
that as "fixed". Built from the events (the files the session wrote) and the rounds' paired results.
"""

from __future__ import annotations

import re

from compaction.events import EventKind
from compaction.history.facts import Fact, cite
from compaction.history.sections import Section
from compaction.history.sentences import THOUGHT_RE
from compaction.history.sources.decisions import AHEAD
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Role, ToolKind
from compaction.shell import scripts_run
from compaction.transcripts.path_spelling import file_name

# What a run that went wrong prints (a caught exception printed and exit 0 included)
_WRONG_RE = re.compile(r"Traceback \(most recent|\b\w*(?:Error|Exception)\b|\bFAIL|\b[Ff]ailed\b|\bpanic")
_REPRODUCING_RE = re.compile(r"(?i)reproduc|\brepro\b|\brepro_|_repro\b")
# The agent's next words taking the run as a pass ("The pickling was successful", "it did not raise"), not
# as the bug shown by a wrong value ("This confirms …", "The issue is reproduced")
_PASSED_RE = re.compile(r"(?i)\bsuccess(?:ful(?:ly)?)?\b|\bsucceeded\b|\bdid(?: not|n't) (?:fail|reproduce|raise|error|crash)"
                        r"|\bnot reproduc|\bno error\b|\bcould(?: not|n't) reproduce|\bpass(?:ed|es)\b|\bworks\b")
_REPRODUCED_RE = re.compile(r"(?i)\b(?:is|was|been|successfully|I've|we've|have|has) reproduced|\bconfirm|"
                            r"\breproduces the|\bshows the (?:bug|issue|problem|error)")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'])")
OUTPUT_CHARS = 160
SAID_CHARS = 240


@fact_source(Section.FINDINGS)
def unreproduced_facts(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.code:
        return []
    created: set[str] = set()
    read: set[str] = set()
    until = ctx.n_rounds + 1  # the first change to a file the session did not create (a rewrite of one it read)
    for e in ctx.events:
        name = file_name(e.path) if e.path else ""
        if e.kind is EventKind.READ and name and not e.failed:  # a look at a file not there yet read nothing
            read.add(name)
        elif e.kind is EventKind.WRITE and name and name not in read:
            created.add(name)
        elif e.kind in (EventKind.EDIT, EventKind.WRITE) and name and not e.failed and name not in created:
            until = e.round
            break
    if not created:
        return []
    for rnd in ctx.transcript.rounds[:until - 1]:
        results = ctx.results_of(rnd)
        for msg in rnd.messages:
            if msg.role is not Role.ASSISTANT or msg.harness:
                continue
            for call in msg.tool_calls:
                if call.kind != ToolKind.SHELL or not call.command:
                    continue
                scripts = {file_name(s) for s in scripts_run(call.command)} & created
                if not scripts or not (any(_REPRODUCING_RE.search(s) for s in scripts)
                                       or _REPRODUCING_RE.search(msg.text or "")):
                    continue
                res = results.get(id(call))
                out = (res.content or "").strip() if res is not None else ""
                if res is None or res.is_error or res.exit_code not in (None, 0) or not out or _WRONG_RE.search(out):
                    return []  # it failed as meant (or said nothing): the first run of a reproduction decides
                said = _next_words(ctx, rnd.number)
                if said is None or not _PASSED_RE.search(said[1]) or _REPRODUCED_RE.search(said[1]):
                    return []  # a wrong value printed is the bug shown: the agent's next words tell which
                fact = _fact(rnd.number, call.command, out, said)
                if (failed := _failed_later(ctx, rnd.number, until, created)) is not None:
                    fact.text += f"; then it failed with `{failed[1]}` → “{failed[2]}” (r{failed[0]})"
                    fact.rounds.append(failed[0])
                return [fact]
    return []


def _fact(rnd: int, command: str, output: str, said: tuple[int, str]) -> Fact:
    printed = "; ".join(ln.strip() for ln in output.splitlines() if ln.strip())
    printed = printed if len(printed) <= OUTPUT_CHARS else printed[:OUTPUT_CHARS].rsplit(" ", 1)[0] + "…"
    text = f"Before any change the reproduction did not fail: `{command.strip()}` → “{printed}” (r{rnd})"
    text += f"; the agent then: “{said[1]}” (r{said[0]})"
    return Fact(Section.FINDINGS, text, [rnd, said[0]], score=60, priority=AHEAD, essential=True,
                short=f"Before any change the reproduction `{command.strip()}` did not fail {cite([rnd])}")


def _failed_later(ctx: FactContext, after: int, until: int, created: set[str]) -> tuple[int, str, str] | None:
    """(round, command, its error line) of the first later run of a script the session wrote, before its first
    change, that printed an error: the reproduction built instead (an unpicklable canvas of its own)."""
    for rnd in ctx.transcript.rounds[after:until - 1]:
        results = ctx.results_of(rnd)
        for msg in rnd.messages:
            for call in msg.tool_calls:
                if call.kind != ToolKind.SHELL or not call.command or \
                        not {file_name(s) for s in scripts_run(call.command)} & created:
                    continue
                res = results.get(id(call))
                out = res.content if res is not None else ""
                if m := _WRONG_RE.search(out):
                    start = out.rfind("\n", 0, m.start()) + 1
                    end = out.find("\n", m.end())
                    line = out[start:end if end >= 0 else len(out)].strip()
                    return rnd.number, call.command.strip(), line if len(line) <= OUTPUT_CHARS else line[:OUTPUT_CHARS] + "…"
    return None


def _next_words(ctx: FactContext, rnd: int) -> tuple[int, str] | None:
    """The agent's first two sentences after the run: what it made of the pass (the backend, the version)."""
    for later in ctx.transcript.rounds[rnd:rnd + 2]:
        for msg in later.messages:
            if msg.role is Role.ASSISTANT and not msg.harness and msg.text.strip():
                prose = THOUGHT_RE.sub("", msg.text.split("```", 1)[0]).strip()
                sentences = _SENTENCE_RE.split(" ".join(prose.split()))
                said = " ".join(sentences[:2])
                if not said:
                    continue
                return later.number, said if len(said) <= SAID_CHARS else said[:SAID_CHARS].rsplit(" ", 1)[0] + "…"
    return None
