import { describe, expect, it } from 'vitest';
import { AgentCompactedGate, agentCompactedMessage } from '../src/agentCompacted';

describe('agent compaction notification', () => {
  const p = { transcript: '/h/.claude/projects/-w/s.jsonl', agent: 'claude-code', offset: 4096, restore: '/w/.compaction/restore.md' };

  it('names the agent and the session', () => {
    expect(agentCompactedMessage(p)).toMatch(/^Claude Code compacted its conversation \(s\.jsonl\)\. The restore state/);
    expect(agentCompactedMessage({ agent: 'pi' })).toMatch(/^pi compacted/);
  });

  it('shows each compaction once, never when muted or when nothing was written', () => {
    const gate = new AgentCompactedGate();
    expect(gate.shouldShow(p, false)).toBe(true);
    expect(gate.shouldShow(p, false)).toBe(false);
    expect(gate.shouldShow({ ...p, offset: 9000 }, false)).toBe(true);
    expect(gate.shouldShow({ ...p, offset: 12000 }, true)).toBe(false);
    expect(gate.shouldShow({ ...p, offset: 13000, restore: undefined }, false)).toBe(false);
  });
});
