"""A commit is told once: the command that only staged and committed it gives its outcome to the commit's
line instead of a line of its own repeating the message (`Commit e2aec0d “Initial commit…”` beside
`git add … && git commit -m "Initial commit…" → 2 files changed…`)."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources.completed import completed_facts
from compaction.history.sources.registry import FactContext
from compaction.history.steering import role_preset
from compaction.model import Message, Role
from tests.unit.synthetic import call_pair, shell_rounds, transcript


def _completed(*commands: tuple[str, str]) -> list[str]:
    t = shell_rounds("commit the work", *commands)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    return [f.text for f in completed_facts(ctx)]


COMMITTED = "[main (root-commit) e2aec0d] Initial commit: pixel art\n 2 files changed, 393 insertions(+)\n"


def test_a_stage_and_commit_command_is_told_by_its_commit_line() -> None:
    lines = _completed(('git add index.html LICENSE && git commit -m "Initial commit: pixel art"', COMMITTED))
    assert lines == ["Commit e2aec0d “Initial commit: pixel art” of `index.html`, `LICENSE` → 2 files changed, "
                     "393 insertions(+) (r1)"]


def test_a_push_after_the_commit_is_said_after_its_outcome() -> None:
    lines = _completed(('git add a.py && git commit -m "Initial commit: pixel art" && git push origin main',
                        COMMITTED + "To github.com:me/app.git\n"))
    assert lines == ["Commit e2aec0d “Initial commit: pixel art” of `a.py` → 2 files changed, 393 insertions(+), "
                     "then `git push origin main` (r1)"]


def test_a_command_doing_more_than_committing_keeps_its_line() -> None:
    lines = _completed(('npm run build && git commit -am "Initial commit: pixel art"', COMMITTED))
    assert sorted(lines) == ["Commit e2aec0d “Initial commit: pixel art” (r1)",
                             '`npm run build && git commit -am "Initial commit: pixel art"` → 2 files changed, '
                             '393 insertions(+) (r1)']


# --- a command told by its work ------------------------------------------------------------------


def test_a_command_is_told_by_its_work_not_by_the_clearing_up_before_it() -> None:
    from compaction.shell import code_line

    launch = ('# Kill any existing vLLM processes\npkill -f "vllm serve" 2>/dev/null || true\nsleep 2\n'
              'echo "=== Starting ==="\nexport NCCL_P2P_DISABLE=1\n'
              'NCCL_SHM_DISABLE=1 \\\n  nohup vllm serve Qwen/Qwen3-4B \\\n    --port 8000 > /tmp/vllm.log 2>&1 &')
    # as run (its continuations' backslashes kept), one line
    assert code_line(launch) == "NCCL_SHM_DISABLE=1 \\ nohup vllm serve Qwen/Qwen3-4B \\ --port 8000 > /tmp/vllm.log 2>&1 &"
    assert code_line("rm -f /tmp/run2.log\ncd /root/trl && script -qfc 'python smoke.py' /tmp/run2.log &") \
        == "cd /root/trl && script -qfc 'python smoke.py' /tmp/run2.log &"
    assert code_line("echo done > notes.txt\npython a.py") == "echo done > notes.txt"  # a write is work
    assert code_line("rm -rf build\nmake") == "rm -rf build"  # removing the project's files is work
    assert code_line("pkill -f vllm") == "pkill -f vllm"  # nothing else: the clearing up was the work


def test_a_quote_left_open_is_read_to_its_end() -> None:
    from compaction.shell import code_line

    assert code_line('python -c "\nimport torch\nprint(torch.__version__)"\necho ok') \
        == 'python -c "import torch; print(torch.__version__)"'
    assert code_line('git commit -m "fix: a\n\nlonger body"') == 'git commit -m "fix: a; longer body"'
    script = 'python -c "\n' + "\n".join(f"x{i} = {i}" for i in range(20)) + '"'
    assert code_line(script) == 'python -c "x0 = 0; x1 = 1; x2 = 2; x3 = 3; x4 = 4; x5 = 5 …'


def test_one_editor_run_many_times_in_a_line_is_its_opening_and_a_count() -> None:
    seds = " && ".join(f"sed -i '{n}s/raise TypeError.*/return NotImplemented/' sympy/core/numbers.py"
                       for n in (700, 708, 716))
    (line,) = _completed((seds, ""))
    # the opening as run (what a reader searches for), cut, then how many runs
    assert line.startswith("`sed -i '700s/raise TypeError.*/return NotImplemented/' sympy/core/numbers.py && sed")
    assert line.endswith("…` (3 runs of `sed -i`) (r1)") and len(line) < 140, line
    two = "pip install -e . && pip install pytest-xdist==1.34.0"
    assert _completed((two, "")) == [f"`{two}` (r1)"]  # short enough: told whole


def test_a_run_again_with_other_prefixes_is_the_same_run() -> None:
    lines = _completed(("NCCL_P2P_DISABLE=1 nohup vllm serve Qwen/Qwen3-4B --port 8000 > /tmp/a.log 2>&1 &", ""),
                       ("vllm serve Qwen/Qwen3-4B --port 8000 > /tmp/b.log", ""))
    assert lines == ["`NCCL_P2P_DISABLE=1 nohup vllm serve Qwen/Qwen3-4B --port 8000 > /tmp/a.log 2>&1 &` ×2 (r1, r2)"]


def test_two_files_written_by_the_same_kind_of_command_stay_two_runs() -> None:
    lines = _completed(("cat <<'EOF' > example.py\nx = 1\nEOF", ""), ("cat <<'EOF' > snippet.py\ny = 2\nEOF", ""),
                       ("echo 1 > a.txt", ""), ("echo 1 > b.txt", ""))
    assert lines == ["`cat <<'EOF' > example.py …` (r1)", "`cat <<'EOF' > snippet.py …` (r2)", "`echo 1 > a.txt` (r3)",
                     "`echo 1 > b.txt` (r4)"]


def test_clearing_up_is_still_an_action_but_not_how_a_command_is_told() -> None:
    lines = _completed(("rm /tmp/debug_cls.txt", ""), ("rm -f /tmp/run.log\nmake build > /tmp/b.log", ""))
    # every state change stays listed (the evaluation's ground truth counts it); a command is told by its work
    assert lines == ["`rm /tmp/debug_cls.txt` (r1)", "`make build > /tmp/b.log` (r2)"]


def test_a_long_chain_is_cut_in_its_first_run_its_count_kept_and_its_code_spans_closed() -> None:
    first = "sed -i '274s/def set_output(self, \\*, transform=None):/def set_output(self, *, transform=None, **kwargs):/' a.py"
    (line,) = _completed((" && ".join([first, first.replace("274", "280"), first.replace("274", "290")]), ""))
    assert line.endswith(" (3 runs of `sed -i`) (r1)") and line.count("`") % 2 == 0, line


def test_an_apostrophe_in_a_comment_opens_no_quote() -> None:
    lines = _completed(("pkill -f vllm  # kill what's left\nsleep 2\npython train.py --epochs 3 > /tmp/t.log", ""))
    assert lines == ["`python train.py --epochs 3 > /tmp/t.log` (r1)"]


def test_only_an_editors_runs_joined_by_and_are_counted() -> None:
    work = "python -m pip install -e . && python -m pytest tests/ -q && python -m build > /tmp/b.log"
    assert _completed((work, "")) == [f"`{work}` (r1)"]  # three kinds of work: told whole
    either = "sed -i 1d a.py && sed -i 2d b.py || sed -i 3d c.py"
    assert _completed((either, "")) == [f"`{either}` (r1)"]  # the third ran only if the others failed


def test_a_commit_command_that_failed_is_told_as_run() -> None:
    msgs = [Message(0, Role.USER, "commit and push")]
    msgs += call_pair("bash", {"command": 'git add a.py && git commit -m "fix: x" && git push'}, "c0",
                      "[main 1a2b3c4] fix: x\n 1 file changed\n ! [rejected] main -> main (fetch first)", is_error=True)
    msgs[-1].tool_results[0].exit_code = 1
    t = transcript(msgs)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    lines = [f.text for f in completed_facts(ctx)]
    assert any(x.startswith('`git add a.py && git commit -m "fix: x" && git push` → exit 1') for x in lines), lines


def test_what_a_command_reads_in_or_writes_out_is_its_work() -> None:
    lines = _completed(("sqlite3 app.db < migrations/001.sql", ""), ("sqlite3 app.db < migrations/002.sql", ""),
                       ("python gen.py | head -5 > out.txt", ""), ("python gen.py > /tmp/g.log", ""))
    assert not any("×2" in x for x in lines), lines


def test_a_process_stopped_on_its_own_and_a_tree_under_tmp_are_work() -> None:
    lines = _completed(('pkill -f "vllm serve"; rm -f /tmp/vllm.log', ""), ("rm -rf /tmp/proj/src/old_module", ""))
    assert lines == ['`pkill -f "vllm serve"; rm -f /tmp/vllm.log` (r1)', "`rm -rf /tmp/proj/src/old_module` (r2)"]


def test_a_command_the_user_turned_down_never_ran_and_is_no_action() -> None:
    msgs = [Message(0, Role.USER, "build and commit")]
    msgs += call_pair("bash", {"command": "npm run build && git commit -am wip"}, "c0", "npm ERR! exit 1", is_error=True)
    msgs.append(Message(0, Role.USER, "next"))
    msgs += call_pair("bash", {"command": "npm run build && git commit -am wip"}, "c1",
                      "[Operation Cancelled] Reason: User denied execution.", is_error=True)
    t = transcript(msgs)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    lines = [f.text for f in completed_facts(ctx)]
    assert len(lines) == 1 and "×2" not in lines[0] and lines[0].endswith("(r1)")
