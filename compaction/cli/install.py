"""`compaction install --agent NAME`: plug our compaction and restore into a terminal assistant.

claude-code: PreCompact + SessionStart(compact) hooks merged into `.claude/settings.json` (or the user
file); codex: AGENTS.md pointer + `experimental_compact_prompt_file`; gemini: PreCompress + BeforeAgent
hooks merged into `.gemini/settings.json` (or the user file) with `hooksConfig.enabled`; aider:
`.aider.conf.yml` `read:`; cline: `.clinerules`. `--check` previews the change as a diff and writes
nothing; `--uninstall` removes only what we added. Every changed file is backed up first.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from compaction.cli.integrations.agents import AGENTS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("install", help="install the hooks / pointers for a coding assistant")
    p.add_argument("--agent", required=True, choices=AGENTS)
    p.add_argument("--scope", choices=["project", "user"], default="project",
                   help="project files in the workspace (default) or the user's files in the home folder")
    p.add_argument("--check", action="store_true", help="show the diff, write nothing (exit 1 if a change is due)")
    p.add_argument("--uninstall", action="store_true", help="remove what install added")
    p.add_argument("--workspace", default=".", help="workspace folder (default: cwd)")
    p.add_argument("--home", help=argparse.SUPPRESS)  # tests: a fake home folder
    p.set_defaults(func=run_install)


def run_install(args: argparse.Namespace) -> int:
    from compaction.cli.integrations import agents, edits
    from compaction.discovery import resolve_home

    workspace = Path(args.workspace).absolute()
    home = resolve_home(args.home)
    try:
        changes = agents.plan(args.agent, scope=args.scope, workspace=workspace, home=home, uninstall=args.uninstall)
    except edits.InstallError as exc:
        print(f"compaction: error: {exc}")
        return 1
    verb = "uninstall" if args.uninstall else "install"
    pending = [c for c in changes if c.changed]
    for c in changes:
        for w in c.warnings:
            print(f"compaction: warning: {w}")
    if args.check:
        for c in pending:
            print(f"# {c.note}")
            print(c.diff(), end="")
        if not pending:
            print(f"compaction: {args.agent}: nothing to {verb} (up to date)")
        return 1 if pending else 0
    for c in pending:
        backup = edits.apply(c)
        action = "removed" if c.after is None else ("created" if c.before is None else "updated")
        print(f"compaction: {action} {c.path}" + (f" (backup: {backup.name})" if backup else "") + f" — {c.note}")
    if not pending:
        print(f"compaction: {args.agent}: nothing to {verb} (up to date)")
    return 0
