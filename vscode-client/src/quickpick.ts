/**
 * Quick-pick items for "Compact Conversation": the transcripts the server discovered for this
 * workspace, newest first, then the two ways to name one by hand. Pure (no window calls) so the
 * ordering and labels are unit-tested.
 */
import { QuickPickItemKind, type QuickPickItem } from 'vscode';

/** One entry of `compaction.discoverTranscripts`' reply. */
export interface TranscriptRef {
  path: string;
  agent: string;
  /** Modification time, seconds since the epoch. */
  mtime: number;
  size: number;
}

export type PickAction =
  | { kind: 'transcript'; path: string }
  | { kind: 'chooseFile' }
  | { kind: 'activeEditor'; path: string };

export interface TranscriptPickItem extends QuickPickItem {
  action?: PickAction;
}

const AGENT_LABELS: Record<string, string> = {
  'claude-code': 'Claude Code',
  claude: 'Claude Code',
  codex: 'Codex',
  aider: 'Aider',
  'gemini-cli': 'Gemini CLI',
  gemini: 'Gemini CLI',
  cline: 'Cline',
};

/** "claude-code" -> "Claude Code"; unknown ids are title-cased rather than hidden. */
export function agentLabel(agent: string): string {
  const known = AGENT_LABELS[agent.toLowerCase()];
  if (known) return known;
  return agent
    .split(/[-_\s]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(' ');
}

/** Human age of a timestamp: "just now", "5 min ago", "3 h ago", "2 days ago". */
export function formatAge(mtimeSeconds: number, nowMs: number): string {
  const secs = Math.max(0, Math.round(nowMs / 1000 - mtimeSeconds));
  if (secs < 45) return 'just now';
  const mins = Math.round(secs / 60);
  if (mins < 60) return `${mins} min ago`;
  const hours = Math.round(secs / 3600);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(secs / 86400);
  return days === 1 ? '1 day ago' : `${days} days ago`;
}

/** Byte size in the units people read: "812 B", "14.2 KB", "3.1 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function baseName(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] || p;
}

/** Shorten the home directory to "~" in a displayed path. */
export function tildify(p: string, home?: string): string {
  if (home && home.length > 1 && (p === home || p.startsWith(home + '/'))) return '~' + p.slice(home.length);
  return p;
}

export interface PickOptions {
  nowMs: number;
  home?: string;
  /** File shown in the active editor, offered as "Use Active Editor" when set. */
  activeEditorPath?: string;
}

/** Items newest first; the first transcript is marked as the default choice. */
export function transcriptItems(transcripts: readonly TranscriptRef[], opts: PickOptions): TranscriptPickItem[] {
  const sorted = [...transcripts].sort((a, b) => b.mtime - a.mtime || a.path.localeCompare(b.path));
  const items: TranscriptPickItem[] = [];
  if (sorted.length > 0) items.push({ label: 'Transcripts for this workspace', kind: QuickPickItemKind.Separator });
  sorted.forEach((t, i) => {
    items.push({
      label: `$(comment-discussion) ${baseName(t.path)}`,
      description: `${agentLabel(t.agent)} · ${formatAge(t.mtime, opts.nowMs)} · ${formatSize(t.size)}`,
      detail: tildify(t.path, opts.home),
      picked: i === 0,
      action: { kind: 'transcript', path: t.path },
    });
  });
  items.push({ label: 'Other', kind: QuickPickItemKind.Separator });
  items.push({
    label: '$(folder-opened) Choose File…',
    description: 'any supported transcript format',
    action: { kind: 'chooseFile' },
  });
  if (opts.activeEditorPath) {
    items.push({
      label: '$(file) Use Active Editor',
      description: baseName(opts.activeEditorPath),
      detail: tildify(opts.activeEditorPath, opts.home),
      action: { kind: 'activeEditor', path: opts.activeEditorPath },
    });
  }
  return items;
}

/** Placeholder text that says how many transcripts were found. */
export function pickPlaceholder(count: number): string {
  if (count === 0) return 'No transcripts found for this workspace: choose a file or use the active editor';
  return `Pick the conversation to compact (${count} found, newest first)`;
}

export interface RoleItem extends QuickPickItem {
  role: 'developer' | 'tester' | 'pm';
}

/** The three role presets of the seed, with what each keeps. */
export function roleItems(current: string | undefined): RoleItem[] {
  const items: RoleItem[] = [
    { role: 'developer', label: 'Developer', detail: 'Code changes, technical detail and error memory' },
    { role: 'tester', label: 'Tester', detail: 'Test cases, defects and ERR_LOGIC_* records' },
    { role: 'pm', label: 'Product Manager', detail: 'Requirements and feature decisions, no implementation detail' },
  ];
  for (const item of items) if (item.role === current) item.description = '(current setting)';
  return items;
}

/** A transcript chosen in the quick pick; `explicit` when the user named the file itself. */
export interface PickedTranscript {
  path: string;
  explicit: boolean;
}

/** What a pick action means for the server: a discovered transcript is one the server found (it
 * reads it under its own rules); a chosen file or the active editor is one the user named, so the
 * request carries it in `allowRead` (the only way a path outside the workspace is read). */
export function pickedTranscript(action: PickAction, chosenFile?: string): PickedTranscript | undefined {
  if (action.kind === 'transcript') return { path: action.path, explicit: false };
  if (action.kind === 'activeEditor') return { path: action.path, explicit: true };
  return chosenFile ? { path: chosenFile, explicit: true } : undefined;
}

/** The `compaction.compact` arguments for a pick: `allowRead` only for a file the user named. */
export function withAllowRead<T extends object>(args: T, picked: PickedTranscript): T & { transcript: string; allowRead?: string[] } {
  return picked.explicit ? { ...args, transcript: picked.path, allowRead: [picked.path] } : { ...args, transcript: picked.path };
}
