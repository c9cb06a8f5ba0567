"""The checks the agent ran (sources/checks.py): a command that changes nothing, run again and again,
or a build/lint/type check, is listed with how often and when; reads and git views are not."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.checks import check_facts
from compaction.history.steering import role_preset
from compaction.model import ToolResult
from compaction.transcripts._agent_tools import make_call
from tests.unit.synthetic import steps_transcript


def _bash(command: str, cid: str, out: str = "") -> tuple:
    return make_call("Bash", {"command": command}, cid), ToolResult(out, cid)


def _facts(*steps: tuple) -> list[str]:
    t = steps_transcript("clean the summary of non-ASCII characters", *steps)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), "/r", len(t.rounds))
    return [f.text for f in check_facts(ctx)]


def test_a_command_rerun_to_verify_and_a_build_are_checks():
    check = 'LC_ALL=C rg -n "[^ -~]" docs/SUMMARY.md || true'
    texts = _facts(_bash(check, "a", "12:“quoted”"), _bash(check, "b"), _bash(check, "c"),
                   _bash("cd /r && pnpm --filter web run build", "d", "Successfully built 3 packages"))
    assert texts[0].startswith(f"Checked with `{check}` ×3 (r")
    assert texts[1].startswith("Checked with `pnpm --filter web run build` → Successfully built 3 packages")


def test_reads_git_views_and_commands_run_once_are_not_checks():
    texts = _facts(_bash("sed -n '1,40p' a.py", "a"), _bash("sed -n '1,40p' a.py", "b"),
                   _bash("git status -sb", "c"), _bash("git status -sb", "d"), _bash("python -c 'print(1)'", "e"))
    assert texts == []
