"""A data file's settings as `path=value` leaves (`hotkey.keyCode=63`, `app.notification.queue-backlog-threshold=100`):
what a configuration the agent wrote holds, which its first line (`"hotkey" : {`) never says. JSON (with
comments and trailing commas), YAML block mappings, TOML, `key = value` files (INI, .env, .properties) and a
Dockerfile's settings. Inferred from the text; a file that does not parse as its kind gives nothing (the
caller falls back). A secret's value is never repeated, whatever the redaction settings."""

from __future__ import annotations

import json
import re
import tomllib
from collections import Counter
from collections.abc import Iterator
from typing import Any

from compaction.redact import secret_name
from compaction.transcripts.path_spelling import file_name

MAX_LEAVES = 200  # a lock file holds thousands: the first ones are read, the rest is not a setting anyone asks
MAX_TEXT_CHARS = 200_000
MAX_LINE_CHARS = 2_000  # a longer line is no setting (a minified blob): skipped, never scanned by a pattern
VALUE_CHARS = 48  # a value longer than this is cut: a setting says its value, not a paragraph
LIST_ITEMS = 4
HIDDEN = "…"

_JSON_EXTS = (".json", ".jsonc", ".json5")
_YAML_EXTS = (".yaml", ".yml")
_KEY_VALUE_EXTS = (".ini", ".cfg", ".conf", ".properties", ".env")
_PROSE_EXTS = (".md", ".markdown", ".txt", ".rst", ".adoc")


def kind_of(path: str) -> str | None:
    """The data kind a path's name says (`.env.local` is a .env file), else None."""
    name = file_name(path).lower()
    if name.endswith(_JSON_EXTS):
        return "json"
    if name.endswith(_YAML_EXTS):
        return "yaml"
    if name.endswith(".toml"):
        return "toml"
    if name.endswith(_KEY_VALUE_EXTS) or name.startswith(".env"):
        return "keyvalue"
    if (name == "dockerfile" or name.startswith("dockerfile.") or name.endswith(".dockerfile")) \
            and not name.endswith(_PROSE_EXTS):
        return "dockerfile"
    return None


def leaves(path: str, text: str) -> list[tuple[str, str]]:
    """The file's scalar settings in file order, as (dotted path, value); [] when it is not data of its kind."""
    kind = kind_of(path)
    if kind is None or not text.strip() or len(text) > MAX_TEXT_CHARS:
        return []
    text = text.replace("\r\n", "\n")
    if kind == "json":
        data = _json(text)
        return list(_flatten(data)) if isinstance(data, dict | list) else []
    if kind == "toml":
        try:
            return list(_flatten(tomllib.loads(text)))
        except (ValueError, RecursionError):  # TOMLDecodeError is a ValueError; nesting can be deep
            return []
    if kind == "yaml":
        return _yaml(text)
    if kind == "dockerfile":
        return _dockerfile(text)
    return _key_values(text)


def changed(before: list[tuple[str, str]], after: list[tuple[str, str]]) -> dict[str, str]:
    """Each setting whose value changed: its old value, by a key each side sets once (a Dockerfile's
    two `FROM` are no one setting)."""
    once = [k for k, n in Counter(k for k, _ in before).items() if n == 1]
    twice = {k for k, n in Counter(k for k, _ in after).items() if n > 1}
    old = dict(before)
    new = dict(after)
    return {k: old[k] for k in once if k in new and k not in twice and new[k] != old[k]}


def render(found: list[tuple[str, str]], room: int, *, tables: bool = False) -> str:
    """Leaves within `room` characters, each run under one parent said once: `app.notification:
    default-reminder-minutes=10, missed-checkin-minutes=5` (`tables`: TOML's `[tool.ruff] line-length=120`);
    `(+N)` for what did not fit, within the room too; "N settings" when none fits."""
    out, shown = _rendered(found, room, tables)
    if shown < len(found):
        out, shown = _rendered(found, room - len(f" (+{len(found)})"), tables)
        out = f"{out} (+{len(found) - shown})" if shown else f"{len(found)} settings"
    return out


def _rendered(found: list[tuple[str, str]], room: int, tables: bool) -> tuple[str, int]:
    out, parent, shown = "", None, 0  # parent: None before the first leaf, "" at the top level
    for key, value in found:
        head, _, last = key.rpartition(".")
        said = f"{last}{value}" if last.endswith(" ") else f"{last}={value}"  # an instruction: `FROM node:18`
        if head == parent:  # a sibling (top-level ones too)
            piece = f", {said}"
        else:
            named = (f"[{head}] " if tables else f"{head}: ") if head else ""
            piece = ("; " if out else "") + f"{named}{said}"
        if len(out) + len(piece) > room:
            continue  # a long value (a URL) leaves room for shorter ones after it
        out += piece
        parent, shown = head, shown + 1
    return out, shown


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    try:  # JSONC (tsconfig, VS Code settings): comments and trailing commas, outside strings
        return json.loads(_without_jsonc(text))
    except (ValueError, RecursionError):
        return None


def _without_jsonc(text: str) -> str:
    """`text` without `//` and `/* */` comments and trailing commas, strings untouched: one pass."""
    out: list[str] = []
    i, n = 0, len(text)
    pending_comma = -1  # where in `out` a comma waits to see whether a bracket closes after it
    while i < n:
        c = text[i]
        if c == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i:end + 1])
            pending_comma, i = -1, end + 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c == ",":
            pending_comma = len(out)
            out.append(c)
            i += 1
        else:
            if c in "}]" and pending_comma >= 0:
                out[pending_comma] = ""
            if not c.isspace():
                pending_comma = -1
            out.append(c)
            i += 1
    return "".join(out)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    text = " ".join(str(value).split())  # one line: a value's newline would end the record's line in the document
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def _one_line(key: Any) -> str:
    return " ".join(str(key).split())


def _secret(name: str) -> bool:
    """A name that says its value is a secret, plural included (`api_keys`)."""
    return secret_name(name) or (name.endswith("s") and secret_name(name[:-1]))


def _shown(key: str, value: str) -> str:
    """The value, or `…` when its name says it is a secret (a `${VAR:default}` reference is no secret)."""
    last = key.rsplit(".", 1)[-1].rstrip(" ")
    return HIDDEN if value and _secret(last) and not value.startswith("${") else value


def _item(key: str, value: str) -> str:
    """A list item: an `ENV=value` item keeps its name, a secret's value hidden (`POSTGRES_PASSWORD=…`);
    every item of a list named as a secret is hidden."""
    if _secret(key.rsplit(".", 1)[-1].split("[", 1)[0]):
        return HIDDEN
    name, eq, rest = value.partition("=")
    if eq and name.strip() and " " not in name.strip() and secret_name(name.strip()):
        return f"{name}={HIDDEN}"
    return value


def _list(key: str, values: list[Any]) -> str:
    items = [_item(key, _scalar(v)) for v in values[:LIST_ITEMS]]
    return "[" + ", ".join(items) + (", …" if len(values) > LIST_ITEMS else "") + "]"


def _flatten(data: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Scalars of nested mappings; a list of scalars is one leaf (`[a, b, …]`), a list of mappings is
    indexed (`routes[0].path`)."""
    count = 0
    stack: list[tuple[str, Any]] = [(prefix, data)]
    while stack and count < MAX_LEAVES:
        key, value = stack.pop()
        if isinstance(value, dict):
            stack.extend(reversed([(f"{key}.{_one_line(k)}" if key else _one_line(k), v) for k, v in value.items()]))
        elif isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
            stack.extend(reversed([(f"{key}[{i}]", v) for i, v in enumerate(value)]))
        elif isinstance(value, list):
            count += 1
            yield key, _list(key, value)
        elif key:
            count += 1
            yield key, _shown(key, _scalar(value))


_YAML_KEY_RE = re.compile(r"""(-(?>\s+)|-(?:\s(?=\s\s))*+\s(?=\s))?(["']?)([^"'#:{}\[\]](?:[^:#\s]|\s+(?=[^:#\s]))*?)\2\s*:(?:\s+(.*))?$""")
_YAML_ITEM_RE = re.compile(r"-\s+(.*)$")


def _without_comment(line: str) -> str:
    """A YAML line without its trailing `# comment`, quotes respected (`'a #b'` is a value, `#ddddff`
    after a space a colour only when quoted): a scan, not a pattern."""
    quote = ""
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = ""
        elif c in "\"'" and (i == 0 or line[i - 1] in " :[{,-"):
            quote = c
        elif c == "#" and i > 0 and line[i - 1] in " \t":
            return line[:i].rstrip()
    return line


def _yaml(text: str) -> list[tuple[str, str]]:
    """Block mappings and sequences by indentation: enough for compose files, CI workflows, Spring's
    application.yml. A block scalar (`|`, `>`) is one leaf of its first line; anchors and flow
    collections are kept as written. Most lines must fit the shape, else nothing."""
    out: list[tuple[str, str]] = []
    stack: list[tuple[int, str, bool]] = []  # (indent, path, opened by a key) of open mappings
    items: dict[str, int] = {}  # a sequence's path -> its next index
    lists: dict[str, list[str]] = {}  # a sequence of scalars' path -> its items
    block_indent: int | None = None  # inside a block scalar deeper than this
    block_at = -1  # the leaf a block scalar's first line fills
    read = fitted = 0
    for raw in text.split("\n"):
        if len(raw) > MAX_LINE_CHARS or not raw.strip() or raw.lstrip().startswith("#") \
                or raw.startswith(("---", "...", "%")):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        if block_indent is not None:
            if indent > block_indent:
                if block_at >= 0:  # its first line says it (`run: |` then `pytest -q`)
                    key = out[block_at][0]
                    out[block_at] = (key, _shown(key, _scalar(raw.strip())))
                    block_at = -1
                elif not out[-1][1].endswith("…"):
                    out[-1] = (out[-1][0], out[-1][1] + " …")
                continue
            block_indent = None
        read += 1
        line = _without_comment(raw.strip())
        dash = line[:2] == "- " or line == "-"
        # a key's sequence may sit at the key's own indent (`steps:` then `- uses: …`)
        while stack and (stack[-1][0] > indent or stack[-1][0] == indent and not (dash and stack[-1][2])):
            stack.pop()
        parent = stack[-1][1] if stack else ""
        m = _YAML_KEY_RE.match(line)
        if m:
            fitted += 1
            key, value = m.group(3).strip(), (m.group(4) or "").strip()
            if m.group(1):  # `- key: value`: a new mapping in the parent's sequence
                index = items.get(parent, 0)
                items[parent] = index + 1
                parent = f"{parent}[{index}]"
                stack.append((indent, parent, False))
                indent += len(m.group(1))
            path = f"{parent}.{key}" if parent else key
            if not value or value.startswith(("&", "!")) and " " not in value:
                stack.append((indent, path, True))
            elif value[:1] in "|>":
                block_indent, block_at = indent, len(out)
                out.append((path, _shown(path, value)))
            else:
                out.append((path, _shown(path, _scalar(value.strip("\"'")))))
        elif (item := _YAML_ITEM_RE.match(line)) and parent:
            fitted += 1
            lists.setdefault(parent, []).append(item.group(1).strip("\"'"))
            if len(lists[parent]) == 1:
                out.append((parent, ""))  # placed where the sequence starts; filled below
        if len(out) >= MAX_LEAVES:
            break
    if not read or fitted * 10 < read * 8:
        return []
    return [(k, _list(k, lists[k]) if not v and k in lists else v) for k, v in out]


_KEY_VALUE_RE = re.compile(r"(?:export\s+)?([\w.\-/]+)\s*[=:]\s*(.*)$")
_SECTION_RE = re.compile(r"\[([^\]]+)\]$")


def _key_values(text: str) -> list[tuple[str, str]]:
    """`key = value` lines under `[section]` headers (INI, .cfg, .properties, .env); most lines must be
    such, else nothing (an nginx or Apache .conf is no key-value file)."""
    out: list[tuple[str, str]] = []
    section = ""
    read = fitted = 0
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or len(line) > MAX_LINE_CHARS or line.startswith(("#", ";", "//")):
            continue
        read += 1
        if s := _SECTION_RE.match(line):
            section, fitted = s.group(1).strip(), fitted + 1
            continue
        if raw[:1] in " \t" and out:  # a continuation of the previous value (INI)
            fitted += 1
            continue
        m = _KEY_VALUE_RE.match(line)
        if m:
            fitted += 1
            key = f"{section}.{m.group(1)}" if section else m.group(1)
            out.append((key, _shown(key, _scalar(m.group(2).strip().strip("\"'")))))
            if len(out) >= MAX_LEAVES:
                break
    if not read or fitted * 10 < read * 8:
        return []
    return out


# What a Dockerfile sets: its stages' images and what the image runs with, not its build steps (RUN, COPY).
_DOCKER_SETTINGS = frozenset({"FROM", "EXPOSE", "ENV", "ARG", "WORKDIR", "USER", "CMD", "ENTRYPOINT", "HEALTHCHECK"})
_INSTRUCTION_RE = re.compile(r"([A-Za-z]+)\s+(.+)$")
_ASSIGNMENT_RE = re.compile(r"""(?<![\w.-])([\w.-]++)=(\"[^\"]*\"|'[^']*'|\S*)""")


def _dockerfile(text: str) -> list[tuple[str, str]]:
    """Each setting instruction with its arguments, in order (`FROM node:18-alpine AS build`, then the
    next stage's `FROM nginx:1.25-alpine`); a line continued with `\\` is read whole; an `ENV`/`ARG`
    secret's value is hidden."""
    out: list[tuple[str, str]] = []
    for raw in re.sub(r"\\[ \t]*\n\s*", " ", text).split("\n"):
        line = raw.strip()
        m = _INSTRUCTION_RE.match(line) if len(line) <= MAX_LINE_CHARS else None
        if m is None or m.group(1).upper() not in _DOCKER_SETTINGS:
            continue
        name, args = m.group(1).upper(), " ".join(m.group(2).split())
        if name in ("ENV", "ARG"):
            args = _ASSIGNMENT_RE.sub(lambda a: f"{a.group(1)}={HIDDEN}" if secret_name(a.group(1)) else a.group(0), args)
            if " " in args and "=" not in args and secret_name(args.split()[0]):  # the old `ENV KEY value` form
                args = f"{args.split()[0]} {HIDDEN}"
        out.append((name + " ", _scalar(args)))  # said as written: `EXPOSE 80`
        if len(out) >= MAX_LEAVES:
            break
    return out if any(k == "FROM " for k, _ in out) else []
