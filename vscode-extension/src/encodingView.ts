/**
 * Show Encoding: a read-only document beside the source listing each source line's encoded
 * words, from the server's `wave-lsp.encoding [uri]` command. It refreshes as the source changes.
 */
import * as vscode from 'vscode';
import { ENCODING, type CommandResult } from './generated/extensions';

export const SCHEME = 'wave-encoding';

export type ServerCommand = (command: string, args: unknown[]) => Promise<unknown>;

export class EncodingView implements vscode.TextDocumentContentProvider, vscode.Disposable {
    private readonly changed = new vscode.EventEmitter<vscode.Uri>();
    readonly onDidChange = this.changed.event;
    private readonly subscriptions: vscode.Disposable[] = [];
    private readonly pending = new Map<string, NodeJS.Timeout>();

    constructor(private readonly execute: ServerCommand) {
        this.subscriptions.push(
            vscode.workspace.registerTextDocumentContentProvider(SCHEME, this),
            vscode.workspace.onDidChangeTextDocument((event) => this.sourceChanged(event.document)),
        );
    }

    /** The view's URI for a source document. */
    static viewUri(source: vscode.Uri): vscode.Uri {
        const name = source.path.split('/').pop() ?? 'file.wave';
        return vscode.Uri.from({ scheme: SCHEME, path: `/${name}.encoding`, query: source.toString() });
    }

    async show(source: vscode.TextDocument): Promise<void> {
        const doc = await vscode.workspace.openTextDocument(EncodingView.viewUri(source.uri));
        await vscode.window.showTextDocument(doc, {
            viewColumn: vscode.ViewColumn.Beside, preview: false, preserveFocus: true,
        });
    }

    async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        try {
            const result = await this.execute(ENCODING, [uri.query]) as CommandResult<typeof ENCODING> | undefined;
            if (typeof result?.text === 'string') {
                return result.text;
            }
            return `; wave-lsp returned no encoding for ${uri.query}\n`;
        } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            return `; WAVE: Show Encoding failed: ${message}\n; It needs a wave-lsp server with the wave-lsp.encoding command.\n`;
        }
    }

    private sourceChanged(doc: vscode.TextDocument): void {
        if (doc.languageId !== 'wave') {
            return;
        }
        const view = EncodingView.viewUri(doc.uri);
        if (!vscode.workspace.textDocuments.some((d) => d.uri.toString() === view.toString())) {
            return;
        }
        const key = view.toString();
        clearTimeout(this.pending.get(key));
        // After the server has seen the edit (didChange is sent before this timer fires).
        this.pending.set(key, setTimeout(() => {
            this.pending.delete(key);
            this.changed.fire(view);
        }, 150));
    }

    dispose(): void {
        this.pending.forEach((timer) => clearTimeout(timer));
        for (const subscription of this.subscriptions) {
            subscription.dispose();
        }
        this.changed.dispose();
    }
}
