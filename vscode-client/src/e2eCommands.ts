/**
 * Commands for the end-to-end test only (registered when COMPACTION_E2E=1): the test drives the
 * tools through `vscode.lm.invokeTool` and the chat handler with a recording stream, because
 * without a chat provider (Copilot cannot run offline) the chat view never sends a request.
 */
import * as vscode from 'vscode';
import { shownAgentCompactions } from './agentCompactedView';

interface Recorded {
  kind: 'progress' | 'markdown' | 'anchor';
  value: string;
}

export function registerE2eCommands(handler: vscode.ChatRequestHandler): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('compaction.e2e.agentCompactions', () => shownAgentCompactions),
    vscode.commands.registerCommand('compaction.e2e.listTools', () =>
      vscode.lm.tools.filter((t) => t.name.startsWith('compaction_')).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, tags: t.tags })),
    ),
    vscode.commands.registerCommand('compaction.e2e.invokeTool', async (name: string, input: object) => {
      const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
      return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : String(part))).join('');
    }),
    vscode.commands.registerCommand('compaction.e2e.chat', async (command: string | undefined, prompt: string) => {
      const recorded: Recorded[] = [];
      const stream = {
        progress: (value: string) => recorded.push({ kind: 'progress', value }),
        markdown: (value: string | vscode.MarkdownString) => recorded.push({ kind: 'markdown', value: typeof value === 'string' ? value : value.value }),
        anchor: (value: vscode.Uri | vscode.Location) => recorded.push({ kind: 'anchor', value: value instanceof vscode.Uri ? value.fsPath : value.uri.fsPath }),
      } as unknown as vscode.ChatResponseStream;
      const request = { command, prompt, references: [], toolReferences: [], toolInvocationToken: undefined } as unknown as vscode.ChatRequest;
      const token = new vscode.CancellationTokenSource().token;
      const result = await handler(request, { history: [] } as unknown as vscode.ChatContext, stream, token);
      return { result, recorded };
    }),
  ];
}
