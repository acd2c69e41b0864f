/**
 * The one notification of a server that failed to start: shown once per failure (a new
 * failure replaces it) and taken down when the server runs again. VS Code has no call that
 * closes a message notification, so it is a notification with progress, whose task ends on
 * recovery; its "Show Log" and "Open Settings" are command links in the message, and Cancel
 * dismisses it.
 */
import * as vscode from 'vscode';

export class FailureNotice implements vscode.Disposable {
    private close: (() => void) | undefined;

    /** Shows `message` (replacing a shown one). */
    show(message: string): void {
        this.clear();
        const settings = `command:workbench.action.openSettings?${encodeURIComponent(JSON.stringify(['wave.server']))}`;
        void vscode.window.withProgress({
            location: vscode.ProgressLocation.Notification, title: 'WAVE', cancellable: true,
        }, (progress, token) => new Promise<void>((resolve) => {
            this.close = resolve;
            token.onCancellationRequested(() => resolve());
            progress.report({ message: `${message} [Show Log](command:wave.showServerLog) · [Open Settings](${settings})` });
        }));
    }

    /** Takes the notification down (the server runs again). */
    clear(): void {
        this.close?.();
        this.close = undefined;
    }

    dispose(): void {
        this.clear();
    }
}
