"""Glob and .gitignore pattern matching, compiled to regular expressions once.

Why our own: the index must decide "ignored?" for paths the watcher reports one at a time, and
for trees that are not git repositories, without a subprocess per path. The semantics follow
gitignore(5): `!` negation, trailing `/` for directories only, a slash anywhere but the end
anchors the pattern to the file's folder, `**` spans folders, last matching rule wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


def _translate(pat: str) -> str:
    """Glob body to regex (no anchors). `**` crosses `/`, `*` and `?` do not."""
    out: list[str] = []
    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "*":
            if pat.startswith("**", i):
                # `**/` : zero or more folders; `/**` at the end: everything inside
                if pat.startswith("**/", i):
                    out.append("(?:.*/)?")
                    i += 3
                    continue
                out.append(".*")
                i += 2
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pat.find("]", i + 2 if i + 1 < n and pat[i + 1] in "!^" else i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = pat[i + 1 : j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j + 1
                continue
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pat[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A config glob (`src/**/*.py`, `*.service.ts`) matched against a workspace-relative path.
    Without a slash it matches the file name at any depth, like gitignore."""
    pat = pattern.strip().lstrip("/")
    if pat.startswith("./"):
        pat = pat[2:]
    body = _translate(pat)
    if "/" not in pat.rstrip("/"):
        body = "(?:.*/)?" + body
    return re.compile(r"\A" + body + r"\Z")


@dataclass(slots=True)
class _Rule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


@dataclass(slots=True)
class RuleSet:
    """The rules of one .gitignore file; paths given relative to its folder."""

    rules: list[_Rule] = field(default_factory=list)
    any_regex: re.Pattern[str] | None = None  # fast path: does any rule match at all?

    @classmethod
    def parse(cls, text: str) -> RuleSet:
        rules: list[_Rule] = []
        for raw in text.splitlines():
            line = raw.rstrip("\r")
            if not line or line.startswith("#"):
                continue
            # trailing spaces are ignored unless escaped
            stripped = line.rstrip(" ")
            if stripped.endswith("\\") and len(stripped) < len(line):
                stripped += " "
            line = stripped
            if not line:
                continue
            negate = False
            if line.startswith("!"):
                negate, line = True, line[1:]
            elif line.startswith("\\!") or line.startswith("\\#"):
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            if not line:
                continue
            anchored = "/" in line
            line = line.lstrip("/")
            body = _translate(line)
            if not anchored:
                body = "(?:.*/)?" + body
            rules.append(_Rule(re.compile(r"\A" + body + r"\Z"), negate, dir_only))
        any_re = re.compile("|".join(f"(?:{r.regex.pattern})" for r in rules)) if rules else None
        return cls(rules, any_re)

    def decide(self, rel: str, is_dir: bool) -> bool | None:
        """True ignored, False re-included, None no rule matched."""
        if self.any_regex is None or not self.any_regex.match(rel):
            return None
        for rule in reversed(self.rules):
            if rule.dir_only and not is_dir:
                continue
            if rule.regex.match(rel):
                return not rule.negate
        return None


class IgnoreMatcher:
    """Every .gitignore under the root (plus .git/info/exclude), keyed by its folder ("" = root)."""

    def __init__(self) -> None:
        self.sets: dict[str, RuleSet] = {}

    def add(self, folder: str, text: str) -> None:
        rs = RuleSet.parse(text)
        if rs.rules:
            self.sets[folder] = rs
        else:
            self.sets.pop(folder, None)

    def remove(self, folder: str) -> None:
        self.sets.pop(folder, None)

    def chain_for(self, folder: str) -> list[tuple[int, RuleSet]]:
        """The rule sets that apply to entries of `folder`, root first, as (prefix length, rules);
        computed once per folder by the walk."""
        if not self.sets:
            return []
        chain: list[tuple[int, RuleSet]] = []
        rs = self.sets.get("")
        if rs is not None:
            chain.append((0, rs))
        if folder:
            parts = folder.split("/")
            for i in range(len(parts)):
                base = "/".join(parts[: i + 1])
                rs = self.sets.get(base)
                if rs is not None:
                    chain.append((len(base) + 1, rs))
        return chain

    @staticmethod
    def ignored_in(chain: list[tuple[int, RuleSet]], rel: str, is_dir: bool) -> bool:
        result = False
        for cut, rs in chain:
            decision = rs.decide(rel[cut:], is_dir)
            if decision is not None:
                result = decision
        return result

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """Decide for `rel` alone (its parents are assumed not ignored; the walk prunes them)."""
        if not self.sets:
            return False
        result = False
        folder = rel.rpartition("/")[0]
        # ancestors from the root down; a deeper file's rules win over a shallower one's
        chain = [""]
        if folder:
            parts = folder.split("/")
            chain += ["/".join(parts[: i + 1]) for i in range(len(parts))]
        for base in chain:
            rs = self.sets.get(base)
            if rs is None:
                continue
            sub = rel[len(base) + 1 :] if base else rel
            decision = rs.decide(sub, is_dir)
            if decision is not None:
                result = decision
        return result

    def ignored_path(self, rel: str, is_dir: bool = False) -> bool:
        """Decide for `rel` including its parent folders (for paths reported one at a time)."""
        parts = rel.split("/")
        for i in range(1, len(parts)):
            if self.ignored("/".join(parts[:i]), True):
                return True
        return self.ignored(rel, is_dir)
