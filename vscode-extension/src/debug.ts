/**
 * The kernel debugger in VS Code: runs `wave-lsp debug` (a Debug Adapter Protocol server on
 * stdio) as the adapter of debug type `wave`, completes launch configurations, and adds the
 * "Debug Kernel" command and a "Debug Kernel" code lens above every `.kernel`.
 */
import * as vscode from 'vscode';
import {
    CommandLine, completeConfiguration, DEBUG_TYPE, debugAdapterCommand, INITIAL_CONFIGURATIONS, kernelNames,
} from './debugConfig';

export const DEBUG_KERNEL_COMMAND = 'wave.debugKernel';

/** `locate` gives the language server's command line (the extension's server locator). */
export function registerDebugger(
    context: vscode.ExtensionContext, locate: () => Promise<CommandLine | undefined>,
): void {
    context.subscriptions.push(
        vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, {
            async createDebugAdapterDescriptor() {
                const server = await locate();
                if (server === undefined) {
                    throw new Error('wave-lsp was not found: set wave.server.command or install the server.');
                }
                const adapter = debugAdapterCommand(server);
                return new vscode.DebugAdapterExecutable(adapter.command, adapter.args);
            },
        }),
        vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, {
            provideDebugConfigurations() {
                return INITIAL_CONFIGURATIONS;
            },
            resolveDebugConfiguration(_folder, config) {
                const editor = vscode.window.activeTextEditor;
                const active = editor && {
                    path: editor.document.uri.fsPath, languageId: editor.document.languageId,
                    text: editor.document.getText(), line: editor.selection.active.line,
                };
                const done = completeConfiguration(config as never, active);
                if (typeof done === 'string') {
                    void vscode.window.showErrorMessage(`WAVE: ${done}`);
                    return undefined;
                }
                return done as vscode.DebugConfiguration;
            },
        }),
        vscode.commands.registerCommand(DEBUG_KERNEL_COMMAND, async (uri?: unknown, kernel?: unknown) => {
            const editor = vscode.window.activeTextEditor;
            const target = typeof uri === 'string' ? vscode.Uri.parse(uri)
                : uri instanceof vscode.Uri ? uri : editor?.document.uri;
            if (target === undefined) {
                void vscode.window.showErrorMessage('WAVE: open a .wave file to debug its kernel.');
                return false;
            }
            const document = await vscode.workspace.openTextDocument(target);
            const line = editor?.document.uri.toString() === target.toString() ? editor.selection.active.line : 0;
            const done = completeConfiguration(
                typeof kernel === 'string'
                    ? { type: DEBUG_TYPE, request: 'launch', name: `Debug ${kernel}`, program: target.fsPath, kernel }
                    : {},
                { path: target.fsPath, languageId: document.languageId, text: document.getText(), line },
            );
            if (typeof done === 'string') {
                void vscode.window.showErrorMessage(`WAVE: ${done}`);
                return false;
            }
            return vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(target), done as vscode.DebugConfiguration);
        }),
        vscode.languages.registerCodeLensProvider({ language: 'wave' }, {
            provideCodeLenses(document) {
                return kernelNames(document.getText()).map(({ name, line }) => new vscode.CodeLens(
                    new vscode.Range(line, 0, line, 0),
                    { title: '$(debug-alt) Debug Kernel', command: DEBUG_KERNEL_COMMAND, arguments: [document.uri, name] },
                ));
            },
        }),
    );
}
