/**
 * Shapes of the error-memory replies. `compaction.errorMemory.check` answers
 * `{matches: [{id, score, reason, advice, line, rounds}]}` where `reason` says why the record fired
 * (the file, command or symbol it shares with the code) and `line` is the seed's warning text
 * ("⚠️ Detected historical error [id], avoidance: [advice]"), not a line number.
 */

/** One entry of the server's `matches` (compaction/errors/check.py `Warning_.as_dict`). */
export interface CheckMatch {
  id: string;
  score?: number;
  reason?: string;
  advice?: string;
  line?: string;
  rounds?: number[];
}

export interface CheckReply {
  matches?: CheckMatch[];
}

/** What the client shows for one match. */
export interface CheckWarning {
  id: string;
  /** Why the record matched ("file config.py, symbol environ"). */
  reason: string;
  /** The server's warning text. */
  message: string;
}

export function checkWarnings(reply: CheckReply | undefined): CheckWarning[] {
  const matches = Array.isArray(reply?.matches) ? reply.matches : [];
  return matches
    .filter((m) => m && typeof m.id === 'string')
    .map((m) => ({
      id: m.id,
      reason: typeof m.reason === 'string' ? m.reason : '',
      message: typeof m.line === 'string' && m.line ? m.line : m.id,
    }));
}

/** Markdown for "Show Error Memory"; an empty memory says so instead of opening a blank page. */
export function errorMemoryMarkdown(markdown: string | undefined): string {
  return markdown && markdown.trim() ? markdown : '## Error Memory\n\n_No records yet._\n';
}

/**
 * Arguments of `compaction.errorMemory.check` for "Check Error Memory for Selection": the
 * selection (or the file) as `text`, the file as `files`. `code` stays out: the server reads it
 * as source text being edited, and the language id is not that.
 */
export function checkArgs(text: string, file: string | undefined): { text: string; files: string[] } {
  return { text, files: file ? [file] : [] };
}
