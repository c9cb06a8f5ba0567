"""Instruction files read from outside the project (sources/rules.py `_foreign`): material, not rules."""

from __future__ import annotations

from compaction.history.sources.rules import _foreign

CWD = "/Users/me/workspaces/pi-mono"


def test_a_sibling_checkout_or_a_download_holds_another_projects_rules():
    # pi's session read ../pi-skills' and a /tmp clone's SKILL.md files to write its own docs about skills
    assert _foreign('find /Users/me/workspaces/pi-skills -name "SKILL.md" -exec cat {} \\;', CWD)
    assert _foreign("cat /tmp/skills/skills/skill-creator/SKILL.md", CWD)


def test_the_projects_own_files_and_an_agents_settings_are_its_rules():
    assert not _foreign("cat AGENTS.md", CWD)
    assert not _foreign("/Users/me/workspaces/pi-mono/packages/agent/AGENTS.md", CWD)
    assert not _foreign("cat ~/.claude/skills/release/SKILL.md", CWD)
    assert not _foreign("C:\\Users\\me\\.agents\\skills\\apply-grant\\SKILL.md", "C:\\work\\grant")
    assert not _foreign("/opt/team/AGENTS.md", None)  # no known project: nothing to compare with


def test_what_a_call_sends_output_to_or_discards_is_not_where_it_read():
    assert not _foreign("cat CLAUDE.md 2>/dev/null", CWD)
    assert not _foreign('sed -n "1,/^## Testing/p" CLAUDE.md', CWD)
    assert not _foreign("head -50 CLAUDE.md > /tmp/x.txt", CWD)
    assert not _foreign("c:/work/grant/AGENTS.md", "C:\\work\\grant")  # a drive letter in either case
    assert not _foreign("cat /Users/me/workspaces/AGENTS.md", CWD)  # a folder above the project: its agents load it


def test_a_pattern_is_no_path():
    for command in ("sed -n '/## Testing/,/^## /p' AGENTS.md", "sed -n 1,/Usage/p CLAUDE.md", "grep -A5 '/review' CLAUDE.md"):
        assert not _foreign(command, CWD), command
