"""The options an answer in words lays out: the items of its lists that name something to run or set (a
command, a flag, a value in backticks) or that it labels as an option ("**Quick workaround:** publish
with…", "更稳妥：改一个新的版本号…"), and whether it prefers one.

Why one module: the agent's advice on a question is kept twice, as a decision (`history.sources.advice`)
and as what a pasted error's record says to do when no edit followed it (`errors.scan`); both read the
same items the same way.
"""

from __future__ import annotations

import re

from compaction.events import without_fences

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
_WS_RE = re.compile(r"\s+")
PREFERENCE_HEAD = 40  # an item says it is preferred in its opening words


def options_in(answer: str) -> list[str]:
    """The answer's options, whole (the caller cuts them), in order; fewer than two is no set of options
    (one item is a remark): an empty list then."""
    if "`" not in answer and "--" not in answer:
        return []
    # a list inside a code block is code (a diff's removed lines), not options
    items = [_WS_RE.sub(" ", i.group(1)).strip() for i in _ITEM_RE.finditer(without_fences(answer))]
    # an item's closing lead into a nested list ("… So:", "针对这种情况：") says nothing of its own
    named = [_LEAD_TAIL_RE.sub("", i) or i for i in items if _NAMES_RE.search(i) or _LABELED_RE.match(i)]
    return named if len(named) >= 2 else []


def labeled_first(options: list[str]) -> list[str]:
    """The options the answer labels as such ("临时绕过：…", "更稳妥：…", "Quick workaround: …") when it labels two
    or more: they are the choices it lays out, the rest are steps and remarks around them. Else all."""
    labeled = [o for o in options if _LABELED_RE.match(o)]
    return labeled if len(labeled) >= 2 else options


def prefers(options: list[str]) -> bool:
    """Whether one of the options says it is the one to take."""
    return any(_PREFERRED_RE.search(o[:PREFERENCE_HEAD]) for o in options)
