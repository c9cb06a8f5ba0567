"""Proactive avoidance (seed §2.5): rank recorded errors that resemble the work at hand.

Why an index: `check` runs before every step of an agent, against stores of a thousand records;
each record is reduced once to sets of keys (file names, symbols, commands, exception names) and a
query is a handful of set lookups per record.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from compaction.errors.families import BY_EXTENSION, FAMILIES
from compaction.errors.records import ErrorRecord
from compaction.errors.render import WARNING
from compaction.shell import command_keys, edited_files, norm_command

__all__ = ["Warning_", "command_keys", "edited_files", "index", "norm_command", "rank", "unbounded_output"]

_WORD = re.compile(r"[A-Za-z_][\w.\-/]*")
WEIGHTS = {"file": 5, "command": 4, "symbol": 3, "exception": 3, "test": 4, "family": 1, "recurring": 1, "editing": 3}
# errors that editing itself causes: an edit of a file of the same language is the moment to warn
# (and every error of a compiled family: see errors/families.py)
_EDIT_SENSITIVE = re.compile(r"SyntaxError|IndentationError|TabError|EditNotFound|CompileError|CannotFindSymbol")
_NAMED_EXCEPTIONS = frozenset(f.code for f in FAMILIES.values() if f.named_exceptions)
_COMPILED_PREFIXES = tuple(f"ERR_{f.code}_" for f in FAMILIES.values() if f.compiled)
MIN_SCORE = 3


def _compiled(err_id: str) -> bool:
    return err_id.startswith(_COMPILED_PREFIXES)
# Commands whose output has no bound (a whole file, a verbose test run, a recursive listing): the
# moment an ERR_TOOL_OutputTooLong recurs, whatever file or command it was last time.
_UNBOUNDED = re.compile(r"^\s*(?:cd\s+\S+\s*&&\s*)?(?:cat\s|nl\s|(?:python3?\s+-m\s+)?pytest\b|grep\s+-\w*[rR]|"
                        r"find\s|ls\s+-\w*R|tree\b|git\s+(?:log|diff|show)\b)")
_BOUNDED = re.compile(r"\|\s*(?:head|tail|wc|grep|less|sort\s+-u\s*\|\s*head)\b|\bsed\s+-n\b|>\s*\S|\s-q\b|--tb=(?:no|line)\b"
                      r"|\s-n\s*\d|--max-count|-maxdepth")


def unbounded_output(command: str) -> bool:
    """A command likely to print more than a harness shows (no head/tail/range/quiet flag)."""
    return bool(_UNBOUNDED.search(command)) and not _BOUNDED.search(command)

_FILE_LIKE = re.compile(r"\w\.[A-Za-z]{1,5}$")


def _base(path: str) -> str:
    return posixpath.basename(path.replace("\\", "/").rstrip("/"))


@dataclass
class Warning_:
    """One ranked warning: the seed's line plus why it fired."""

    id: str
    score: int
    reason: str
    advice: str
    line: str
    rounds: list[int] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"id": self.id, "score": self.score, "reason": self.reason, "advice": self.advice,
                "line": self.line, "rounds": self.rounds}


@dataclass
class _Keys:
    rec: ErrorRecord
    files: set[str]
    commands: set[str]
    symbols: set[str]
    name: str
    tests: set[str]
    family: str = ""
    skip: bool = False  # target bug: never warned about
    recurring: bool = False
    edit_sensitive: bool = False
    located: bool = False
    rounds: list[int] = field(default_factory=list)


def index(records: list[ErrorRecord]) -> list[_Keys]:
    out = []
    for rec in records:
        files: set[str] = set()
        commands: set[str] = set()
        symbols: set[str] = set()
        for o in rec.occurrences:
            loc = o.location
            if loc.path:
                files.add(_base(loc.path))
            if loc.command:
                commands |= command_keys(loc.command)
            if loc.symbol and len(loc.symbol) > 2 and not loc.symbol.startswith("<"):
                symbols.add(loc.symbol)
        name = rec.id.split("_", 2)[-1]
        tests = {t.split("[", 1)[0] for t in rec.tests}
        out.append(_Keys(rec, files, commands, symbols, name, tests, rec.family, rec.target_bug, rec.recurring,
                         bool(_EDIT_SENSITIVE.search(rec.id)) or _compiled(rec.id), bool(files or commands or symbols), rec.rounds))
    return out


def rank(keys: list[_Keys], *, text: str = "", files: list[str] | tuple = (), code: str = "",
         commands: list[str] | tuple = (), edits: list[str] | tuple = (), limit: int = 3,
         ignored: set[str] | frozenset = frozenset(), lang: str = "en") -> list[Warning_]:
    """Score each record against the work at hand; keep those at MIN_SCORE or above, best first.

    With nothing concrete to compare (no text, files, code, commands or edits: "before the next
    reply"), process errors that have no location (format errors, oversized output) still apply."""
    edit_files = [*edits, *(f for c in commands for f in edited_files(c))]
    q_files = {_base(f) for f in [*files, *edit_files] if f}
    q_cmds = set().union(*(command_keys(c) for c in commands)) if commands else set()
    blob = "\n".join([text, code, *commands])
    words = set(_WORD.findall(blob))
    q_files |= {_base(w) for w in words if _FILE_LIKE.search(w)}
    q_fams = {BY_EXTENSION.get(posixpath.splitext(f)[1]) for f in q_files} - {None}
    edit_fams = {BY_EXTENSION.get(posixpath.splitext(f)[1]) for f in edit_files} - {None}
    if code.strip() and not edit_fams:
        edit_fams = set(q_fams)
    editing = bool(edit_files) or bool(code.strip())
    ambient = not (blob.strip() or q_files)
    bare = {w.rsplit(".", 1)[-1] for w in words}
    scored: list[tuple[int, list[str], _Keys]] = []
    for k in keys:
        if k.skip or k.rec.id in ignored or any(a in ignored for a in k.rec.merged):  # aliases too
            continue
        score, why = 0, []
        if k.files:
            hit = k.files & q_files
            if hit:
                score += WEIGHTS["file"]
                why.append(f"same file {min(hit)}")
        if k.commands:
            hit = k.commands & q_cmds
            if hit:
                score += WEIGHTS["command"]
                why.append(f"same command `{min(hit)}`")
        if k.symbols:
            hit = k.symbols & bare
            if hit:
                score += WEIGHTS["symbol"]
                why.append(f"symbol {min(hit)}")
        fam = k.family
        if k.name in bare and fam in _NAMED_EXCEPTIONS:
            score += WEIGHTS["exception"]
            why.append(f"mentions {k.name}")
        if k.tests and any(t in blob for t in k.tests):
            score += WEIGHTS["test"]
            why.append("same test")
        if editing and k.edit_sensitive and (fam in edit_fams or fam == "TOOL"):
            score += WEIGHTS["editing"]
            why.append("editing " + ("a file" if fam == "TOOL" else f"a {fam} file"))
        if fam in q_fams:
            score += WEIGHTS["family"]
            why.append(f"{fam} file")
        if k.rec.id == "ERR_TOOL_OutputTooLong" and any(unbounded_output(c) for c in commands):
            score += WEIGHTS["command"]
            why.append("a command whose output has no bound")
        if ambient and fam == "TOOL" and not k.located:
            score = MIN_SCORE
            why.append("process error: applies to every step")
        if score and k.recurring:
            score += WEIGHTS["recurring"]
        if score >= MIN_SCORE:
            scored.append((score, why, k))
    scored.sort(key=lambda x: (-x[0], -len(x[2].rounds), -(x[2].rounds[-1] if x[2].rounds else 0), x[2].rec.id))
    template = WARNING.get(lang, WARNING["en"])
    return [Warning_(k.rec.id, score, ", ".join(why), k.rec.avoidance or "",
                     template.format(id=k.rec.id, advice=k.rec.avoidance or ""), k.rounds)
            for score, why, k in scored[:limit]]
