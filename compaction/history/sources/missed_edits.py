"""Substitutions that changed nothing and were never made since: a line-addressed `sed -i 'Ns/a/b/'`
whose line, as the session last saw it, held no `a`, in a file no later call of the session changed.

Why: the agent believes the change made ("I have updated all `set_output` overrides"), and the
command's own line in the completed actions is one among dozens. The code the session leaves behind
lacks it: a successor must hear it as work left undone, beside the state, not as a past command's
detail; told by what it meant to change where (scikit-learn's r31 gave `FeatureUnion.set_output` its
`**kwargs` on line 1030, then aimed its two calls' `**kwargs` at lines 1048 and 1050, a docstring's
end and a `for`: the method takes the new arguments and passes them on nowhere), not by the text of
lines it missed. A later claim of the agent's that speaks of that change ("I have updated all
`set_output` overrides I found.") is told with the miss beside it (`belied`).
"""

from __future__ import annotations

import os
import re

from compaction.events import Event, EventKind, Miss
from compaction.history.facts import Fact, display_path
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source
from compaction.mdsafe import inline_code

NAMED = 3  # substitutions named per file; the rest counted
SCORE = 76
CODE_CHARS = 70  # of a substitution's text, as quoted
SHARED_CHARS = 16  # a replacement's beginning its pattern shares, left out from this length
_CHANGES = frozenset({EventKind.EDIT, EventKind.WRITE, EventKind.DELETE, EventKind.MOVE, EventKind.REVERT})
# The agent saying changes are made: "I have updated all …", "we've now fixed …", "all overrides are updated"
_CLAIM_RE = re.compile(r"(?i)\b(?:I|we)(?:'ve| have)\s+(?:now\s+|also\s+|already\s+)?(?:updated|changed|modified|"
                       r"fixed|added|applied|replaced|edited|patched|made)\b|\ball\b[^.\n]{0,80}\b(?:are|were|now|been)"
                       r"\s+(?:updated|changed|modified|fixed|patched)\b")
# A name in code: one with an underscore or an inner capital (`set_output`, `transformerList`), not a word
_CODE_NAME_RE = re.compile(r"[A-Za-z_]\w*(?:_\w+|[a-z][A-Z]\w*)")


def standing(ctx: FactContext) -> list[Event]:
    """The events whose missed substitutions no later change of their file made up for, in order."""
    return ctx.shared(("missed_edits", "standing"), lambda: _standing(ctx))


def _standing(ctx: FactContext) -> list[Event]:
    missed = [(i, e) for i, e in enumerate(ctx.events) if e.missed and e.misses and e.path]
    if not missed:
        return []
    last_change: dict[str, int] = {}  # each file's last change by the session (its place among the events)
    for i, e in enumerate(ctx.events):
        if e.kind in _CHANGES and e.path and not e.failed and not e.git_output and not e.unchanged:
            last_change[display_path(e.path, ctx.cwd)] = i
    # changed again since: whether that made up for it the change records tell
    return [e for at, e in missed if last_change.get(display_path(e.path or "", ctx.cwd), -1) <= at]


def _code(text: str) -> str:
    text = " ".join(text.split())
    return inline_code(text if len(text) <= CODE_CHARS else text[:CODE_CHARS - 1] + "…")


def _new_part(old: str, new: str) -> str:
    """The replacement as told after its pattern: a long shared beginning left out at a word's start
    (`super().set_output(transform=transform)` → `…transform=transform, **kwargs)`)."""
    shared = len(os.path.commonprefix([old, new]))
    cut = max(old.rfind(c, 0, shared) for c in " (,[{") + 1 if shared >= SHARED_CHARS else 0
    return _code(("…" if cut else "") + new[cut:])


def _scope(m: Miss) -> str:
    return f"`{m.scope}` (opened at line {m.opened})" if m.scope else ""


def _aimed(m: Miss, scoped: bool) -> str:
    """One missed substitution: the line it was aimed at, what it was to turn into what there, and what
    that line held instead."""
    new = m.hunk.added[0] if m.hunk.added else ""
    held = "" if m.held is None else (" but is blank" if not m.held.strip() else f" but holds {_code(m.held)}")
    where = f"{m.hunk.context} (in {_scope(m)})" if scoped and m.scope else str(m.hunk.context)
    return f"{where} was to turn {_code(m.hunk.removed[0])} into {_new_part(m.hunk.removed[0], new)}{held}"


def _made(e: Event) -> str:
    """The same command's substitutions of the file that were made: the rest of the change it meant."""
    made = [h for h in e.hunks if h.fragment and h.context and h.added]
    if not made:
        return ""
    return ". Made: " + ", ".join(f"{h.context} (→ {_new_part(h.removed[0] if h.removed else '', h.added[0])})" for h in made[:NAMED]) + \
        (f", +{len(made) - NAMED}" if len(made) > NAMED else "")


def _fact(e: Event, ctx: FactContext) -> Fact:
    name = display_path(e.path or "", ctx.cwd).rsplit("/", 1)[-1]
    misses = e.misses
    n = len(misses)
    made = sum(1 for h in e.hunks if h.fragment and h.context)
    count = f"{n} of the {n + made} substitutions" if made else f"{n} substitution{'s' if n > 1 else ''}"
    scopes = {_scope(m) for m in misses}
    one = next(iter(scopes)) if len(scopes) == 1 else ""
    aims = [_aimed(m, not one) for m in misses]
    where = "; ".join(aims[:NAMED]) + (f"; +{n - NAMED}" if n > NAMED else "")
    head = f"Not made: {count} of `{name}` (r{e.round})" + (f" in {one}" if one else "")
    lines = 'their lines' if n > 1 else 'its line'
    text = (f"{head}, which found no such text on {lines}: {where}{_made(e)}. No later call changed the file: "
            "those lines are as they were")
    return Fact(Section.CURRENT, text, [e.round], score=SCORE, priority=1.5, pending=True,
                short=f"{head} matched nothing on {lines}")


@fact_source(Section.CURRENT)
def missed_edit_facts(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.code:
        return []
    return [_fact(e, ctx) for e in standing(ctx)]


def _names(e: Event, ctx: FactContext) -> set[str]:
    """What a claim about the missed change would name: the file, and code names (the definitions, the names
    aimed at) when they read as code: an underscore or an inner capital (`set_output`). A definition's plain
    name (`main`, `run`) is an English word as well, said as code only in backticks or as a call (`_said`)."""
    names = {display_path(e.path or "", ctx.cwd).rsplit("/", 1)[-1]}
    names |= {m.scope for m in e.misses if m.scope and _CODE_NAME_RE.fullmatch(m.scope)}
    for m in e.misses:
        names |= set(_CODE_NAME_RE.findall(m.hunk.removed[0]))
    return names


def _said(name: str, text: str, plain: set[str]) -> bool:
    """Whether the text names `name`: as a word when it reads as code, else (`plain`) in backticks or as a call."""
    if name in plain:
        return re.search(rf"`{re.escape(name)}(?:\(\))?`|(?<![\w.]){re.escape(name)}\(", text) is not None
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def belied(ctx: FactContext, rounds: list[int], text: str, account: bool = False) -> str:
    """The note a claim of changes made ("I have updated all `set_output` overrides I found.") takes when,
    said after a standing miss (from its round on: an export may tell a reply's words and its calls as one
    round), it names the missed change's file, definition or code: " — but r31's 2 substitutions of
    `pipeline.py` in `set_output` (…) matched nothing (lines 1048, 1050) and were never made"; "" when none.
    Told bare, the claim reads as the state of the code. `account`: the text is an account of changes made
    (`recaps`), a claim without the words that say so."""
    events = standing(ctx) if ctx.preset.code else []
    if not events or not rounds or not (account or _CLAIM_RE.search(text)):
        return ""
    spoken = []
    for e in events:
        if max(rounds) < e.round:
            continue
        plain = {m.scope for m in e.misses if m.scope and not _CODE_NAME_RE.fullmatch(m.scope)}
        if any(_said(n, text, plain) for n in _names(e, ctx) | plain):
            spoken.append(e)
    return " — but " + "; and ".join(_note(e, ctx) for e in spoken) if spoken else ""


def _note(e: Event, ctx: FactContext) -> str:
    n = len(e.misses)
    scopes = {_scope(m) for m in e.misses}
    lines = [str(m.hunk.context).removeprefix("line ") for m in e.misses[:NAMED]]
    at = f" ({'lines' if len(lines) > 1 else 'line'} {', '.join(lines)})" if lines else ""
    name = display_path(e.path or "", ctx.cwd).rsplit("/", 1)[-1]
    return (f"r{e.round}'s {n} substitution{'s' if n > 1 else ''} of `{name}`"
            + (f" in {next(iter(scopes))}" if len(scopes) == 1 and "" not in scopes else "")
            + f" matched nothing{at} and {'were' if n > 1 else 'was'} never made")
