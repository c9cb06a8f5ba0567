"""What a written text does, in the few facts a successor asks about and a list of definitions does
not say: what an entry file re-exports, what a stub throws, the literal values it sets (a duration,
a threshold, a URL), and where the functions an edit added are called from.

Why a module of its own: the change records (changes.py) read it for a file's final text or for the
lines its edits added; it is inference by structure alone (`export … from 'x'`, `throw`/`raise` with a
message, `name = <number or quoted string>`, `name(` on a line of another definition), whatever the
language. Pure and linear in the lines given; no fact source here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from compaction.edits import definition, enclosing
from compaction.events import Event

_REEXPORT_RE = re.compile(r"^\s*export\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+['\"]([^'\"]+)['\"]")
# `throw new Error('not yet implemented')`, `raise ValueError("bad")`, `panic!("…")`: a message a stub or a guard gives.
_THROW_RE = re.compile(r"\b(?:throw\s+(?:new\s+)?([\w.]+)|raise\s+([\w.]+)|(panic)!?)\s*\(\s*[fr]?(['\"`])(.{3,70}?)\4")
_RAISE_BARE_RE = re.compile(r"^\s*raise\s+(NotImplementedError|NotImplemented)\b")
# `const totalDuration = 1200;`, `self.timeout = 30`, `BASE_URL: str = "https://…"`: a literal set by name.
# An object literal whose members hold numbers (`cooldowns[move.to] = { until: now + 10000, duration: 10000 }`) too;
# an element by index or plain key (`board[61] = "R"`, `users[id] = {…}`) is content, not a setting.
_ASSIGN_RE = re.compile(r"^\s*(?:export\s+)?(?:(?:const|let|var|val|static|final|private|public|readonly)\s+)*"
                        r"([A-Za-z_$][\w$.]*(?:\[[\w$.]{1,30}\])?)\s*(?::\s*[\w<>\[\]|. ]{1,30})?\s*=(?!=)\s*"
                        r"(-?\d[\d_.]*(?:e-?\d+)?|'[^'\n]{1,60}'|\"[^\"\n]{1,60}\"|\{[^{}\n]{0,70}?\b\d[^{}\n]{0,70}\})"
                        r"\s*[;,]?\s*(?:(?://|#).*)?$")
_TRIVIAL = frozenset({"0", "1", "-1", "0.0", "1.0", "''", '""'})
# A step by a literal: `rule_score += 15`, `delay *= 2` (not `i += 1` alone: no value set before it is said).
_STEP_RE = re.compile(r"^\s*([A-Za-z_$][\w$.]*)\s*([-+*/])=\s*(\d[\d_.]*)\s*;?\s*(?:(?://|#).*)?$")
MAX_STEPS = 4
MAX_EXPORTS = 5
MAX_THROWS = 2
MAX_VALUES = 6
MAX_CALLED = 4
SCAN_LINES = 5_000  # bounded work on a very long text


def reexports(lines: list[str]) -> list[str]:
    """The modules a text re-exports (`export * from './a.js'`), in order."""
    out: list[str] = []
    for line in lines[:SCAN_LINES]:
        if "export" in line and "from" in line and (m := _REEXPORT_RE.match(line)) and m.group(1) not in out:
            out.append(m.group(1))
    return out


def throws(lines: list[str]) -> list[str]:
    """What the text throws with a message (`Error('x not yet implemented')`), or a bare `raise
    NotImplementedError`: a stub's behaviour."""
    out: list[str] = []
    for line in lines[:SCAN_LINES]:
        if "throw" not in line and "raise" not in line and "panic" not in line:
            continue
        m = _THROW_RE.search(line)
        said = f"{m.group(1) or m.group(2) or m.group(3)}('{m.group(5)}')" if m else ""
        if not said and (b := _RAISE_BARE_RE.match(line)):
            said = b.group(1)
        if said and said not in out:
            out.append(said)
        if len(out) >= MAX_THROWS:
            break
    return out


def values(lines: list[str], known: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """`name = literal` for the literals the text sets by name (not 0, 1, empty strings; not names in
    `known`, already said with their values), with the steps it then adds or takes away by literals
    (`rule_score = 50 (+= 15, += 5, -= 10)`: a score's rules are its steps)."""
    out: list[str] = []
    seen: set[str] = set(known)
    steps: dict[str, list[str]] = {}
    for line in lines[:SCAN_LINES]:
        if "=" not in line:  # `_ASSIGN_RE` itself rules out comparisons (`=(?!=)`)
            continue
        m = _ASSIGN_RE.match(line)
        if not m:
            if (a := _STEP_RE.match(line)) and a.group(1) not in known:
                said = steps.setdefault(a.group(1), [])
                step = f"{a.group(2)}= {a.group(3)}"
                if step not in said and len(said) < MAX_STEPS:
                    said.append(step)
            continue
        if m.group(2) in _TRIVIAL or m.group(1) in seen or m.group(1) == "xmlns":  # a namespace: markup, no value
            continue
        if "[" in m.group(1) and not (m.group(2)[0] == "{" and "." in m.group(1).split("[", 1)[1]):
            continue  # `board[61] = "R"`, `users[id] = {…}`: an element's content; `cooldowns[move.to] = {…}` is set by rule
        seen.add(m.group(1))
        out.append(f"{m.group(1)} = {' '.join(m.group(2).split())}")
        if len(out) >= 2 * MAX_VALUES:
            break
    out = [f"{v} ({', '.join(steps[n])})" if (n := v.split(" = ", 1)[0]) in steps else v for v in out]
    # A name's own value first (`totalDuration = 1200`), an attribute's (`osc.type = 'square'`) after; within
    # each, an object literal (longer) after the scalars.
    out.sort(key=lambda v: ("." in (n := v.split(" = ", 1))[0], n[1].startswith("{")))
    return out[:MAX_VALUES]


def callers(lines: list[str], names: list[str]) -> list[str]:
    """Where each of `names` (functions an edit added) is called, grouped by caller:
    `playTick, playLand called in tick`. A call on its own definition's line is not a call."""
    if not names:
        return []
    found: dict[str, list[str]] = {}  # caller -> names it calls
    wanted = names[:MAX_CALLED]
    sites: dict[str, int] = dict.fromkeys(wanted, 0)  # call sites placed per name: bounded work
    for i, line in enumerate(lines[:SCAN_LINES]):
        if "(" not in line:
            continue
        for name in wanted:
            if sites[name] >= 3:
                continue
            at = line.find(name + "(")
            if at < 0 or (at > 0 and (line[at - 1].isalnum() or line[at - 1] in "_$")):
                continue
            d = definition(line)
            if d and d.group(1) == name:
                continue
            sites[name] += 1
            caller = enclosing(lines[max(0, i - 400):i], line) or "top level"
            if caller != name and name not in found.setdefault(caller, []):
                found[caller].append(name)
    return [f"{', '.join(called)} called in {caller}" for caller, called in list(found.items())[:3]]


_WORD_RE = re.compile(r"[A-Za-z_$][\w$]*")


def signature_changes(events: Iterable[Event]) -> list[str]:
    """A definition line an edit reworded, by the words it lost or gained (`unionIterablesAsyncGen:
    − async`): a keyword dropped from a signature that no identifier swap shows. Latest wording wins."""
    found: dict[str, tuple[list[str], list[str]]] = {}
    for e in events:
        for h in e.hunks:
            if not (h.removed and h.added) or h.fragment:
                continue
            old = {m.group(1): ln for ln in h.removed if (m := definition(ln))}
            if not old:
                continue
            for ln in h.added:
                m = definition(ln)
                if not m or m.group(1) not in old or old[m.group(1)].strip() == ln.strip():
                    continue
                before, after = _WORD_RE.findall(old[m.group(1)]), _WORD_RE.findall(ln)
                lost = [w for w in before if w not in after]
                got = [w for w in after if w not in before]
                if (lost or got) and len(lost) + len(got) <= 4:
                    found[m.group(1)] = (lost, got)
    out = []
    for name, (lost, got) in list(found.items())[-3:]:
        said = " ".join([f"− {w}" for w in lost] + [f"+ {w}" for w in got])
        out.append(f"{name} signature: {said}")
    return out
