"""aider in architect mode logs the architect's reply handed to its editor model as a `####` prompt: the
harness's, not the user's. A reply cut by `^C` inside an unclosed code fence ends at aider's interrupt
line, so the next session's header and prompts are read as such."""

from __future__ import annotations

from compaction.model import Role
from compaction.transcripts import load_transcript

HISTORY = """
# aider chat started at 2025-12-22 01:19:32

#### why can't the admin approve role requests?

Here is a fix for the contract:

```solidity
function approve(address who) public {
    require(hasRole(ADMIN, msg.sender));

>
> ^C KeyboardInterrupt

# aider chat started at 2025-12-22 01:31:47

> Aider v0.86.1
> Model: openai/deepseek-coder with architect edit format

#### analyse why the admin cannot approve role requests in the web directory

To analyse why the admin cannot approve the role requests, check three things:
1. The admin's permissions.
2. The approval workflow.

> Tokens: 1.3k sent, 528 received.

#### To analyse why the admin cannot approve the role requests, check three things:
#### 1. The admin's permissions.
#### 2. The approval workflow.

I will update web/src/approve.ts accordingly.
"""


def test_an_architect_hand_off_is_the_harness_and_an_interrupted_fence_ends(tmp_path):
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(HISTORY, encoding="utf-8")
    t = load_transcript(str(path))
    users = [(m.text.splitlines()[0], m.harness) for m in t.messages if m.role is Role.USER]
    assert users == [("why can't the admin approve role requests?", False),
                     ("analyse why the admin cannot approve role requests in the web directory", False),
                     ("To analyse why the admin cannot approve the role requests, check three things:", True)]
    sessions = [m for m in t.messages if m.meta.get("session_start")]
    assert len(sessions) == 2  # the second header is not swallowed by the interrupted reply's fence


def test_a_quoted_history_inside_a_closed_fence_stays_the_replys(tmp_path):
    quoted = ("# aider chat started at 2025-12-22 01:00:00\n\n#### fix the parser\n\n"
              "Here is how a history looks:\n\n```markdown\nsome text\n# aider chat started at 2025-12-22 02:00:00\n"
              "#### a quoted prompt\n```\n\nThat is all.\n")
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(quoted, encoding="utf-8")
    t = load_transcript(str(path))
    assert [m.text for m in t.messages if m.role is Role.USER] == ["fix the parser"]
    assert len([m for m in t.messages if m.meta.get("session_start")]) == 1
