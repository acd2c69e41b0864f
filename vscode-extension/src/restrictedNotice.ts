/**
 * Telling the user what Restricted Mode ignores (`restricted.ts` decides what): once per notice
 * in the WAVE log, and as a notification with "Manage Workspace Trust" when the workspace named
 * a program (a virtual environment, or its own value of a restricted setting).
 */
import * as vscode from 'vscode';
import { restrictedNotice } from './restricted';
import { LocatorInput, skippedWorkspaceServers } from './serverLocator';
import { settingValue } from './settings';

export class RestrictedNotice {
    private said: string | undefined;

    constructor(private readonly log: vscode.OutputChannel, private readonly restricted: string[]) {}

    /** Says what the server locator's untrusted `input` passes over (nothing twice). */
    tell(input: LocatorInput): void {
        const skipped = skippedWorkspaceServers(input);
        const notice = restrictedNotice(this.restricted, skipped);
        if (notice === this.said) {
            return;
        }
        this.said = notice;
        this.log.appendLine(notice);
        const named = skipped.length > 0 || this.restricted.some((key) => settingValue(key, this.restricted).ignored);
        if (named) {
            void vscode.window.showInformationMessage(`WAVE: ${notice}`, 'Manage Workspace Trust').then((pick) => {
                if (pick !== undefined) {
                    void vscode.commands.executeCommand('workbench.trust.manage');
                }
            });
        }
    }
}
