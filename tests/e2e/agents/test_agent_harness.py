"""The suite's own rule: an agent whose npm package cannot be installed is skipped with npm's reason,
and under CI=true that skip is a failure."""

from __future__ import annotations

import agent_harness
import pytest


@pytest.fixture
def no_npm(tmp_path, monkeypatch):
    monkeypatch.setattr(agent_harness, "CACHE", tmp_path / "cache")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))


def test_missing_agent_is_skipped_with_the_reason(no_npm, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="@example/agent: npm is not on PATH"):
        agent_harness.require_agent("x", "@example/agent", "agent")


def test_ci_true_turns_the_skip_into_a_failure(no_npm, monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true: @example/agent: npm is not on PATH"):
        agent_harness.require_agent("x", "@example/agent", "agent")


def test_a_cached_binary_is_used_without_npm(no_npm):
    exe = agent_harness.CACHE / "x" / "node_modules" / ".bin" / "agent"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    assert agent_harness.require_agent("x", "@example/agent", "agent") == exe
