import { describe, expect, it } from 'vitest';
import { TOOL_NAMES } from '../src/agentRequests';
import { HELP, compactInput, errorsInput, handleChat, referencedFiles, toolFor, type ChatStream } from '../src/chatRequests';

class FakeStream implements ChatStream {
  parts: [string, string][] = [];
  progress(m: string) {
    this.parts.push(['progress', m]);
  }
  markdown(t: string) {
    this.parts.push(['markdown', t]);
  }
  anchor(f: string, title: string) {
    this.parts.push(['anchor', `${title}=${f}`]);
  }
}

describe('@compaction commands', () => {
  it('/compact takes a leading transcript path and the rest as instructions', () => {
    expect(compactInput('run.jsonl keep the API decisions')).toEqual({ transcript: 'run.jsonl', instructions: 'keep the API decisions' });
    expect(compactInput('keep the API decisions')).toEqual({ instructions: 'keep the API decisions' });
    expect(compactInput('  ')).toEqual({});
  });

  it('/errors finds file paths in the prompt and adds attached files', () => {
    expect(errorsInput('editing src/app.py retry loop', ['/w/b.ts'])).toEqual({ files: ['/w/b.ts', 'src/app.py'], text: 'editing src/app.py retry loop' });
    expect(errorsInput('')).toEqual({});
  });

  it('maps commands to tools; no command gives the help', () => {
    expect(toolFor({ command: 'restore', prompt: '' })?.name).toBe(TOOL_NAMES.restore);
    expect(toolFor({ command: 'errors', prompt: 'x' })?.name).toBe(TOOL_NAMES.errorMemory);
    expect(toolFor({ command: 'compact', prompt: '' })?.name).toBe(TOOL_NAMES.compact);
    expect(toolFor({ prompt: 'hello' })).toBeUndefined();
  });
});

describe('handleChat', () => {
  const exists = (p: string) => p.endsWith('.py');

  it('streams progress, the document, then the files it names as anchors', async () => {
    const stream = new FakeStream();
    const calls: [string, object][] = [];
    const doc = '## Core files\n1. `src/app.py` — entry point\n2. `README.md` — doc\nRan `pytest -q`.';
    const result = await handleChat({ command: 'restore', prompt: '' }, stream, async (name, input) => (calls.push([name, input]), doc), (md) => referencedFiles(md, '/w', exists));
    expect(calls).toEqual([[TOOL_NAMES.restore, {}]]);
    expect(stream.parts).toEqual([
      ['progress', 'Building the restore state…'],
      ['markdown', doc],
      ['markdown', '\n\n**Files:** '],
      ['anchor', 'app.py=/w/src/app.py'],
    ]);
    expect(result).toEqual({ command: 'restore' });
  });

  it('shows a server error (a refused path) in the stream and in the result', async () => {
    const stream = new FakeStream();
    const result = await handleChat({ command: 'compact', prompt: '/etc/passwd.json' }, stream, async () => {
      throw new Error('/etc/passwd.json: reading refused: outside the workspace');
    }, () => []);
    expect(stream.parts.at(-1)).toEqual(['markdown', '**Compaction:** /etc/passwd.json: reading refused: outside the workspace']);
    expect(result.error).toMatch(/reading refused/);
  });

  it('answers a request without a command with the help, calling nothing', async () => {
    const stream = new FakeStream();
    await handleChat({ prompt: 'hi' }, stream, async () => {
      throw new Error('must not run');
    }, () => []);
    expect(stream.parts).toEqual([['markdown', HELP]]);
  });
});

describe('referencedFiles', () => {
  it('resolves backticked paths (line suffix dropped) against the root, existing ones only, once', () => {
    const md = '`src/a.py:12` `src/a.py` `/abs/b.py` `git status` `not a path` `c.txt`';
    expect(referencedFiles(md, '/w', (p) => p !== '/w/c.txt')).toEqual(['/w/src/a.py', '/abs/b.py']);
  });
});
