/**
 * Shapes of the error-memory replies, read leniently: the avoidance check may answer with
 * `warnings` ({id, line, reason}) or with matching `records`/`matches`; both become warnings.
 */

export interface CheckWarning {
  id: string;
  line?: number;
  reason?: string;
}

export interface ErrorRecordLike {
  id: string;
  count?: number;
  recurring?: boolean;
  solution?: string | null;
  avoidance?: string | null;
  message?: string | null;
}

export interface CheckReply {
  warnings?: CheckWarning[];
  matches?: ErrorRecordLike[];
  records?: ErrorRecordLike[];
}

/** The seed's warning line: "⚠️ Detected historical error [id], avoidance: [advice]". */
export function warningLine(record: ErrorRecordLike): string {
  const advice = record.avoidance || record.solution || record.message || 'see the error memory';
  return `⚠️ Detected historical error ${record.id}, avoidance: ${advice}`;
}

export function checkWarnings(reply: CheckReply | undefined): CheckWarning[] {
  if (!reply) return [];
  if (Array.isArray(reply.warnings)) return reply.warnings.filter((w) => w && typeof w.id === 'string');
  const records = reply.matches ?? reply.records ?? [];
  return records.filter((r) => r && typeof r.id === 'string').map((r) => ({ id: r.id, reason: warningLine(r) }));
}

/** Markdown for "Show Error Memory"; an empty memory says so instead of opening a blank page. */
export function errorMemoryMarkdown(markdown: string | undefined): string {
  return markdown && markdown.trim() ? markdown : '## Error Memory\n\n_No records yet._\n';
}
