"""A push's outcome in Completed key actions is what the remote said (completed.remote_said)."""

from compaction.history.sources.completed import remote_said

PUSH = """remote:
remote: GitHub found 19 vulnerabilities on o/r's default branch (2 high, 8 moderate, 9 low). To find out more, visit:
remote:      https://github.com/o/r/security/dependabot
remote:
To https://github.com/o/r.git
   f11a9bd..ec4b1d8  main -> main"""


def test_the_remote_s_first_words_are_the_push_s_outcome() -> None:
    assert remote_said(PUSH).startswith("remote: GitHub found 19 vulnerabilities on o/r's default branch")
    assert remote_said("To https://github.com/o/r.git\n   a..b  main -> main") == ""
    assert len(remote_said("remote: " + "word " * 100)) <= 170


def test_git_progress_is_not_the_remotes_words_and_a_link_follows_its_colon() -> None:
    assert remote_said("remote: Resolving deltas: 100% (2/2), completed with 2 local objects.\n"
                       "remote: GitHub found 19 vulnerabilities on a/b's default branch") == \
        "remote: GitHub found 19 vulnerabilities on a/b's default branch"
    assert remote_said("remote: Enumerating objects: 12, done.") == ""
    assert remote_said("remote: Create a pull request for 'x' on GitHub by visiting:\n"
                       "remote:      https://github.com/a/b/pull/new/x") == \
        "remote: Create a pull request for 'x' on GitHub by visiting: https://github.com/a/b/pull/new/x"
