"""One spelling per file (issue 13 item 3): `packages\\module\\x.ts` and `packages/module/x.ts` are one
file, and so are `C:\\Repo\\App.ts` and `c:/repo/app.ts` in a Windows session.

Why per session: Windows paths are case-insensitive and accept both separators, POSIX paths are
neither; a session is treated as Windows when its cwd or any of its paths is spelled the Windows way
(a drive letter, or backslash separators). The first spelling seen wins, with forward slashes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote

_DRIVE_RE = re.compile(r"^[A-Za-z]:[\\/]")
_BACKSLASH_PATH_RE = re.compile(r"^[\w.~$-][^\\/\s]*\\[^\\\s]")  # `dir\file`: a separator, not an escape


_LINE_RANGE = re.compile(r"#L?\d+(?:[-:]L?\d+)?$")  # a file URL's lines (`Tree.ts#200-200`, `#L10-L20`)
_DRIVE_AFTER_SLASH = re.compile(r"/[A-Za-z]:[/\\]")


def file_url_path(url: str) -> str:
    """The path a `file://` URL names: its line range dropped before decoding (an encoded `%23` is a
    name's own `#`), decoded, a Windows drive's leading `/` dropped (`file:///c%3A/x` is `c:/x`)."""
    path = unquote(_LINE_RANGE.sub("", url.removeprefix("file://")))
    return path[1:] if _DRIVE_AFTER_SLASH.match(path) else path


# A file's name as prose or a list item writes it (`custom-tools.md`, `SYSTEM-SUMMARY.md`): a name, a dot, an
# extension of letters and digits; matched against the names of the files a session changed
NAMED_FILE_RE = re.compile(r"[\w.-]+\.[A-Za-z]\w{0,5}\b")


def file_name(path: str) -> str:
    """A path's last name in POSIX or Windows spelling (`c:\\repo\\a.ts` and `src/a.ts` end in one)."""
    return re.split(r"[/\\]+", path.rstrip("/\\"))[-1]


def is_windows_path(path: str | None) -> bool:
    return bool(path) and bool(_DRIVE_RE.match(path) or ("/" not in path and _BACKSLASH_PATH_RE.match(path)))


class PathSpellings:
    """Maps every spelling of a path to the first one seen (forward slashes in a Windows session)."""

    def __init__(self, windows: bool) -> None:
        self.windows = windows
        self._first: dict[str, str] = {}

    @classmethod
    def for_paths(cls, paths: Iterable[str | None], cwd: str | None = None) -> PathSpellings:
        return cls(is_windows_path(cwd) or any(is_windows_path(p) for p in paths))

    def __call__(self, path: str) -> str:
        if not self.windows:
            return path
        spelled = path.replace("\\", "/")
        if _DRIVE_RE.match(spelled):
            spelled = spelled[0].upper() + spelled[1:]
        return self._first.setdefault(spelled.casefold(), spelled)
