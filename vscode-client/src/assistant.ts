/**
 * What "Copy for Assistant" puts on the clipboard, and the notification after a compaction.
 * Pure so the block's shape is unit-tested.
 */

/** Stats of a compaction; the server may send camelCase or snake_case keys. */
export interface CompactStats {
  tokensBefore?: number;
  tokensAfter?: number;
  tokens_before?: number;
  tokens_after?: number;
  ratio?: number;
  elapsedMs?: number;
  elapsed_ms?: number;
}

/** Both documents as one block the assistant can be given after its context was reset. */
export function assistantBlock(summaryMarkdown: string, restoreMarkdown: string): string {
  const parts = [
    '<compaction-summary>',
    summaryMarkdown.trim(),
    '</compaction-summary>',
    '',
    '<restore-state>',
    restoreMarkdown.trim(),
    '</restore-state>',
    '',
  ];
  return parts.join('\n');
}

/** "Compacted 48,210 → 3,120 tokens (−94%) in 85 ms." */
export function compactedMessage(stats: CompactStats | undefined, note?: string | null): string {
  const before = stats?.tokensBefore ?? stats?.tokens_before;
  const after = stats?.tokensAfter ?? stats?.tokens_after;
  const ms = stats?.elapsedMs ?? stats?.elapsed_ms;
  let msg = 'Compacted';
  if (typeof before === 'number' && typeof after === 'number') {
    const change = before > 0 ? Math.round((after / before - 1) * 100) : 0;
    // a document that grew (a short session returned whole, with its headings) says so: "+6%", not "−-6%"
    const sign = change > 0 ? '+' : change < 0 ? '−' : '±';
    msg += ` ${before.toLocaleString('en-US')} → ${after.toLocaleString('en-US')} tokens (${sign}${Math.abs(change)}%)`;
  }
  if (typeof ms === 'number') msg += ` in ${Math.round(ms)} ms`;
  msg += '. Summary and restore state opened.';
  if (note) msg += ` ${note}`;
  return msg;
}

/** Paths of the restored core files, whatever shape the restore state gives them. */
export function coreFilePaths(state: unknown): string[] {
  if (!state || typeof state !== 'object') return [];
  const s = state as Record<string, unknown>;
  const list = (s.coreFiles ?? s.core_files) as unknown;
  if (!Array.isArray(list)) return [];
  const out: string[] = [];
  for (const entry of list) {
    if (typeof entry === 'string') out.push(entry);
    else if (entry && typeof entry === 'object') {
      const e = entry as Record<string, unknown>;
      const p = e.absPath ?? e.abs_path ?? e.path;
      if (typeof p === 'string') out.push(p);
    }
  }
  return [...new Set(out)];
}

/**
 * The restore document a compaction already wrote (`paths.restore` of the `compaction.compact`
 * reply). When there is one the client opens it as is: asking `compaction.restore` again would
 * build the same state a second time and overwrite the file.
 */
export function writtenRestorePath(reply: { paths?: { restore?: string } } | undefined): string | undefined {
  const p = reply?.paths?.restore;
  return typeof p === 'string' && p.trim() ? p : undefined;
}

/**
 * Core-file paths listed in a restore document (restore/render.py writes each as
 * "N. `path` — kind (…)"), for reopening them when only the document, not the state, is at hand.
 * The first section holding such lines is the core-files one: the open files before it are "- " bullets.
 */
export function coreFilesFromRestoreMarkdown(markdown: string): string[] {
  const item = /^\d+\.\s+`([^`]+)`\s+—/;
  const out: string[] = [];
  let inSection = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('## ')) {
      if (out.length) break;
      inSection = true;
      continue;
    }
    const m = inSection ? item.exec(line) : null;
    if (m) out.push(m[1]);
  }
  return [...new Set(out)];
}
