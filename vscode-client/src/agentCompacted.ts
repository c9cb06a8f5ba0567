/**
 * The notification after an agent compacted its own conversation (Claude Code's /compact or
 * auto-compact, Codex, Cline's condense): the server already refreshed `.compaction/restore.md`
 * and the error memory, and sends `compaction/agentCompacted`. Pure: what is shown, and whether.
 */
import * as path from 'path';

export const AGENT_COMPACTED = 'compaction/agentCompacted';
export const MUTE_KEY = 'compaction.agentCompacted.mute';

export interface AgentCompactedParams {
  transcript?: string;
  agent?: string;
  offset?: number;
  restore?: string;
  latest?: string;
}

export const ACTIONS = { open: 'Open', copy: 'Copy for Assistant', mute: "Don't Show Again" } as const;

const AGENT_NAMES: Record<string, string> = { 'claude-code': 'Claude Code', codex: 'Codex', cline: 'Cline' };

export function agentCompactedMessage(p: AgentCompactedParams): string {
  const who = (p.agent && AGENT_NAMES[p.agent]) || p.agent || 'The assistant';
  const where = p.transcript ? ` (${path.basename(p.transcript)})` : '';
  return `${who} compacted its conversation${where}. The restore state and error memory are refreshed: give them to the assistant so it continues where it was.`;
}

/** Decides, per notification, whether to show it: never when muted, once per compaction. */
export class AgentCompactedGate {
  private readonly shown = new Set<string>();

  shouldShow(p: AgentCompactedParams, muted: boolean): boolean {
    if (muted || !p.restore) return false;
    const key = `${p.transcript ?? ''}@${p.offset ?? ''}`;
    if (this.shown.has(key)) return false;
    this.shown.add(key);
    return true;
  }
}
