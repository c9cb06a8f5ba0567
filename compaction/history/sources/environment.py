"""The environment the agent worked in, as its harness described it (shell, OS, sandbox, network,
date): one line beside the project rules, so a successor does not run bash in PowerShell or write
outside a sandbox.

Read from the system and harness messages only (never from tool output): one-line tags such as
`<shell>powershell</shell>`, `Platform: linux` lines, and "`sandbox_mode` is `workspace-write`".
"""

from __future__ import annotations

import re

from compaction.history.facts import Fact
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Role

# Environment keys harnesses write, as tags or as `Key: value` lines (case-insensitive).
_KEYS = r"(shell|os|os[ _]version|platform|sandbox(?:[ _]mode)?|network(?:[ _]access)?|approval[ _]policy|timezone|" \
        r"current[ _]date|today'?s date)"
_TAG_RE = re.compile(rf"<{_KEYS}>\s*([^<\n]{{1,60}}?)\s*</\1>", re.IGNORECASE)
_LINE_RE = re.compile(rf"^[ \t]*[-*]?[ \t]*{_KEYS}[ \t]*:[ \t]*([^\n]{{1,60}})$", re.IGNORECASE | re.MULTILINE)
_IS_RE = re.compile(r"`(\w+)`\s+is\s+`([\w-]{2,40})`")  # "`sandbox_mode` is `workspace-write`"
_IS_KEY_RE = re.compile(r"sandbox|_mode$|_policy$", re.IGNORECASE)
_NETWORK_RE = re.compile(r"\bNetwork access is (\w+)", re.IGNORECASE)
_MAX_SCAN = 20_000  # characters of a message read: environment blocks are short


def environment(text: str) -> dict[str, str]:
    """key → value of the environment facts a harness text states (first value of a key wins)."""
    text = text[:_MAX_SCAN]
    found: dict[str, str] = {}

    def put(key: str, value: str) -> None:
        key = re.sub(r"[ _]+", " ", key.lower()).replace("today's date", "date").replace("current date", "date")
        found.setdefault(key, value.strip().strip("`"))

    for m in _TAG_RE.finditer(text):
        put(m.group(1), m.group(2))
    for m in _LINE_RE.finditer(text):
        put(m.group(1), m.group(2))
    if "` is `" in text:
        for m in _IS_RE.finditer(text):
            if _IS_KEY_RE.search(m.group(1)):
                put(m.group(1), m.group(2))
    m = _NETWORK_RE.search(text)
    if m:
        put("network", m.group(1))
    return found


@fact_source(Section.RULES)
def environment_facts(ctx: FactContext) -> list[Fact]:
    found: dict[str, str] = {}
    first = 0
    for rnd in ctx.transcript.rounds[:3]:  # the harness states its environment at the start
        for msg in rnd.messages:
            if msg.role is Role.SYSTEM or (msg.role is Role.USER and msg.harness):
                for key, value in environment(msg.text).items():
                    found.setdefault(key, value)
                    first = first or rnd.number
    if not found:
        return []
    text = "Environment: " + "; ".join(f"{k} {v}" for k, v in found.items())
    return [Fact(Section.RULES, text, [first], score=50, priority=2.7)]
