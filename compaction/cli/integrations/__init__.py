"""Agent integrations: our compaction and restore inside the terminal assistants people already use.

- `claude_hooks`: Claude Code's `PreCompact` / `SessionStart` hooks (payload model, the pre-compact
  pipeline, the restore block sized to the hook's output limit).
- `settings_merge`: merge our hooks into `.claude/settings.json` (and take them out again).
- `agents`: the files that plug us into Codex CLI, Gemini CLI, Aider and Cline.
- `edits`: planned file changes (preview as a diff, backup, apply) and delimited blocks.
- `watcher`: follow the newest transcript and compact at the trigger ratio, rate-limited.

Library code: the CLI modules (`compaction/cli/hooks.py`, `install.py`, `watch.py`) stay thin.
"""
