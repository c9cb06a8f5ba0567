/** `@compaction` in the chat view: `/compact`, `/restore`, `/errors`, over the same server calls as the tools. */
import * as fs from 'fs';
import * as vscode from 'vscode';
import { handleChat, referencedFiles, type ChatStream } from './chatRequests';
import { runTool } from './lmTools';
import type { ServerManager } from './server';

export const PARTICIPANT_ID = 'compaction.chat';

function attachedFiles(request: vscode.ChatRequest): string[] {
  const out: string[] = [];
  for (const ref of request.references ?? []) {
    const v = ref.value;
    if (v instanceof vscode.Uri && v.scheme === 'file') out.push(v.fsPath);
    else if (v instanceof vscode.Location && v.uri.scheme === 'file') out.push(v.uri.fsPath);
  }
  return out;
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The request handler, also used by the e2e test command (the chat view needs a chat provider). */
export function chatHandler(server: ServerManager): vscode.ChatRequestHandler {
  return async (request, _context, response, token) => {
    const stream: ChatStream = {
      progress: (m) => response.progress(m),
      markdown: (t) => response.markdown(t),
      anchor: (f, title) => response.anchor(vscode.Uri.file(f), title),
    };
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const result = await handleChat(
      { command: request.command, prompt: request.prompt, files: attachedFiles(request) },
      stream,
      (name, input) => runTool(server, name, input, token),
      (markdown) => referencedFiles(markdown, root, isFile),
    );
    return { metadata: { command: result.command, error: result.error } };
  };
}

export function registerParticipant(server: ServerManager): vscode.Disposable[] {
  if (!vscode.chat?.createChatParticipant) return [];
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, chatHandler(server));
  participant.iconPath = new vscode.ThemeIcon('fold');
  return [participant];
}
