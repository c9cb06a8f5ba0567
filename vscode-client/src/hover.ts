/**
 * Hover Markdown from the server links to error-memory commands ("Resolve", "Forget"). VS Code
 * only runs `command:` links in trusted Markdown, so trust exactly these commands and no others.
 */
import { MarkdownString, type Hover } from 'vscode';

export const TRUSTED_COMMANDS: readonly string[] = ['compaction.errorMemory.resolve', 'compaction.errorMemory.forget'];

export const TRUST = { enabledCommands: TRUSTED_COMMANDS };

/** Mark a hover's Markdown parts as trusted for our command links; other parts are left alone. */
export function trustHover<H extends Pick<Hover, 'contents'> | null | undefined>(hover: H): H {
  if (!hover) return hover;
  for (const content of hover.contents) {
    if (content instanceof MarkdownString) content.isTrusted = TRUST;
  }
  return hover;
}
