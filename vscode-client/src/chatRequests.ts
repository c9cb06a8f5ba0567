/**
 * The `@compaction` chat participant's decisions, pure so they are unit-tested with a fake
 * stream: which tool a slash command runs with what input, and how the reply is streamed
 * (the document as Markdown, then the files it names as anchors the user can click).
 */
import * as path from 'path';
import { TOOL_NAMES, type CompactInput, type ErrorMemoryInput, type ToolName } from './agentRequests';

/** The part of `vscode.ChatResponseStream` the handler uses (paths, not Uris, so it stays pure). */
export interface ChatStream {
  progress(message: string): void;
  markdown(text: string): void;
  anchor(file: string, title: string): void;
}

export interface ChatAsk {
  command?: string;
  prompt: string;
  /** Files the user attached (`#file`), as absolute paths. */
  files?: string[];
}

export type RunTool = (name: ToolName, input: object) => Promise<string>;

const TRANSCRIPT_EXT = /\.(jsonl|json|md|traj)$/i;
const FILE_LIKE = /^(?:[~./]|[A-Za-z]:[\\/])?[\w@.-]+(?:[\\/][\w@.-]+)*\.\w{1,8}$/;

export const HELP = [
  'I compact coding-assistant sessions of this workspace and keep its error memory.',
  '',
  '- `/compact [transcript] [instructions]` — compact the newest session (or the transcript named); the rest of the prompt steers it',
  '- `/restore` — the working state: cwd, open and core files, unfinished tasks, problems, error memory',
  '- `/errors [files or text]` — recorded errors resembling them, with avoidance advice (all records without)',
].join('\n');

/** `/compact a.jsonl keep the API decisions` → transcript `a.jsonl`, instructions the rest. */
export function compactInput(prompt: string): CompactInput {
  const words = prompt.trim().split(/\s+/).filter(Boolean);
  const input: CompactInput = {};
  if (words.length && TRANSCRIPT_EXT.test(words[0])) input.transcript = words.shift();
  if (words.length) input.instructions = words.join(' ');
  return input;
}

/** `/errors src/app.py the retry loop` → files `src/app.py` (plus attached ones), text the whole prompt. */
export function errorsInput(prompt: string, attached: string[] = []): ErrorMemoryInput {
  const words = prompt.trim().split(/\s+/).filter(Boolean);
  const files = [...new Set([...attached, ...words.filter((w) => FILE_LIKE.test(w))])];
  const input: ErrorMemoryInput = {};
  if (files.length) input.files = files;
  if (prompt.trim()) input.text = prompt.trim();
  return input;
}

/** The tool and input for a request; undefined: no command (the help is shown). */
export function toolFor(ask: ChatAsk): { name: ToolName; input: object; progress: string } | undefined {
  switch (ask.command) {
    case 'compact':
      return { name: TOOL_NAMES.compact, input: compactInput(ask.prompt), progress: 'Compacting…' };
    case 'restore':
      return { name: TOOL_NAMES.restore, input: ask.files?.length ? { openFiles: ask.files } : {}, progress: 'Building the restore state…' };
    case 'errors':
      return { name: TOOL_NAMES.errorMemory, input: errorsInput(ask.prompt, ask.files), progress: 'Checking the error memory…' };
    default:
      return undefined;
  }
}

/**
 * Files a document names in backticks (`src/app.py`, `/abs/x.ts`), in order, resolved against
 * the workspace; the ones that exist (per `exists`) become anchors.
 */
export function referencedFiles(markdown: string, root: string | undefined, exists: (p: string) => boolean): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(/`([^`\n]+)`/g)) {
    const raw = m[1].trim().replace(/:\d+(?::\d+)?$/, '');
    if (!FILE_LIKE.test(raw)) continue;
    const abs = path.isAbsolute(raw) ? raw : root ? path.join(root, raw) : undefined;
    if (abs && !out.includes(abs) && exists(abs)) out.push(abs);
  }
  return out;
}

/** Handle one chat request: run the tool, stream the document, then the files it names. */
export async function handleChat(ask: ChatAsk, stream: ChatStream, run: RunTool, files: (markdown: string) => string[]): Promise<{ command?: string; error?: string }> {
  const tool = toolFor(ask);
  if (!tool) {
    stream.markdown(HELP);
    return {};
  }
  stream.progress(tool.progress);
  let text: string;
  try {
    text = await run(tool.name, tool.input);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    stream.markdown(`**Compaction:** ${message}`);
    return { command: ask.command, error: message };
  }
  stream.markdown(text);
  const named = files(text);
  if (named.length) {
    stream.markdown('\n\n**Files:** ');
    named.forEach((f, i) => {
      if (i) stream.markdown(', ');
      stream.anchor(f, path.basename(f));
    });
  }
  return { command: ask.command };
}
