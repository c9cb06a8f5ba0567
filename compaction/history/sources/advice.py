"""What the agent advised when it only answered: in a round of a user's message and an answer with no
tool call, the items of the answer's lists that name something to run or set (a command, a flag, a
value in backticks) — the options it gave ("publish with `--provenance=false`", "bump the version in
`package.json`", "give npm support the UUID `108e…`"). Why: a question answered in prose leaves no
edit, command or error behind, so no other source keeps it, yet "which options did it give, which did
it prefer" is what the user acts on next. Scored below the decisions with a reason: it fills the room
they leave (at a tight budget it displaced a user's decision and two requests).
"""

from __future__ import annotations

import re

from compaction.events import without_fences
from compaction.history.condense import cut_at_word
from compaction.history.facts import WS_RE, Fact, cite
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Role

MAX_ITEMS = 4  # per answer
ITEM_CHARS = 150
MAX_FACTS = 6  # per session: the latest answers
SCORE = 30.0  # below the decisions with a reason: it fills the room they leave
_ITEM_RE = re.compile(r"^[^\S\n]*(?:[-*•]|\d{1,2}[.)])\s+(\S.*)$", re.MULTILINE)
_NAMES_RE = re.compile(r"`[^`\n]{2,80}`|(?<![\w-])--[a-z][\w-]+")  # something to run or set
# An option the answer labels as one ("**Quick workaround:** publish with…", "Option B: …", "更稳妥：改一个新的
# 版本号…"): an option though it names nothing in backticks. Not any label ("Purpose: …", "Hotfix: …", "Quick
# summary: …"): the short label before the colon says option, alternative, workaround, a fix or way of a kind,
# or which is safer or preferred, as whole words.
_LABELED_RE = re.compile(r"^\**(?=[^:：`\n]{1,24}\**\s*[:：])[^:：`\n]*?(?:(?i:\b(?:options?|alternatives?|approach|"
                         r"workaround|(?:quick|temporary|simple|proper|long[- ]term|short[- ]term) (?:fix|way|solution)|"
                         r"fix|safer|safest|preferred|recommended)\b)|方案|办法|绕过|稳妥|推荐|选项)")
# Words that say which option the agent prefers: that answer is a choice, not only a list ("not recommended" is
# no preference, nor "不推荐"; "建议：" only means "suggestion:")
_PREFERRED_RE = re.compile(r"(?i)(?<!not )\b(?:recommend\w*|preferred|safer|safest|best|better)\b|(?<!不)推荐|更稳妥|最稳妥|"
                           r"首选|更好|最好")
_LEAD_TAIL_RE = re.compile(r"(?<=[.。!！?？;；,，])\s*[^.。!！?？:：\n]{1,20}[:：]$")
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
        if "`" not in answer and "--" not in answer:
            continue
        # a list inside a code block is code (a diff's removed lines), not options
        items = [WS_RE.sub(" ", i.group(1)).strip() for i in _ITEM_RE.finditer(without_fences(answer))]
        # an item's closing lead into a nested list ("… So:", "针对这种情况：") says nothing of its own
        named = [cut_at_word(_LEAD_TAIL_RE.sub("", i) or i, ITEM_CHARS) for i in items
                 if _NAMES_RE.search(i) or _LABELED_RE.match(i)]
        if len(named) < 2:  # one item is a remark, not a set of options
            continue
        c = cite([rnd.number])
        preferred = any(_PREFERRED_RE.search(i[:40]) for i in named[:MAX_ITEMS])
        out.append(Fact(Section.DECISIONS, f"Advised: {'; '.join(named[:MAX_ITEMS])} {c}", [rnd.number],
                        score=SCORE + (PREFERRED_BONUS if preferred else 0) + rnd.number / max(1, ctx.n_rounds),
                        short=f"Advised: {'; '.join(named[:2])} {c}" if len(named) > 2 else None))
    return out[-MAX_FACTS:]

