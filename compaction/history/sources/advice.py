"""What the agent advised when it only answered: in a round of a user's message and an answer with no
tool call, the items of the answer's lists that name something to run or set (a command, a flag, a
value in backticks) — the options it gave ("publish with `--provenance=false`", "bump the version in
`package.json`", "give npm support the UUID `108e…`"). Why: a question answered in prose leaves no
edit, command or error behind, so no other source keeps it, yet "which options did it give, which did
it prefer" is what the user acts on next. Scored below the decisions with a reason: it fills the room
they leave (at a tight budget it displaced a user's decision and two requests).
"""

from __future__ import annotations

from compaction.answer_options import options_in, prefers
from compaction.history.condense import cut_at_word
from compaction.history.facts import Fact, cite
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Role

MAX_ITEMS = 4  # per answer
ITEM_CHARS = 150
MAX_FACTS = 6  # per session: the latest answers
SCORE = 30.0  # below the decisions with a reason: it fills the room they leave
PREFERRED_BONUS = 14.0  # which option it prefers: weighs as a recommendation does (decisions.py: 38 + 6)


@fact_source(Section.DECISIONS)
def advice_facts(ctx: FactContext) -> list[Fact]:
    out: list[Fact] = []
    for rnd in ctx.transcript.rounds:
        # the user asked and the agent answered in words only (a report after tool work is not advice)
        if any(m.tool_calls or m.tool_results for m in rnd.messages) or not any(
                m.role is Role.USER and not m.harness and m.text.strip() for m in rnd.messages):
            continue
        answer = "\n".join(m.text for m in rnd.messages if m.role is Role.ASSISTANT and m.text and not m.harness)
        named = [cut_at_word(o, ITEM_CHARS) for o in options_in(answer)]
        if not named:
            continue
        c = cite([rnd.number])
        preferred = prefers(named[:MAX_ITEMS])
        out.append(Fact(Section.DECISIONS, f"Advised: {'; '.join(named[:MAX_ITEMS])} {c}", [rnd.number],
                        score=SCORE + (PREFERRED_BONUS if preferred else 0) + rnd.number / max(1, ctx.n_rounds),
                        short=f"Advised: {'; '.join(named[:2])} {c}" if len(named) > 2 else None))
    return out[-MAX_FACTS:]

