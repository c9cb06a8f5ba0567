// The few parts of the `vscode` API that the pure modules touch, for unit tests outside VS Code.
export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}

export interface QuickPickItem {
  label: string;
  kind?: QuickPickItemKind;
  description?: string;
  detail?: string;
  picked?: boolean;
  alwaysShow?: boolean;
}

export class MarkdownString {
  isTrusted?: boolean | { enabledCommands: readonly string[] };
  constructor(public value = '') {}
}
