"""Role presets and free-text instructions (`/compact keep X, ignore Y`) turned into filters."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_CLAUSE_RE = re.compile(
    r"\b(keep|preserve|retain|focus on|ignore|drop|omit|exclude|skip|remove|without)\b\s*:?\s*(.+?)"
    r"(?=(?:[,;.]\s*|\s+and\s+|\s+but\s+)\b(?:keep|preserve|retain|focus on|ignore|drop|omit|exclude|skip|remove|without)\b|[.;\n]|$)",
    re.IGNORECASE,
)
_ZH_RE = re.compile(r"(保留|忽略|删除|去掉)\s*[:：]?\s*([^，,；;。\n]+)")
_KEEP_WORDS = {"keep", "preserve", "retain", "focus on", "保留"}


_STOP = {"the", "a", "an", "all", "any", "every", "about", "of", "on", "in", "for", "to", "and", "or", "with",
         "our", "my", "its", "their", "this", "that", "these", "those", "stuff", "things", "details", "detail"}


def _content_words(term: str) -> list[str]:
    return [w for w in re.findall(r"[\w./@#-]+", term.lower()) if w not in _STOP]


def _mentions(text: str, term: str) -> bool:
    """`text` mentions `term` when it holds every content word of it ("the CSS tweaks" → css, tweaks);
    a one-word term may also be a prefix of a word ("decision" matches "decisions"), or of a snake_case word's part
    ("xdist" matches `test_xdist_longrepr`: a test's name says what it is about), not of a dunder's
    ("init" is not `__init__.py`)."""
    low = text.lower()
    words = _content_words(term)
    if not words:
        return False
    if len(words) == 1:
        return re.search(r"(?:(?<!\w)|(?<=[^\W_]_))" + re.escape(words[0]), low) is not None
    return all(w in low for w in words)


@dataclass
class Steering:
    keep: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)

    def ignored(self, text: str) -> bool:
        return any(_mentions(text, term) for term in self.ignore)

    def kept(self, text: str) -> bool:
        return any(_mentions(text, term) for term in self.keep)


def parse_instructions(instructions: str | None) -> Steering:
    """Extract keep/ignore terms. Each term is a phrase; commas inside a clause split terms."""
    steering = Steering()
    if not instructions:
        return steering
    pairs = [(m.group(1).lower(), m.group(2)) for m in _CLAUSE_RE.finditer(instructions)]
    pairs += [(m.group(1), m.group(2)) for m in _ZH_RE.finditer(instructions)]
    for verb, rest in pairs:
        for term in re.split(r",|\band\b|、", rest):
            term = term.strip().strip("`'\"").lower()
            if len(term) < 2:
                continue
            (steering.keep if verb in _KEEP_WORDS else steering.ignore).append(term)
    return steering


@dataclass(frozen=True)
class RolePreset:
    """What a role wants (seed §7): developer keeps code and error memory; tester keeps tests and
    ERR_LOGIC_ defects; product manager keeps requirements and decisions, no code, no error memory."""

    name: str
    error_memory: bool
    error_prefixes: tuple[str, ...] | None  # None = all families
    code: bool  # commands, code spans and verbatim tool output
    tests_first: bool


ROLES = {
    "developer": RolePreset("developer", True, None, True, False),
    "tester": RolePreset("tester", True, ("ERR_LOGIC_",), True, True),
    "pm": RolePreset("pm", False, (), False, False),
}


def role_preset(name: str | None) -> RolePreset:
    key = (name or "developer").lower().replace("-", "").replace("_", "")
    key = {"productmanager": "pm", "product": "pm", "dev": "developer", "qa": "tester", "test": "tester"}.get(key, key)
    if key not in ROLES:
        raise ValueError(f"unknown role {name!r}; use developer, tester or pm")
    return ROLES[key]


_CODE_SPAN_RE = re.compile(r"`([^`\n]+)`")
_FENCE_RE = re.compile(r"```.*?(?:```|$)", re.DOTALL)


def strip_code(text: str) -> str:
    """Prose only: fenced blocks removed, inline code spans unquoted (for the pm role)."""
    text = _FENCE_RE.sub(" ", text)
    return _CODE_SPAN_RE.sub(r"\1", text)
