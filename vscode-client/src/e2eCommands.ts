/**
 * For the end-to-end test only (registered when COMPACTION_E2E=1, listed in the palette only under
 * the `compaction.e2e` context key): drive the language-model tools through `vscode.lm.invokeTool`
 * and the `@compaction` handler with a recording stream — without a chat provider (Copilot cannot
 * run offline) the chat view never sends a request — and report what came back.
 */
import * as fs from 'fs/promises';
import * as path from 'path';
import * as vscode from 'vscode';
import { shownAgentCompactions } from './agentCompactedView';

interface Recorded {
  kind: 'progress' | 'markdown' | 'anchor';
  value: string;
}

async function invokeTool(name: string, input: object): Promise<{ name: string; input: object; text?: string; error?: string }> {
  try {
    const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
    const text = result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
    return { name, input, text };
  } catch (err) {
    return { name, input, error: err instanceof Error ? err.message : String(err) };
  }
}

async function chat(handler: vscode.ChatRequestHandler, command: string | undefined, prompt: string): Promise<{ command?: string; prompt: string; result: unknown; recorded: Recorded[] }> {
  const recorded: Recorded[] = [];
  const stream = {
    progress: (value: string) => recorded.push({ kind: 'progress', value }),
    markdown: (value: string | vscode.MarkdownString) => recorded.push({ kind: 'markdown', value: typeof value === 'string' ? value : value.value }),
    anchor: (value: vscode.Uri | vscode.Location) => recorded.push({ kind: 'anchor', value: value instanceof vscode.Uri ? value.fsPath : value.uri.fsPath }),
  } as unknown as vscode.ChatResponseStream;
  const request = { command, prompt, references: [], toolReferences: [], toolInvocationToken: undefined } as unknown as vscode.ChatRequest;
  const result = await handler(request, { history: [] } as unknown as vscode.ChatContext, stream, new vscode.CancellationTokenSource().token);
  return { command, prompt, result, recorded };
}

function report(checks: { tools: any[]; invocations: any[]; chats: any[]; chatApi: boolean }): string {
  const out = ['# Compaction: agent integration checks', '', `## vscode.lm.tools (${checks.tools.length} of ours)`, ''];
  for (const t of checks.tools) out.push(`- \`${t.name}\` — input: ${Object.keys(t.inputSchema?.properties ?? {}).map((k) => `\`${k}\``).join(', ') || '(none)'}`);
  out.push('', '## vscode.lm.invokeTool', '');
  for (const i of checks.invocations) {
    const body = (i.error ? `Error: ${i.error}` : i.text ?? '').split('\n').slice(0, 6).join('\n');
    out.push(`### ${i.name} ${JSON.stringify(i.input)}`, '', '```text', body, '```', '');
  }
  out.push(`## @compaction handler (vscode.chat API ${checks.chatApi ? 'present' : 'absent'})`, '');
  for (const c of checks.chats) {
    const anchors = c.recorded.filter((r: Recorded) => r.kind === 'anchor').map((r: Recorded) => path.basename(r.value));
    out.push(`- \`/${c.command} ${c.prompt}\`: ${c.recorded.length} stream parts, anchors: ${anchors.join(', ') || '—'}`);
  }
  return out.join('\n') + '\n';
}

export function registerE2eCommands(handler: vscode.ChatRequestHandler): vscode.Disposable[] {
  void vscode.commands.executeCommand('setContext', 'compaction.e2e', true);
  return [
    vscode.commands.registerCommand('compaction.e2e.agentCompactions', () => shownAgentCompactions),
    vscode.commands.registerCommand('compaction.e2e.agentChecks', async () => {
      const tools = vscode.lm.tools
        .filter((t) => t.name.startsWith('compaction_'))
        .map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as any, tags: t.tags }));
      const invocations = [
        await invokeTool('compaction_restore', {}),
        await invokeTool('compaction_errorMemory', { files: ['app/config.py'], text: 'read DATABASE_URL from os.environ' }),
        await invokeTool('compaction_compact', { instructions: 'keep the configuration decisions' }),
        await invokeTool('compaction_compact', { transcript: '/etc/hostname' }),
      ];
      const chats = [
        await chat(handler, 'restore', ''),
        await chat(handler, 'errors', 'app/config.py DATABASE_URL'),
        await chat(handler, 'compact', 'keep the configuration decisions'),
      ];
      const checks = { tools, invocations, chats, chatApi: typeof vscode.chat?.createChatParticipant === 'function' };
      const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      if (root) {
        await fs.mkdir(path.join(root, '.compaction'), { recursive: true });
        const out = path.join(root, '.compaction', 'e2e-agent-checks.json');  // whole or not at all: the test polls it
        await fs.writeFile(`${out}.tmp`, JSON.stringify(checks, null, 2));
        await fs.rename(`${out}.tmp`, out);
      }
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: report(checks) });
      await vscode.window.showTextDocument(doc, { preview: false });
      return checks;
    }),
  ];
}
