/**
 * The status item's words: utilization of the newest transcript ("Context 72%"), turning into a
 * warning at the trigger ratio. Pure so the thresholds and wording are unit-tested.
 */

/** The reply of `compaction.status`. */
export interface StatusReply {
  transcript?: string | null;
  tokens?: number;
  contextWindow?: number;
  utilization?: number;
  trigger?: number;
  /** The server's name for `trigger`. */
  triggerRatio?: number;
  wouldTrigger?: boolean;
}

export interface StatusView {
  text: string;
  tooltip: string;
  warning: boolean;
  visible: boolean;
}

/** 1234 -> "1.2k", 200000 -> "200k", 1500000 -> "1.5M". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) {
    const k = n / 1000;
    return `${k < 100 ? k.toFixed(1).replace(/\.0$/, '') : Math.round(k)}k`;
  }
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

export function percent(ratio: number): string {
  return `${Math.round(ratio * 100)}%`;
}

function baseName(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] || p;
}

/**
 * Text, tooltip and warning state. `fallbackTrigger` (the setting) is used when the server's
 * reply carries no trigger. No transcript -> the item is hidden.
 */
export function statusView(reply: StatusReply | undefined, fallbackTrigger = 0.7): StatusView {
  if (!reply || !reply.transcript || typeof reply.utilization !== 'number') {
    return { text: '$(comment-discussion) Context –', tooltip: 'No transcript found for this workspace', warning: false, visible: false };
  }
  const given = reply.trigger ?? reply.triggerRatio;
  const trigger = typeof given === 'number' && given > 0 ? given : fallbackTrigger;
  const warning = reply.wouldTrigger ?? reply.utilization >= trigger;
  const icon = warning ? '$(warning)' : '$(comment-discussion)';
  const tokens = typeof reply.tokens === 'number' ? formatTokens(reply.tokens) : '?';
  const window = typeof reply.contextWindow === 'number' ? formatTokens(reply.contextWindow) : '?';
  const lines = [
    `${baseName(reply.transcript)}: ${tokens} of ${window} tokens (${percent(reply.utilization)})`,
    warning
      ? `At or above the ${percent(trigger)} trigger: compaction is due. Click to compact.`
      : `Compaction is due at ${percent(trigger)}. Click to compact now.`,
  ];
  return { text: `${icon} Context ${percent(reply.utilization)}`, tooltip: lines.join('\n'), warning, visible: true };
}

/** The text of "Show Context Budget". */
export function budgetMessage(reply: StatusReply | undefined, fallbackTrigger = 0.7): string {
  const view = statusView(reply, fallbackTrigger);
  if (!view.visible) return view.tooltip;
  return view.tooltip.split('\n')[0] + (view.warning ? ' — compaction is due.' : ' — below the trigger.');
}
