/**
 * What an assistant (a language-model tool call or an `@compaction` chat request) asks of the
 * server, and the text it gets back. Pure: tool input → server command and arguments, server
 * reply → Markdown. The server does the work and the path confinement (`confined: true` makes
 * `compaction.compact` judge the transcript path exactly as the MCP server does); nothing here
 * decides what may be read.
 */
import { checkWarnings, errorMemoryMarkdown, type CheckReply } from './errorMemory';

/** The tools of `contributes.languageModelTools`, by name. */
export const TOOL_NAMES = {
  restore: 'compaction_restore',
  errorMemory: 'compaction_errorMemory',
  compact: 'compaction_compact',
} as const;

export type ToolName = (typeof TOOL_NAMES)[keyof typeof TOOL_NAMES];

export interface RestoreInput {
  openFiles?: string[];
}

export interface ErrorMemoryInput {
  files?: string[];
  text?: string;
  commands?: string[];
}

export interface CompactInput {
  transcript?: string;
  instructions?: string;
  role?: 'developer' | 'tester' | 'pm';
  targetTokens?: number;
}

/** One server command call: its id and its single object argument. */
export interface ServerCall {
  command: string;
  args: Record<string, unknown>;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value : undefined;
}

export function restoreCall(input: RestoreInput | undefined, editorOpenFiles: string[]): ServerCall {
  const files = strings(input?.openFiles);
  const open = files.length ? files : editorOpenFiles;
  return { command: 'compaction.restore', args: open.length ? { openFiles: open } : {} };
}

/**
 * With files, text or commands: the records resembling them (`check`, the seed's warning lines);
 * with nothing: the whole memory (`export`), so "what went wrong before?" has an answer too.
 */
export function errorMemoryCall(input: ErrorMemoryInput | undefined): ServerCall {
  const files = strings(input?.files);
  const commands = strings(input?.commands);
  const t = text(input?.text);
  if (!files.length && !commands.length && !t) return { command: 'compaction.errorMemory.export', args: {} };
  return { command: 'compaction.errorMemory.check', args: { text: t ?? '', files, commands, limit: 5 } };
}

const ROLES = new Set(['developer', 'tester', 'pm']);

/** `confined`: the transcript path comes from a model, so the server confines it like the MCP server's. */
export function compactCall(input: CompactInput | undefined): ServerCall {
  const args: Record<string, unknown> = { confined: true };
  const transcript = text(input?.transcript);
  if (transcript) args.transcript = transcript;
  const instructions = text(input?.instructions);
  if (instructions) args.instructions = instructions;
  if (typeof input?.role === 'string' && ROLES.has(input.role)) args.role = input.role;
  if (typeof input?.targetTokens === 'number' && Number.isInteger(input.targetTokens) && input.targetTokens > 0) {
    args.targetTokens = input.targetTokens;
  }
  return { command: 'compaction.compact', args };
}

export function restoreText(reply: { markdown?: string } | undefined): string {
  return reply?.markdown?.trim() ? reply.markdown : 'No restore state could be built for this workspace.';
}

/** The check's warning lines (with why each matched), or the exported memory. */
export function errorMemoryText(reply: (CheckReply & { markdown?: string }) | undefined): string {
  if (reply && typeof reply.markdown === 'string') return errorMemoryMarkdown(reply.markdown);
  const warnings = checkWarnings(reply);
  if (!warnings.length) return 'No recorded error resembles this work. Proceed, and report new failures as they happen.';
  const lines = warnings.map((w) => `- ${w.message}${w.reason ? ` (matched: ${w.reason})` : ''}`);
  return ['Historical errors relevant here — print each warning line before you write the code:', ...lines].join('\n');
}

export function compactText(reply: { markdown?: string; note?: string | null; paths?: { latest?: string; restore?: string } } | undefined): string {
  const body = reply?.markdown?.trim() ? reply.markdown : 'The compaction produced no document.';
  const notes: string[] = [];
  if (reply?.note) notes.push(reply.note);
  if (reply?.paths?.latest) notes.push(`Written to ${reply.paths.latest}${reply.paths.restore ? ` and ${reply.paths.restore}` : ''}.`);
  return notes.length ? `${body.trimEnd()}\n\n_${notes.join(' ')}_\n` : body;
}

/** Turns a tool's input into the server call and renders the reply, for each tool name. */
export const TOOL_SPECS: Record<ToolName, { call: (input: any, openFiles: string[]) => ServerCall; render: (reply: any) => string; progress: string }> = {
  [TOOL_NAMES.restore]: { call: (i, open) => restoreCall(i, open), render: restoreText, progress: 'Building the restore state' },
  [TOOL_NAMES.errorMemory]: { call: (i) => errorMemoryCall(i), render: errorMemoryText, progress: 'Checking the error memory' },
  [TOOL_NAMES.compact]: { call: (i) => compactCall(i), render: compactText, progress: 'Compacting the conversation' },
};
