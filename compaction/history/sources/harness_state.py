"""Where the harness left the agent, as its last state report said (Cline's `<environment_details>`:
its mode, the files visible and open in the editor).

Why: a successor that resumes in PLAN MODE must not edit files, and the files open at the end are
where the user was looking. The harness repeats this block with every message; only its last
report is the state at the end. Read from what the loaders kept apart as harness text (message
meta), never from tool output.
"""

from __future__ import annotations

import re

from compaction.history.facts import Fact, display_path
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source

# A report's `# Heading` and the lines under it, up to the next heading.
_PART_RE = re.compile(r"^#[ \t]+([^\n]+)\n((?:(?!#[ \t])[^\n]*\n?)*)", re.MULTILINE)
# The parts a successor acts on, in the order told: (heading's ending, label); the editor's name opens the
# heading ("VSCode Open Tabs", "Cursor Open Tabs" in a fork).
_SHOWN = (("current mode", "mode"), ("visible files", "visible"), ("open tabs", "open tabs"))
_NONE_RE = re.compile(r"^\(.*\)$")  # "(No visible files)", "(No open tabs)": the harness says there are none
_MAX_FILES = 5


def report_parts(report: str) -> dict[str, list[str]]:
    """heading (lower case) → its non-blank lines, of one state report."""
    return {m.group(1).strip().lower(): [ln.strip() for ln in m.group(2).splitlines() if ln.strip()]
            for m in _PART_RE.finditer(report.replace("</environment_details>", ""))}


@fact_source(Section.CURRENT)
def harness_state_facts(ctx: FactContext) -> list[Fact]:
    for rnd in reversed(ctx.transcript.rounds):
        for msg in reversed(rnd.messages):
            reports = [r for r in msg.meta.get("environment_details") or () if isinstance(r, str)]
            if not reports:
                continue
            parts = report_parts(reports[-1])
            said = []
            for ending, label in _SHOWN:
                lines = next((v for k, v in parts.items() if k.endswith(ending)), [])
                lines = [ln for ln in lines if not _NONE_RE.match(ln)]
                if not lines:
                    continue
                if label == "mode":
                    said.append(lines[0])
                    continue
                names = list(dict.fromkeys(display_path(p, ctx.cwd) for p in lines))
                more = f" (+{len(names) - _MAX_FILES})" if len(names) > _MAX_FILES else ""
                said.append(f"{label}: " + ", ".join(f"`{n}`" for n in names[:_MAX_FILES]) + more)
            if not said:
                return []
            return [Fact(Section.CURRENT, f"Harness state at the end (r{rnd.number}): " + "; ".join(said),
                         [rnd.number], score=70, pending=True)]  # the tail never shows the report
    return []
