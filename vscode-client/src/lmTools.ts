/**
 * The language-model tools (`vscode.lm.registerTool`): Copilot agent mode, and any extension using
 * `vscode.lm`, can ask for the restore state, the error memory and a compaction without a person
 * copying and pasting. Each tool is one server command; the mapping lives in agentRequests.ts.
 */
import * as vscode from 'vscode';
import { TOOL_SPECS, type ToolName } from './agentRequests';
import { openFilePaths } from './documents';
import type { ServerManager } from './server';

/** Run one tool's server call and render its reply as Markdown text. */
export async function runTool(server: ServerManager, name: ToolName, input: unknown, token?: vscode.CancellationToken): Promise<string> {
  const spec = TOOL_SPECS[name];
  const call = spec.call(input ?? {}, openFilePaths());
  const reply = await server.execute<unknown>(call.command, call.args, token);
  return spec.render(reply);
}

export function registerTools(server: ServerManager): vscode.Disposable[] {
  if (!vscode.lm?.registerTool) return []; // an editor older than 1.95
  return (Object.keys(TOOL_SPECS) as ToolName[]).map((name) =>
    vscode.lm.registerTool<unknown>(name, {
      prepareInvocation: () => ({ invocationMessage: `${TOOL_SPECS[name].progress}…` }),
      async invoke(options, token) {
        // An error propagates: VS Code hands its message to the model, which can correct its input
        // (a transcript path outside the workspace, say).
        const text = await runTool(server, name, options.input, token);
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
      },
    }),
  );
}
