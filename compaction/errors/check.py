"""Proactive avoidance (seed §2.5): rank recorded errors that resemble the work at hand.

Why an index: `check` runs before every step of an agent, against stores of a thousand records;
each record is reduced once to sets of keys (file names, symbols, commands, exception names) and a
query is a handful of set lookups per record.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from compaction.errors.records import ErrorRecord
from compaction.errors.render import WARNING

_WORD = re.compile(r"[A-Za-z_][\w.\-/]*")
_EXT_FAMILY = {
    ".py": "PY", ".pyi": "PY", ".ts": "TS", ".tsx": "TS", ".mts": "TS", ".cts": "TS", ".java": "JAVA",
    ".js": "JS", ".jsx": "JS", ".mjs": "JS", ".cjs": "JS", ".go": "GO", ".rs": "RS", ".c": "C", ".h": "C",
    ".cc": "C", ".cpp": "C", ".hpp": "C", ".pony": "PONY",
}
WEIGHTS = {"file": 5, "command": 4, "symbol": 3, "exception": 3, "test": 4, "family": 1, "recurring": 1}
MIN_SCORE = 3
_FILE_LIKE = re.compile(r"\w\.[A-Za-z]{1,5}$")


_FILE_TOKEN = re.compile(r"[\w/]\.(?:py|js|mjs|cjs|ts|tsx|sh|java|go|rs|rb|pl|c|cc|cpp|pony|json|toml|cfg|ini)$")


def norm_command(cmd: str | None) -> str:
    """A command's identity for "same command": the program plus the first file it names, else its
    first argument, taken from the last command of a chain (`cd x && pytest -n 2 t.py::a` -> `pytest t.py`)."""
    if not cmd or not cmd.strip():
        return ""
    first = cmd.strip().splitlines()[0]
    segments = [seg for seg in re.split(r"&&|\|\||;|\|", first) if seg.strip()]
    words = segments[-1].split() if segments else []
    while words and ("=" in words[0] or words[0] in ("sudo", "env", "time", "timeout", "nohup")):
        words = words[1:]
        if words and words[0].isdigit():
            words = words[1:]
    if not words:
        return ""
    files = [w.split("::", 1)[0].strip("'\"") for w in words[1:]]
    file = next((f for f in files if _FILE_TOKEN.search(f)), None)
    if file:
        return f"{words[0]} {file}"
    rest = [w for w in words[1:] if not w.startswith("-")]
    return " ".join([words[0], *rest[:1]])


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
                nc = norm_command(loc.command)
                if nc:
                    commands.add(nc)
            if loc.symbol and len(loc.symbol) > 2 and not loc.symbol.startswith("<"):
                symbols.add(loc.symbol)
        name = rec.id.split("_", 2)[-1]
        tests = {t.split("[", 1)[0] for t in rec.tests}
        out.append(_Keys(rec, files, commands, symbols, name, tests))
    return out


def rank(keys: list[_Keys], *, text: str = "", files: list[str] | tuple = (), code: str = "",
         commands: list[str] | tuple = (), limit: int = 3, ignored: set[str] | frozenset = frozenset(),
         lang: str = "en") -> list[Warning_]:
    q_files = {_base(f) for f in files if f}
    q_cmds = {norm_command(c) for c in commands if c}
    blob = "\n".join([text, code, *commands])
    words = set(_WORD.findall(blob))
    q_files |= {_base(w) for w in words if _FILE_LIKE.search(w)}
    q_fams = {_EXT_FAMILY.get(posixpath.splitext(f)[1]) for f in q_files} - {None}
    bare = {w.rsplit(".", 1)[-1] for w in words}
    found: list[Warning_] = []
    for k in keys:
        rec = k.rec
        if rec.id in ignored or rec.target_bug:
            continue
        score, why = 0, []
        hit = k.files & q_files
        if hit:
            score += WEIGHTS["file"]
            why.append(f"same file {sorted(hit)[0]}")
        hit = k.commands & q_cmds
        if hit:
            score += WEIGHTS["command"]
            why.append(f"same command `{sorted(hit)[0]}`")
        hit = k.symbols & bare
        if hit:
            score += WEIGHTS["symbol"]
            why.append(f"symbol {sorted(hit)[0]}")
        if k.name in bare and rec.family in ("PY", "JAVA", "JS"):
            score += WEIGHTS["exception"]
            why.append(f"mentions {k.name}")
        if k.tests and any(t in blob for t in k.tests):
            score += WEIGHTS["test"]
            why.append("same test")
        if rec.family in q_fams:
            score += WEIGHTS["family"]
            why.append(f"{rec.family} file")
        if score and rec.recurring:
            score += WEIGHTS["recurring"]
        if score >= MIN_SCORE:
            advice = rec.avoidance or ""
            line = WARNING.get(lang, WARNING["en"]).format(id=rec.id, advice=advice)
            found.append(Warning_(rec.id, score, ", ".join(why), advice, line, rec.rounds))
    found.sort(key=lambda w: (-w.score, -len(w.rounds), -(w.rounds[-1] if w.rounds else 0), w.id))
    return found[:limit]
