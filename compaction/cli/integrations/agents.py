"""What `compaction install --agent NAME` writes for each assistant, as planned file changes.

Claude Code gets real hooks (settings_merge), Gemini CLI too (gemini_settings). The others have no
hook that runs at compaction, so they get a pointer to `.compaction/restore.md` in the file they already read at start-up (our text
in a delimited block), which `compaction watch`, the editor or `compaction compact --restore` keep
fresh. Codex CLI also gets our compaction template as its compaction prompt
(`experimental_compact_prompt_file`), so its own compaction keeps what ours keeps.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

from compaction.cli.integrations import settings_merge
from compaction.cli.integrations.edits import FileChange, InstallError, read_or_none, remove_block, upsert_block
from compaction.escape import escape_control

AGENTS = ("claude-code", "codex", "gemini", "aider", "cline")
RESTORE = ".compaction/restore.md"

POINTER = f"""## Context restore (compaction)

At the start of a session and after every context compaction, read `{RESTORE}` before writing code:
it is the restore state of this workspace (working directory, core files, unfinished tasks, problems
and their solutions, and the Error Memory of past mistakes with avoidance advice). Follow the Error
Memory protocol: when the work resembles a record, first print
`⚠️ Detected historical error [ID], avoidance: [advice]`; if the user overrides it, record
`@decision: ignore_ERR_xxx`. The file is refreshed by `compaction watch` (or
`compaction compact <transcript> --restore`)."""

CODEX_PROMPT = f"""You are compacting a coding-assistant conversation so that the work can continue in a fresh
context. Write a Markdown document with exactly these sections, in this order, and nothing else:

## Current task
The user's goal in one to three lines, in the user's words where possible.

## Completed work
Key actions already done: files created or edited (full paths), commands that mattered and their
outcome (exit code), tests run and their result. One line each; cite what you are sure of only.

## Modified files
Every file changed, one per line, full path.

## Key decisions and constraints
Architecture and design decisions, user constraints, anything marked @important, @decision,
@warning or @todo (copy those verbatim).

## Problems and solutions
## Error Memory
One record per error identifier, in this shape (ERR_TS_ TypeScript, ERR_PY_ Python exceptions,
ERR_TOOL_ tool failures, ERR_LOGIC_ logic errors and failing tests):
- #recurring ERR_PY_KeyError: occurrences 2 (rounds 12, 24)
  Solution: what fixed it
  Avoidance: how to avoid it next time
Never drop an error, a decision or a todo. Drop repeated file reads and tentative command output.

## Next steps
Unfinished tasks and the next concrete step.

Keep file paths, commands and error messages exact. Answer in the language the user wrote in.
After the compaction, read `{RESTORE}` (the restore state written by the `compaction` tool) if it
exists before continuing.
"""


def _codex_home(home: Path) -> Path:
    return home / ".codex"


def _block_change(path: Path, body: str, comment: str, uninstall: bool, note: str, *, top: bool = False) -> FileChange:
    before = read_or_none(path)
    after = remove_block(before, comment) if uninstall else upsert_block(before, body, comment, top=top)
    return FileChange(path, before, after, note=note)


def _owned_file(path: Path, text: str, uninstall: bool, note: str) -> FileChange:
    """A whole file that is ours (a template, a rules file in a rules folder)."""
    before = read_or_none(path)
    if uninstall:
        ours = before is not None and "compaction install" in before
        return FileChange(path, before, None if ours else before, note=note)
    return FileChange(path, before, text, note=note)


def _marked(text: str, comment: str) -> str:
    tag = "<!-- written by `compaction install`; removed by `compaction install --uninstall` -->" \
        if comment == "<!--" else "# written by `compaction install`; removed by `compaction install --uninstall`"
    return f"{tag}\n{text}"


def _codex(scope: str, workspace: Path, home: Path, uninstall: bool) -> list[FileChange]:
    user = scope == "user"
    agents_md = (_codex_home(home) / "AGENTS.md") if user else workspace / "AGENTS.md"
    config = _codex_home(home) / "config.toml" if user else workspace / ".codex" / "config.toml"
    template = (_codex_home(home) / "compaction-compact-prompt.md") if user \
        else workspace / ".compaction" / "codex-compact-prompt.md"
    changes = [_block_change(agents_md, POINTER, "<!--", uninstall, "Codex CLI: AGENTS.md pointer to the restore state")]
    changes.append(_owned_file(template, _marked(CODEX_PROMPT, "<!--"), uninstall, "Codex CLI: our compaction prompt"))
    before = read_or_none(config)
    body = f"experimental_compact_prompt_file = {_toml_str(str(template.absolute()))}"
    if uninstall:
        changes.append(FileChange(config, before, remove_block(before, "#"), note="Codex CLI: compaction prompt file"))
        return changes
    other = remove_block(before, "#") or ""
    change = FileChange(config, before, upsert_block(before, body, "#", top=True),
                        note="Codex CLI: experimental_compact_prompt_file")
    try:
        existing = tomllib.loads(other)
    except tomllib.TOMLDecodeError as exc:
        change.after = before
        change.warnings.append(f"{config}: invalid TOML ({exc}); add `{body}` yourself")
        existing = {}
    clash = [k for k in ("experimental_compact_prompt_file", "compact_prompt") if k in existing]
    if clash:
        change.after = before
        change.warnings.append(f"{config}: `{clash[0]}` is already set; left as it is (ours would be `{body}`)")
    changes.append(change)
    return changes


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _gemini(scope: str, workspace: Path, home: Path, uninstall: bool,
            executable: Path | None = None) -> list[FileChange]:
    """Real hooks (PreCompress, BeforeAgent) in Gemini CLI's settings.json; the GEMINI.md pointer earlier
    versions wrote is taken out (the hook injects the restore block itself)."""
    from compaction.cli.integrations import gemini_settings

    path = gemini_settings.settings_path(scope, workspace, home)
    hooks = gemini_settings.plan_uninstall(path) if uninstall else gemini_settings.plan_install(path, executable)
    pointer = home / ".gemini" / "GEMINI.md" if scope == "user" else workspace / "GEMINI.md"
    old = _block_change(pointer, POINTER, "<!--", True, "Gemini CLI: the former GEMINI.md pointer, removed")
    return [hooks, old] if old.changed else [hooks]


_AIDER_READ = re.compile(r"^read\s*:", re.M)


def _aider(scope: str, workspace: Path, home: Path, uninstall: bool) -> list[FileChange]:
    path = home / ".aider.conf.yml" if scope == "user" else workspace / ".aider.conf.yml"
    body = f"# aider reads the restore state as a read-only file\nread: {RESTORE}"
    change = _block_change(path, body, "#", uninstall, "Aider: read the restore state")
    if not uninstall and _AIDER_READ.search(remove_block(change.before, "#") or ""):
        change.after = change.before
        change.warnings.append(f"{path}: a `read:` key exists already; add `{RESTORE}` to it yourself "
                               f"(or run `aider --read {RESTORE}`)")
    return [change]


def _cline(scope: str, workspace: Path, home: Path, uninstall: bool) -> list[FileChange]:
    if scope == "user":
        rules = home / "Documents" / "Cline" / "Rules" / "compaction.md"
        return [_owned_file(rules, _marked(POINTER, "<!--"), uninstall, "Cline: global rule")]
    rules = workspace / ".clinerules"
    if rules.is_dir():  # newer Cline: a folder of rule files
        return [_owned_file(rules / "compaction.md", _marked(POINTER, "<!--"), uninstall, "Cline: rule file")]
    return [_block_change(rules, POINTER, "<!--", uninstall, "Cline: .clinerules pointer")]


def _claude(scope: str, workspace: Path, home: Path, uninstall: bool,
            executable: Path | None = None) -> list[FileChange]:
    path = settings_merge.settings_path(scope, workspace, home)
    return [settings_merge.plan_uninstall(path) if uninstall else settings_merge.plan_install(path, executable)]


def plan(agent: str, *, scope: str = "project", workspace: Path, home: Path, uninstall: bool = False,
         executable: Path | None = None) -> list[FileChange]:
    """The file changes that install (or uninstall) our integration for `agent`."""
    if agent == "claude-code":
        return _inside(_claude(scope, workspace, home, uninstall, executable), workspace)
    if agent == "gemini":
        return _inside(_gemini(scope, workspace, home, uninstall, executable), workspace)
    table = {"codex": _codex, "gemini": _gemini, "aider": _aider, "cline": _cline}
    if agent not in table:
        raise ValueError(f"unknown agent {agent!r}; one of {', '.join(AGENTS)}")
    return _inside(table[agent](scope, workspace, home, uninstall), workspace)


def _inside(changes: list[FileChange], workspace: Path) -> list[FileChange]:
    """A workspace file to change must resolve inside the workspace: writes go through an existing
    link to its target (compaction.atomic), so a repository shipping `AGENTS.md -> ~/.bashrc` would
    otherwise have install write into the user's file. User-scope files (e.g. dotfiles kept as
    links) are written through as the user set them up."""
    root = Path(os.path.realpath(workspace))
    for change in changes:
        lexical = Path(os.path.normpath(Path(change.path).absolute()))
        if not lexical.is_relative_to(Path(os.path.normpath(workspace.absolute()))):
            continue
        real = Path(os.path.realpath(lexical))
        if not real.is_relative_to(root):
            raise InstallError(f"{change.path}: a symbolic link leads out of the workspace (to {escape_control(str(real))});"
                               " not touching it")
    return changes

