"""Problems the agent named and handled in its own words, without a failing tool: a hazard of the
platform or the method and, in the same sentence, what was done about it. No error record holds
them, yet a successor asked "what had to be handled, and how" needs them as much as a traceback."""

from __future__ import annotations

import re

from compaction.errors.scan import key_change
from compaction.errors.shorten import cut
from compaction.history.facts import Fact, cite
from compaction.history.sections import Section
from compaction.history.sentences import prose, sentences_around
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Role, ToolKind

# --- problems the agent named and handled in its own words, without a failing tool ----------------
# A problem noun (a known hazard of the platform or the method) and, in the same sentence, what was
# done about it: "uses rejection sampling to eliminate modulo bias", "need to resume AudioContext
# (browsers suspend it until a gesture)". Found by substring search (history.sentences), so a
# message without one of these words costs one `find` per word.
_HAZARDS = ("bias", "suspend", "restriction", "gotcha", "pitfall", "caveat", "workaround", "work around",
            "limitation", "race condition", "edge case", "overflow", "deadlock", "blocked", "not allowed",
            "until a user", "until the user", "precision", "off-by-one", "injection", "escap")
_REMEDY_RE = re.compile(r"\b(?:avoid|eliminat|prevent|guard|handl|need(?:s|ed)? to|so (?:that|we|I)|therefore|"
                        r"resum|instead|work(?:s|ed)? around|to keep|make sure|ensur|fix)", re.I)
_NOT_PROBLEM_RE = re.compile(r"^(?:let me|let's|i'll|i will|now)\b", re.I)
MAX_PROSE = 3
PROSE_SCAN = 8000  # characters of a reply searched (history.sentences.prose's own limit)
PROSE_CHARS = 240
PROSE_PRIORITY = 4.6  # after the error records and the findings: what room is left


@fact_source(Section.PROBLEMS)
def prose_problem_source(ctx: FactContext) -> list[Fact]:
    out: list[Fact] = []
    seen: list[set[str]] = []
    for rnd in ctx.transcript.rounds:
        for msg in rnd.messages:
            if msg.role is not Role.ASSISTANT or not msg.text:
                continue
            head = msg.text[:PROSE_SCAN]
            if not any(map(head.__contains__, _HAZARDS)):
                continue  # most replies name no hazard (mid-sentence, in lower case): a few finds, no sentence cutting
            for sentence in sentences_around(prose(head), _HAZARDS):
                if not _REMEDY_RE.search(sentence) or _NOT_PROBLEM_RE.match(sentence) or len(sentence) < 30:
                    continue
                words = {w for w in re.findall(r"[a-z]{5,}", sentence.lower())}
                if any(len(words & w) >= 3 and len(words & w) * 3 >= min(len(words), len(w)) for w in seen):
                    continue  # the same problem told again (a closing summary repeats it)
                seen.append(words)
                text = cut(sentence.replace("**", ""), PROSE_CHARS).rstrip(":")
                edits = [c for c in msg.tool_calls if c.kind is ToolKind.EDIT]
                change = key_change(edits[0]) if edits else ""
                if change:  # the edit that handled it, when the same reply made one
                    text += f" — {cut(change, 160)}"
                out.append(Fact(Section.PROBLEMS, f"{text} {cite([rnd.number])}", [rnd.number], score=20,
                                priority=PROSE_PRIORITY, prose=True, essential=True))
    return out[-MAX_PROSE:]
