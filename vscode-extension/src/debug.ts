/**
 * The kernel debugger in VS Code: runs `wave-lsp debug` (a Debug Adapter Protocol server on
 * stdio) as the adapter of debug type `wave`, completes launch configurations, checks that a
 * `.wave` program assembles before launching it (the assembler's error, with its line, instead of
 * a failed launch), and adds the "Debug Kernel" command and a "Debug Kernel" code lens on every
 * `.kernel` line, placed right after the server's ▶ Run lens (`withDebugLenses`, from the client's
 * code lens middleware).
 *
 * "Debug at this moment" (`wave.debugAtMoment`, from the server's code actions and the Testing
 * view) saves the program's editor and starts the configuration it is given; every launch gets
 * `wave.debug.checkpointBudgetMiB` (reverse execution's memory) unless it sets its own.
 *
 * The adapter: the window's warm `wave-lsp debug --server` (`WarmAdapter`, setting
 * `wave.debug.warmAdapter`), or, where it is off or cannot start, a `wave-lsp debug` process per
 * session. A configuration with `stopAt` (a finding's moment, from a run of the program) skips
 * the assembles check: the adapter reports a program that no longer assembles itself.
 *
 * "create a launch.json file" writes the package.json's `initialConfigurations` (once: no
 * provider adds them again).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { runCli } from './cli';
import { WarmAdapter } from './warmAdapter';
import { assemblyError, CommandLine, completeConfiguration, DEBUG_MOMENT_COMMAND, DEBUG_TYPE, debugAdapterCommand, kernelNames } from './debugConfig';

export const DEBUG_KERNEL_COMMAND = 'wave.debugKernel';

const RUN_COMMANDS = new Set(['wave-lsp.run', 'wave-lsp.clear']);

/** The server's lenses with "Debug Kernel" after the ▶ Run (or ▶ Run again) lens of each `.kernel` line. */
export function withDebugLenses(document: vscode.TextDocument, lenses: vscode.CodeLens[]): vscode.CodeLens[] {
    const out = [...lenses];
    for (const { name, line } of kernelNames(document.getText())) {
        const onLine = out.map((lens, index) => ({ lens, index })).filter(({ lens }) => lens.range.start.line === line);
        const runs = onLine.filter(({ lens }) => RUN_COMMANDS.has(lens.command?.command ?? ''));
        const at = runs.length > 0 ? runs[0].index + 1 : onLine.length > 0 ? onLine[0].index : out.length;
        const range = onLine[0]?.lens.range ?? new vscode.Range(line, 0, line, 0);
        out.splice(at, 0, new vscode.CodeLens(range, {
            title: '$(debug-alt) Debug Kernel', command: DEBUG_KERNEL_COMMAND, arguments: [document.uri, name],
        }));
    }
    return out;
}

/** Whether the `.wave` program assembles; if not, shows the assembler's error and offers its line. */
async function assembles(server: CommandLine, program: string): Promise<boolean> {
    if (!program.endsWith('.wave') || !fs.existsSync(program)) {
        return true;   // a .wbin, or a missing file: the adapter says what is wrong
    }
    const done = await runCli(server, 'asm', [program, '--dump-hex'], path.dirname(program));
    if (done.code === 0) {
        return true;
    }
    const error = assemblyError(done.stderr + done.stdout);
    const message = error?.message ?? (done.stderr.trim() || `wave-lsp asm exited with ${done.code}`);
    const show = 'Go to Line';
    void vscode.window.showErrorMessage(
        `WAVE: cannot debug ${path.basename(program)}: it does not assemble: ${message}`,
        ...(error === undefined ? [] : [show]),
    ).then(async (pick) => {
        if (pick === show && error !== undefined) {
            const editor = await vscode.window.showTextDocument(vscode.Uri.file(program));
            const position = new vscode.Position(error.line, 0);
            editor.selection = new vscode.Selection(position, position);
            editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenter);
        }
    });
    return false;
}

/** Whether sessions use the warm adapter (`wave.debug.warmAdapter`, default on). */
export function warmAdapterOn(): boolean {
    return vscode.workspace.getConfiguration('wave.debug').get<boolean>('warmAdapter', true);
}

/** `warm` is the window's warm adapter; `locate` gives the language server's command line (the extension's server locator);
 * `kernelAt` asks a running language server for the kernel at a line (undefined: no answer). */
export function registerDebugger(
    context: vscode.ExtensionContext, warm: WarmAdapter, locate: () => Promise<CommandLine | undefined>,
    waveEditor: () => Promise<vscode.TextEditor | undefined>,
    kernelAt: (uri: vscode.Uri, line: number) => Promise<string | null | undefined>,
): void {
    context.subscriptions.push(
        vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, {
            async createDebugAdapterDescriptor() {
                const server = await locate();
                if (server === undefined) {
                    throw new Error('wave-lsp was not found: set wave.server.command or install the server.');
                }
                const served = warmAdapterOn() ? await warm.descriptor(server) : undefined;
                const adapter = debugAdapterCommand(server);
                return served ?? new vscode.DebugAdapterExecutable(adapter.command, adapter.args);
            },
        }),
        vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, {
            async resolveDebugConfiguration(_folder, config) {
                const editor = vscode.window.activeTextEditor;
                const line = editor?.selection.active.line ?? 0;
                const active = editor && {
                    path: editor.document.uri.fsPath, languageId: editor.document.languageId,
                    text: editor.document.getText(), line,
                    kernel: editor.document.languageId === 'wave' ? await kernelAt(editor.document.uri, line) : undefined,
                };
                const done = completeConfiguration(config as never, active);
                if (typeof done === 'string') {
                    void vscode.window.showErrorMessage(`WAVE: ${done}`);
                    return undefined;
                }
                if (done.checkpointBudgetMiB === undefined) {
                    done.checkpointBudgetMiB = vscode.workspace.getConfiguration('wave.debug').get<number>('checkpointBudgetMiB', 256);
                }
                return done as vscode.DebugConfiguration;
            },
            async resolveDebugConfigurationWithSubstitutedVariables(folder, config) {
                const server = await locate();
                if (server === undefined || typeof config.program !== 'string' || config.stopAt !== undefined) {
                    return config;
                }
                const base = typeof config.cwd === 'string' ? config.cwd : folder?.uri.fsPath ?? '';
                const program = path.isAbsolute(config.program) ? config.program : path.join(base, config.program);
                return await assembles(server, program) ? config : undefined;
            },
        }),
        vscode.commands.registerCommand(DEBUG_MOMENT_COMMAND, async (config?: unknown) => {
            if (typeof config !== 'object' || config === null || typeof (config as { program?: unknown }).program !== 'string') {
                return false;
            }
            const program = vscode.Uri.file((config as { program: string }).program);
            const open = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === program.fsPath);
            if (open?.isDirty) {
                await open.save();      // the adapter reads the file: debug what the editor shows
            }
            return vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(program), config as vscode.DebugConfiguration);
        }),
        vscode.commands.registerCommand(DEBUG_KERNEL_COMMAND, async (uri?: unknown, kernel?: unknown) => {
            // from the palette or the walkthrough's tab: the active or last active .wave editor
            const given = typeof uri === 'string' ? vscode.Uri.parse(uri) : uri instanceof vscode.Uri ? uri : undefined;
            const editor = given === undefined ? await waveEditor() : vscode.window.activeTextEditor;
            const target = given ?? editor?.document.uri;
            if (target === undefined) {
                return false;
            }
            const document = await vscode.workspace.openTextDocument(target);
            const line = editor?.document.uri.toString() === target.toString() ? editor.selection.active.line : 0;
            const done = completeConfiguration(
                typeof kernel === 'string'
                    ? { type: DEBUG_TYPE, request: 'launch', name: `Debug ${kernel}`, program: target.fsPath, kernel }
                    : {},
                {
                    path: target.fsPath, languageId: document.languageId, text: document.getText(), line,
                    kernel: typeof kernel === 'string' ? undefined : await kernelAt(target, line),
                },
            );
            if (typeof done === 'string') {
                void vscode.window.showErrorMessage(`WAVE: ${done}`);
                return false;
            }
            return vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(target), done as vscode.DebugConfiguration);
        }),
    );
}
