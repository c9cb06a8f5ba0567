import { describe, expect, it } from 'vitest';
import { QuickPickItemKind } from 'vscode';
import { agentLabel, formatAge, formatSize, pickedTranscript, pickPlaceholder, roleItems, tildify, transcriptItems, withAllowRead, type TranscriptRef } from '../src/quickpick';

const NOW = Date.UTC(2026, 0, 10, 12, 0, 0);
const s = (msAgo: number) => (NOW - msAgo) / 1000;

const refs: TranscriptRef[] = [
  { path: '/home/me/.codex/sessions/2026/01/09/rollout-a.jsonl', agent: 'codex', mtime: s(26 * 3600_000), size: 2_400_000 },
  { path: '/home/me/.claude/projects/-home-me-app/abc.jsonl', agent: 'claude-code', mtime: s(5 * 60_000), size: 48_300 },
  { path: '/work/app/.aider.chat.history.md', agent: 'aider', mtime: s(3 * 3600_000), size: 900 },
];

describe('transcriptItems', () => {
  const items = transcriptItems(refs, { nowMs: NOW, home: '/home/me', activeEditorPath: '/work/app/notes.md' });
  const picks = items.filter((i) => i.kind !== QuickPickItemKind.Separator);

  it('orders transcripts newest first and marks the newest as picked', () => {
    const paths = picks.filter((i) => i.action?.kind === 'transcript').map((i) => (i.action as { path: string }).path);
    expect(paths).toEqual([refs[1].path, refs[2].path, refs[0].path]);
    expect(picks[0].picked).toBe(true);
    expect(picks.filter((i) => i.picked)).toHaveLength(1);
  });

  it('describes each transcript by agent, age and size, with the home shortened', () => {
    expect(picks[0].label).toBe('$(comment-discussion) abc.jsonl');
    expect(picks[0].description).toBe('Claude Code · 5 min ago · 47 KB');
    expect(picks[0].detail).toBe('~/.claude/projects/-home-me-app/abc.jsonl');
    expect(picks[1].description).toBe('Aider · 3 h ago · 900 B');
    expect(picks[2].description).toBe('Codex · 1 day ago · 2.3 MB');
  });

  it('ends with Choose File… and Use Active Editor, after a separator', () => {
    const tail = items.slice(-3);
    expect(tail[0].kind).toBe(QuickPickItemKind.Separator);
    expect(tail[1].label).toContain('Choose File…');
    expect(tail[1].action).toEqual({ kind: 'chooseFile' });
    expect(tail[2].label).toContain('Use Active Editor');
    expect(tail[2].action).toEqual({ kind: 'activeEditor', path: '/work/app/notes.md' });
  });

  it('offers only the manual choices when nothing was discovered and no editor is active', () => {
    const none = transcriptItems([], { nowMs: NOW });
    expect(none.filter((i) => i.kind !== QuickPickItemKind.Separator).map((i) => i.action?.kind)).toEqual(['chooseFile']);
    expect(pickPlaceholder(0)).toMatch(/No transcripts found/);
    expect(pickPlaceholder(3)).toMatch(/3 found, newest first/);
  });

  it('does not reorder its input', () => {
    const copy = refs.map((r) => ({ ...r }));
    transcriptItems(copy, { nowMs: NOW });
    expect(copy).toEqual(refs);
  });
});

describe('formatting helpers', () => {
  it('names the agents people know', () => {
    expect(['claude-code', 'codex', 'aider', 'gemini-cli', 'cline'].map(agentLabel)).toEqual([
      'Claude Code',
      'Codex',
      'Aider',
      'Gemini CLI',
      'Cline',
    ]);
    expect(agentLabel('open_hands')).toBe('Open Hands');
  });

  it('formats ages across units without negative values', () => {
    expect(formatAge(NOW / 1000 + 30, NOW)).toBe('just now');
    expect(formatAge(s(10_000), NOW)).toBe('just now');
    expect(formatAge(s(59 * 60_000), NOW)).toBe('59 min ago');
    expect(formatAge(s(23 * 3600_000), NOW)).toBe('23 h ago');
    expect(formatAge(s(3 * 86400_000), NOW)).toBe('3 days ago');
  });

  it('formats sizes in binary units', () => {
    expect(formatSize(0)).toBe('0 B');
    expect(formatSize(1023)).toBe('1023 B');
    expect(formatSize(1536)).toBe('1.5 KB');
    expect(formatSize(5 * 1024 * 1024)).toBe('5.0 MB');
    expect(formatSize(300 * 1024 * 1024)).toBe('300 MB');
  });

  it('shortens the home directory only at a path boundary', () => {
    expect(tildify('/home/me/x', '/home/me')).toBe('~/x');
    expect(tildify('/home/meg/x', '/home/me')).toBe('/home/meg/x');
  });

  it('lists the three roles and marks the configured one', () => {
    const items = roleItems('tester');
    expect(items.map((i) => i.role)).toEqual(['developer', 'tester', 'pm']);
    expect(items.map((i) => i.label)).toEqual(['Developer', 'Tester', 'Product Manager']);
    expect(items.find((i) => i.role === 'tester')?.description).toBe('(current setting)');
    expect(items.filter((i) => i.description)).toHaveLength(1);
  });
});

describe('allowRead (issue 15, attack 5)', () => {
  it('is sent only for a file the user named: the dialog or the active editor', () => {
    const discovered = pickedTranscript({ kind: 'transcript', path: '/home/me/.claude/projects/x/a.jsonl' })!;
    expect(withAllowRead({ role: 'tester' }, discovered)).toEqual({ role: 'tester', transcript: '/home/me/.claude/projects/x/a.jsonl' });
    const chosen = pickedTranscript({ kind: 'chooseFile' }, '/elsewhere/t.jsonl')!;
    expect(withAllowRead({}, chosen)).toEqual({ transcript: '/elsewhere/t.jsonl', allowRead: ['/elsewhere/t.jsonl'] });
    const active = pickedTranscript({ kind: 'activeEditor', path: '/elsewhere/open.md' })!;
    expect(withAllowRead({ instructions: 'keep X' }, active).allowRead).toEqual(['/elsewhere/open.md']);
    expect(pickedTranscript({ kind: 'chooseFile' }, undefined)).toBeUndefined();
  });
});
