"""The error families, one data table: what classify names, what check matches on, what scan may
take for the bug under repair and what advice falls back to, all read from here.

An error id is `ERR_<FAMILY>_<Name>`; a new language is one row (and its patterns in classify).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_ADVICE = "check the inputs before repeating the step"
_ID = re.compile(r"^ERR_([A-Z]+)_([A-Za-z0-9_]+)$")


@dataclass(frozen=True, slots=True)
class Family:
    code: str
    advice: str  # the avoidance when no entry names the id itself ({path}, {command}… filled in)
    extensions: tuple[str, ...] = ()  # files whose errors are of this family (check: "a PY file")
    named_exceptions: bool = False  # its ids end with an exception/class name a text may mention
    can_be_target: bool = False  # a runtime failure or failing test: may be the bug under repair
    compiled: bool = False  # every error of it comes from an edit (a compiler's): warn when editing


FAMILIES: dict[str, Family] = {f.code: f for f in (
    Family("PY", "re-run `{command}` after each change to `{path}`; type-check with `mypy {path}`",
           (".py", ".pyi"), named_exceptions=True, can_be_target=True),
    Family("TS", "run `npx tsc --noEmit` after each edit to `{path}` with `strict: true`",
           (".ts", ".tsx", ".mts", ".cts"), compiled=True),
    Family("TOOL", "check the tool call's inputs before repeating it"),
    Family("LOGIC", "re-run the failing test after every change", can_be_target=True),
    Family("JAVA", "compile (`mvn -q compile`) after each edit to `{path}`", (".java",), named_exceptions=True,
           can_be_target=True),
    Family("JS", "run the linter (`npx eslint {path}`) and tests after each edit", (".js", ".jsx", ".mjs", ".cjs"),
           named_exceptions=True, can_be_target=True),
    Family("GO", "run `go build ./... && go vet ./...` after each edit", (".go",), can_be_target=True),
    Family("RS", "run `cargo check` after each edit", (".rs",), can_be_target=True, compiled=True),
    Family("C", "compile with `-Wall -Werror` after each edit to `{path}`", (".c", ".h", ".cc", ".cpp", ".hpp"),
           can_be_target=True, compiled=True),
    Family("PONY", "compile with `ponyc` after each edit to `{path}`", (".pony",)),
)}
BY_EXTENSION: dict[str, str] = {ext: f.code for f in FAMILIES.values() for ext in f.extensions}


def family_of(err_id: str) -> str:
    """The family code of an id (`OTHER` for an id not of the form ERR_<FAMILY>_<Name>)."""
    m = _ID.match(err_id)
    return m.group(1) if m else "OTHER"


def valid_id(err_id: str) -> bool:
    return bool(_ID.match(err_id))


def family(code: str) -> Family | None:
    return FAMILIES.get(code)


def advice_for(code: str) -> str:
    f = FAMILIES.get(code)
    return f.advice if f else DEFAULT_ADVICE
