"""Which file a change was made to when its exporter kept the change's text but not its file.

Some exports drop an edit's path (SpecStory's Copilot Chat renders `copilot_replaceString` with no
arguments, only the new text in its result). The text itself still says where it went: a replacement
keeps lines of the file around the change and re-declares the class, function or test it sits in. The
file is named only when exactly one file the session has shown text of (its written content, earlier
edits' new text, a read's output) shares that evidence: a guess between files is worse than no record.
Also the one place fence languages map to file extensions (a block's language may say its file's kind).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from compaction.edits import definitions
from compaction.memo import per_text

# A fence's language -> the extensions of files written in it (a language not listed is its own extension).
_EXTENSIONS: dict[str, tuple[str, ...]] = {
    "typescript": ("ts", "tsx", "mts", "cts"), "ts": ("ts", "mts", "cts"), "tsx": ("tsx",),
    "javascript": ("js", "mjs", "cjs", "jsx"), "js": ("js", "mjs", "cjs"), "jsx": ("jsx",),
    "python": ("py", "pyi"), "py": ("py", "pyi"), "python3": ("py",), "ruby": ("rb",), "rust": ("rs",),
    "golang": ("go",), "shell": ("sh", "bash", "zsh"), "bash": ("sh", "bash"), "sh": ("sh",), "zsh": ("zsh", "sh"),
    "yaml": ("yaml", "yml"), "yml": ("yml", "yaml"), "markdown": ("md", "mdx"), "md": ("md",),
    "json": ("json", "jsonc"), "jsonc": ("jsonc", "json"), "c++": ("cpp", "cc", "cxx", "hpp", "hh", "h"),
    "cpp": ("cpp", "cc", "cxx", "hpp", "hh", "h"), "c": ("c", "h"), "csharp": ("cs",), "c#": ("cs",),
    "kotlin": ("kt", "kts"), "html": ("html", "htm"), "powershell": ("ps1", "psm1"), "perl": ("pl", "pm"),
    "objective-c": ("m", "h"), "scala": ("scala", "sc"), "haskell": ("hs",), "elixir": ("ex", "exs"),
    "erlang": ("erl",), "dockerfile": ("dockerfile",), "makefile": ("mk", "makefile"), "java": ("java",),
    "swift": ("swift",), "sql": ("sql",), "r": ("r",), "cmake": ("cmake",), "php": ("php",), "lua": ("lua",),
    "dart": ("dart",), "text": (), "plaintext": (),
}


_PROSE_LANGUAGES = frozenset({"markdown", "md", "text", "plaintext"})
_CODE_EXTENSIONS = frozenset(ext for lang, exts in _EXTENSIONS.items() if lang not in _PROSE_LANGUAGES for ext in exts)


def known_code(path: str) -> bool:
    """Whether `path`'s extension (or whole name: `Dockerfile`) is one a programming or data language's
    files use: its `#` lines are comments, not headings."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name.rsplit(".", 1)[-1] in _CODE_EXTENSIONS


def extensions(language: str) -> tuple[str, ...]:
    """The file extensions a fence's language stands for (`typescript` -> ts, tsx, …); () when it names none."""
    lang = language.strip().lower()
    return _EXTENSIONS.get(lang, (lang,) if re.fullmatch(r"[a-z0-9]{1,10}", lang) else ())


def in_language(path: str, language: str) -> bool:
    """Whether `path` is a file of `language` (by its extension, or its whole name: `Dockerfile`)."""
    ends = _endings(language)
    return bool(ends) and ("/" + path.replace("\\", "/").lower()).endswith(ends)


@per_text(64)
def _endings(language: str) -> tuple[str, ...]:
    """`.ext` and `/ext` (a whole name) for each extension of `language`; memoized: every file the
    session read is checked against one language."""
    return tuple(x for ext in extensions(language) for x in ("." + ext, "/" + ext))


_MIN_LINE = 16  # shorter lines (`}`, `return x`, `else:`) recur in any file: no evidence
_WORD_RE = re.compile(r"[A-Za-z_$][\w$]{2,}")
# A test's name as its runner declares it: `it('does x', …)`, `test("x")`, `describe('x')`.
_TEST_NAME_RE = re.compile(r"^[ \t]*(?:it|test|describe|context|suite)(?:\.\w+)?[ \t]*\([ \t]*(['\"`])(.{4,200}?)\1",
                           re.MULTILINE)
_GENERIC_NAMES = frozenset({"constructor", "init", "main", "setup", "teardown", "render", "run", "test", "__init__"})


# A line that may declare something (`edits.definition` decides): its first word opens a definition.
_DECLARING_RE = re.compile(r"^[ \t]*(?:export|default|pub|async|static|def|class|fn|func|function|interface|struct|"
                           r"enum|trait|impl|type|module|actor|primitive|public|private|protected|final|override|"
                           r"synchronized|abstract)\b[^\n]*", re.MULTILINE)


@per_text(1024)
def evidence(text: str) -> frozenset[str]:
    """What in a change's or a file's text can tell one file from another: its long lines (stripped)
    and the names it declares (classes, functions, tests), the latter marked so a line never equals one.
    Memoized: a file's known texts are compared with each path-less change that follows."""
    found = {s for line in text.splitlines() if len(s := line.strip()) >= _MIN_LINE and _WORD_RE.search(s)}
    found.update("\0test " + m.group(2) for m in _TEST_NAME_RE.finditer(text))
    found.update("\0def " + name for name in definitions([m.group(0) for m in _DECLARING_RE.finditer(text)])
                 if len(name) >= 4 and name not in _GENERIC_NAMES)
    return frozenset(found)


def owner(text: str, known: dict[str, Iterable[str]], language: str = "") -> str | None:
    """The one file of `known` (path -> texts the session showed of it) whose text shares evidence with
    the change's `text` that no other known file holds: two lines, or a declared name. None when no
    file or more than one file has such evidence (a line two files hold is no one's evidence), or when
    the change's fence `language` is not the file's."""
    mine = evidence(text)
    if not mine:
        return None
    holders: dict[str, list[str]] = {}
    for path, texts in known.items():
        held = frozenset().union(*(evidence(t) & mine for t in texts))
        for item in held:
            holders.setdefault(item, []).append(path)
    score: dict[str, int] = {}
    for item, paths in holders.items():
        if len(paths) == 1:
            score[paths[0]] = score.get(paths[0], 0) + (2 if item.startswith("\0") else 1)
    if len(score) != 1:
        return None
    (path, points), = score.items()
    if points < 2 or (language and extensions(language) and not in_language(path, language)):
        return None
    return path
