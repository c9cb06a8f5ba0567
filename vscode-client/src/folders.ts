/**
 * Multi-root windows: the server works in its first workspace folder unless a command names
 * another. Commands run from the palette act on the folder of the active editor, so the error
 * memory, `latest.md` and `restore.md` land in the project being worked on.
 */
export function withWorkspaceFolder<T extends object>(
  args: T,
  folderCount: number,
  activeFolder: string | undefined,
): T | (T & { workspaceFolder: string }) {
  if (folderCount < 2 || !activeFolder || 'workspaceFolder' in args) return args;
  return { ...args, workspaceFolder: activeFolder };
}
