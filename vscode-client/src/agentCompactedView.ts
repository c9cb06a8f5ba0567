/** Shows the server's `compaction/agentCompacted` notification: Open / Copy for Assistant / Don't Show Again. */
import * as vscode from 'vscode';
import { ACTIONS, AgentCompactedGate, MUTE_KEY, agentCompactedMessage, type AgentCompactedParams } from './agentCompacted';
import { copyLatestForAssistant } from './documents';
import type { ServerManager } from './server';

/** The notifications shown in this session (newest last), for the e2e test command. */
export const shownAgentCompactions: { params: AgentCompactedParams; message: string; at: number }[] = [];

export function registerAgentCompacted(server: ServerManager, context: vscode.ExtensionContext): vscode.Disposable {
  const gate = new AgentCompactedGate();
  return server.onAgentCompacted(async (params) => {
    if (!gate.shouldShow(params, context.globalState.get<boolean>(MUTE_KEY, false))) return;
    const message = agentCompactedMessage(params);
    shownAgentCompactions.push({ params, message, at: Date.now() });
    server.log.info(`Agent compaction in ${params.transcript}: restore state refreshed at ${params.restore}`);
    const choice = await vscode.window.showInformationMessage(message, ACTIONS.open, ACTIONS.copy, ACTIONS.mute);
    if (choice === ACTIONS.open && params.restore) {
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(params.restore)), { preview: false });
    } else if (choice === ACTIONS.copy) {
      await copyLatestForAssistant();
    } else if (choice === ACTIONS.mute) {
      await context.globalState.update(MUTE_KEY, true);
    }
  });
}
