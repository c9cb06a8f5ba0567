import { describe, expect, it } from 'vitest';
import { budgetMessage, formatTokens, statusView } from '../src/status';

describe('statusView', () => {
  const base = { transcript: '/t/session.jsonl', tokens: 144_000, contextWindow: 200_000, trigger: 0.7 };

  it('shows utilization as "Context NN%" below the trigger without a warning', () => {
    const v = statusView({ ...base, tokens: 100_000, utilization: 0.5, wouldTrigger: false });
    expect(v.text).toBe('$(comment-discussion) Context 50%');
    expect(v.warning).toBe(false);
    expect(v.visible).toBe(true);
    expect(v.tooltip).toContain('session.jsonl: 100k of 200k tokens (50%)');
    expect(v.tooltip).toContain('due at 70%');
  });

  it('warns at the trigger ratio', () => {
    const v = statusView({ ...base, utilization: 0.72 });
    expect(v.text).toBe('$(warning) Context 72%');
    expect(v.warning).toBe(true);
    expect(v.tooltip).toContain('compaction is due');
  });

  it("trusts the server's wouldTrigger over its own comparison", () => {
    expect(statusView({ ...base, utilization: 0.9, wouldTrigger: false }).warning).toBe(false);
    expect(statusView({ ...base, utilization: 0.1, wouldTrigger: true }).warning).toBe(true);
  });

  it('reads the trigger under either name', () => {
    const reply = { transcript: '/t/a.jsonl', tokens: 10, contextWindow: 100, utilization: 0.6 };
    expect(statusView({ ...reply, triggerRatio: 0.5 }, 0.9).warning).toBe(true);
    expect(statusView({ ...reply, trigger: 0.65 }, 0.5).warning).toBe(false);
  });

  it('falls back to the configured trigger when the reply has none', () => {
    const reply = { transcript: '/t/a.jsonl', tokens: 10, contextWindow: 100, utilization: 0.6 };
    expect(statusView(reply, 0.5).warning).toBe(true);
    expect(statusView(reply, 0.7).warning).toBe(false);
  });

  it('hides the item when there is no transcript', () => {
    expect(statusView(undefined).visible).toBe(false);
    expect(statusView({ transcript: null }).visible).toBe(false);
    expect(budgetMessage(undefined)).toMatch(/No transcript/);
  });

  it('summarises the budget in one sentence', () => {
    expect(budgetMessage({ ...base, utilization: 0.72 })).toBe('session.jsonl: 144k of 200k tokens (72%) — compaction is due.');
    expect(budgetMessage({ ...base, tokens: 20_000, utilization: 0.1 })).toBe('session.jsonl: 20k of 200k tokens (10%) — below the trigger.');
  });
});

describe('formatTokens', () => {
  it('uses k and M with at most one decimal', () => {
    expect(formatTokens(999)).toBe('999');
    expect(formatTokens(1234)).toBe('1.2k');
    expect(formatTokens(128_000)).toBe('128k');
    expect(formatTokens(1_000_000)).toBe('1M');
    expect(formatTokens(1_500_000)).toBe('1.5M');
  });
});
