/**
 * The folders only the editor knows, sent to the server as `initializationOptions.editorStorage`
 * so that discovery offers Copilot Chat sessions (this workspace's `chatSessions/`, a sibling of
 * our `context.storageUri`) and Cline/Roo/Kilo tasks (under the user's globalStorage, the parent
 * of our `context.globalStorageUri`). The server never guesses these paths.
 */
import * as path from 'path';

export interface EditorStorage {
  chatSessions?: string;
  globalStorage?: string;
}

/** From the extension's storage folders (file-system paths; undefined without a workspace). */
export function editorStorage(storagePath: string | undefined, globalStoragePath: string | undefined): EditorStorage {
  const out: EditorStorage = {};
  if (storagePath && path.isAbsolute(storagePath)) out.chatSessions = path.join(path.dirname(storagePath), 'chatSessions');
  if (globalStoragePath && path.isAbsolute(globalStoragePath)) out.globalStorage = path.dirname(globalStoragePath);
  return out;
}
