/**
 * Which `.wave` editor a command acts on when it is not started from one: the palette, the
 * Getting Started walkthrough's buttons (whose tab is the active editor then) or a status bar
 * item. The active editor when it shows a `.wave` file, else the one last active (shown again
 * when a tab such as the walkthrough's covers it), else a visible one (editorChoice.ts).
 */
import * as vscode from 'vscode';
import { chooseWaveEditor } from './editorChoice';

export class WaveEditors implements vscode.Disposable {
    private last: vscode.TextEditor | undefined;
    private readonly subscription: vscode.Disposable;

    constructor() {
        this.remember(vscode.window.activeTextEditor);
        this.subscription = vscode.window.onDidChangeActiveTextEditor((editor) => this.remember(editor));
    }

    private remember(editor: vscode.TextEditor | undefined): void {
        if (editor?.document.languageId === 'wave') {
            this.last = editor;
        }
    }

    /** The `.wave` editor to act on, brought on screen when a tab covers it; undefined (after
     * a warning that says `why`) when no `.wave` file is open. */
    async pick(why = 'open a .wave file first'): Promise<vscode.TextEditor | undefined> {
        const chosen = chooseWaveEditor(vscode.window.activeTextEditor, this.last, vscode.window.visibleTextEditors);
        if (chosen === undefined) {
            void vscode.window.showWarningMessage(`WAVE: ${why}.`);
            return undefined;
        }
        if (chosen.visible) {
            return chosen.editor;
        }
        const { document, selection, viewColumn } = chosen.editor;
        return vscode.window.showTextDocument(document, { viewColumn, selection, preview: false });
    }

    dispose(): void {
        this.subscription.dispose();
    }
}
