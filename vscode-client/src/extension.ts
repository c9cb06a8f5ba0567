/**
 * Entry point: wire the server manager, the status item and the commands. Everything with a
 * decision in it lives in a module of its own.
 */
import * as vscode from 'vscode';
import { registerAgentCompacted } from './agentCompactedView';
import { chatHandler, registerParticipant } from './chatParticipant';
import { Commands } from './commands';
import { registerViews } from './documents';
import { editorStorage } from './editorStorage';
import { registerE2eCommands } from './e2eCommands';
import { registerTools } from './lmTools';
import { ServerManager } from './server';
import { StatusController } from './statusItem';

let server: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const t0 = Date.now();
  const log = vscode.window.createOutputChannel('Compaction', { log: true });
  server = new ServerManager(log, editorStorage(context.storageUri?.fsPath, context.globalStorageUri?.fsPath));
  const status = new StatusController(server);
  new Commands(server, status).register(context);
  context.subscriptions.push(log, server, status, registerViews(), server.onDidChangeRunning((running) => (running ? void status.refresh() : status.hide())));
  context.subscriptions.push(...registerTools(server), ...registerParticipant(server), registerAgentCompacted(server, context));
  if (process.env.COMPACTION_E2E === '1') context.subscriptions.push(...registerE2eCommands(chatHandler(server)));
  log.info(`Compaction extension activated in ${Date.now() - t0} ms`);
  // Start in the background: activation must not wait for Python.
  void server.start();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
