/**
 * The WAVE extension: the language (grammar, configuration, snippets are declared in
 * package.json), the language client, and the commands of the palette, editor title and status
 * bar: Restart Server, Run Kernel, Clear Results, Show Encoding, Show PTX/HIP/Metal/SYCL, Check
 * Portability, Assemble, Show Server Log, Open an Example Kernel (the walkthrough's), Profile
 * Kernel and Clear Profile (the heat view, heatView.ts); `.wbin` files open as their disassembly;
 * kernel tests in the Testing view (testing.ts).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { WaveClient } from './client';
import { BackendView, TARGETS, type Target } from './backendView';
import { DEBUG_TYPE } from './debugConfig';
import { DisassemblyView } from './disassemblyView';
import { EncodingView } from './encodingView';
import {
    ASSEMBLE, CHECK_PORTABILITY, CLEAR, CLEAR_PROFILE, KERNEL_AT, PROFILE, PROFILE_CHANGED, RUN,
    WHO_WROTE, type CommandArguments, type CommandName, type CommandResult, type ProfileChanged,
} from './generated/extensions';
import { HeatView } from './heatView';
import { kernelAt } from './kernels';
import { SERVER_LENS_COMMAND } from './middleware';
import { registerDebugger, warmAdapterOn } from './debug';
import { WarmAdapter } from './warmAdapter';
import { SECTION } from './settings';
import { ServerStatus } from './statusBar';
import { KernelTests } from './testing';
import { WaveEditors } from './waveEditors';
import { parseNumber, registerAt, writerLine, writerSummary, type WriterTarget } from './writer';

let waveClient: WaveClient | undefined;

/** The walkthrough's steps are done when their action succeeded: package.json's
 * `completionEvents` wait for these context keys (`onContext:`), set here. */
const STEP_DONE = {
    server: 'wave.walkthrough.serverRunning',
    example: 'wave.walkthrough.exampleOpened',
    run: 'wave.walkthrough.kernelRan',
    debug: 'wave.walkthrough.kernelDebugged',
} as const;

const stepsDone = new Set<string>();

function stepDone(step: keyof typeof STEP_DONE): void {
    stepsDone.add(STEP_DONE[step]);
    void vscode.commands.executeCommand('setContext', STEP_DONE[step], true);
}

/** VS Code's walkthrough registers its steps when the Welcome page first opens, and a step
 *  whose key is true by then is never ticked by it: each step also completes on `KEY.again`,
 *  set for the steps done before, once the page is open. */
function restateSteps(): void {
    stepsDone.forEach((key) => void vscode.commands.executeCommand('setContext', `${key}.again`, true));
}

/** Whether a `wave-lsp.run` answer is a run (whatever the kernel did), not a refusal. */
function ran(result: unknown): boolean {
    const status = (result as { status?: unknown } | undefined)?.status;
    return typeof status === 'string' && status !== 'invalid-request';
}

/** Runs a server command (its arguments and answer typed as the server declares them),
 * turning a failure into a notification. */
async function serverCommand<C extends CommandName>(client: WaveClient, command: C, args: CommandArguments<C>): Promise<CommandResult<C> | undefined> {
    return await anyServerCommand(client, command, args) as CommandResult<C> | undefined;
}

/** `serverCommand` for a command named at run time (a lens the server made). */
async function anyServerCommand(client: WaveClient, command: string, args: readonly unknown[]): Promise<unknown> {
    try {
        return await client.execute(command, [...args]);
    } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const unknown = /not found|not defined|unknown command|MethodNotFound/i.test(message);
        void vscode.window.showErrorMessage(unknown
            ? `WAVE: this wave-lsp server does not provide ${command}; update the server (${message}).`
            : `WAVE: ${command} failed: ${message}`);
        client.log.appendLine(`${command} failed: ${message}`);
        return undefined;
    }
}

function watchFirstDiagnostics(client: WaveClient, context: vscode.ExtensionContext): void {
    const watcher = vscode.languages.onDidChangeDiagnostics((event) => {
        const wave = event.uris.some((uri) => uri.path.endsWith('.wave'));
        if (wave) {
            client.log.appendLine(`First diagnostics ${Date.now() - client.activatedAt} ms after activation.`);
            watcher.dispose();
        }
    });
    context.subscriptions.push(watcher);
}

/** The walkthrough's example: vector_add.wave copied into the first workspace folder (kept when
 * it is there already) or, without one, the extension's storage; then opened. */
async function openExample(context: vscode.ExtensionContext): Promise<void> {
    const source = path.join(context.extensionPath, 'examples', 'vector_add.wave');
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? context.globalStorageUri.fsPath;
    const target = path.join(folder, 'vector_add.wave');
    fs.mkdirSync(folder, { recursive: true });
    if (!fs.existsSync(target)) {
        fs.copyFileSync(source, target);
    }
    await vscode.window.showTextDocument(vscode.Uri.file(target), { preview: false });
    stepDone('example');
}

export function activate(context: vscode.ExtensionContext): void {
    const log = vscode.window.createOutputChannel('WAVE');
    const status = new ServerStatus();
    const client = new WaveClient(context, log, status);
    waveClient = client;
    const encoding = new EncodingView((command, args) => client.execute(command, args));
    const backends = new BackendView((command, args) => client.execute(command, args));
    const disassembly = new DisassemblyView(() => Promise.resolve(client.serverCommand()));
    const heat = new HeatView();
    const editors = new WaveEditors();
    const waveEditor = (why?: string) => editors.pick(why);
    const tests = new KernelTests((command, args) => client.execute(command, args), log,
        (command, args) => client.executeIfRunning(command, args));
    client.onRunning(() => void tests.discoverWorkspace());
    // the outcome lenses of kernel tests (the server's) keep the Testing view in step
    client.onLenses((lenses) => {
        for (const lens of lenses) {
            const [uri, kernel, line] = (lens.command?.arguments ?? []) as unknown[];
            const title = lens.command?.title ?? '';
            if (lens.command?.command === 'wave-lsp.test' && /^[✓✕]/.test(title)
                && typeof uri === 'string' && typeof kernel === 'string' && typeof line === 'number') {
                tests.lensOutcome(uri, kernel, line, lens.command.tooltip ?? title);   // (uncut)
            }
        }
    });
    context.subscriptions.push(log, status, client, encoding, backends, disassembly, heat, tests, editors);
    client.onRunning(() => stepDone('server'));
    context.subscriptions.push(
        vscode.workspace.onDidGrantWorkspaceTrust(() => void client.trustGranted()),
        vscode.window.tabGroups.onDidChangeTabs((event) => {
            if (event.opened.some((tab) => /walkthrough|welcome|get started/i.test(tab.label))) {
                [1000, 3000].forEach((delay) => setTimeout(restateSteps, delay));
            }
        }),
        vscode.debug.onDidStartDebugSession((session) => {
            if (session.type === DEBUG_TYPE) {
                stepDone('debug');
            }
        }),
    );
    client.onNotification<ProfileChanged>(PROFILE_CHANGED, (params) => heat.changed(params));
    watchFirstDiagnostics(client, context);

    const register = (name: string, handler: (...args: unknown[]) => unknown) =>
        context.subscriptions.push(vscode.commands.registerCommand(name, handler));

    const warm = new WarmAdapter((text) => log.appendLine(text));
    context.subscriptions.push(warm);
    // a finding's "Debug at this moment" comes from a run: have the debugger loaded by then
    client.onRunning(() => {
        if (vscode.workspace.isTrusted && warmAdapterOn()) {
            warm.warm(client.serverCommand());
        }
    });
    registerDebugger(context, warm, () => Promise.resolve(client.serverCommand()),
        () => waveEditor('open a .wave file to debug its kernel'),
        async (uri, line) => {
            try {     // never starts the server: debugging does not need it
                const args: CommandArguments<typeof KERNEL_AT> = [uri.toString(), line];
                return (await client.executeIfRunning(KERNEL_AT, args) as CommandResult<typeof KERNEL_AT>)?.kernel ?? null;
            } catch {
                return undefined;
            }
        });
    register('wave.showServerLog', () => log.show());
    register('wave.openExample', () => openExample(context));
    register('wave.restartServer', () => client.restart());
    /** A server lens clicked (client.ts routes them here): run, and follow up on the answer. */
    register(SERVER_LENS_COMMAND, async (command: unknown, ...args: unknown[]) => {
        if (typeof command !== 'string') {
            return undefined;
        }
        const result = await anyServerCommand(client, command, args);
        if (command === RUN && ran(result)) {
            stepDone('run');
        } else if (command === PROFILE) {
            heat.show(result as CommandResult<typeof PROFILE> | undefined);
        }
        return result;
    });
    /** The kernel at the cursor, as the server says (`wave-lsp.kernelAt`). */
    const serverKernelAt = (args: CommandArguments<typeof KERNEL_AT>) => serverCommand(client, KERNEL_AT, args);
    /** A command on the kernel at the cursor of the active WAVE editor. */
    const kernelCommand = (name: string, act: (uri: string, kernel: string) => Promise<unknown>) => register(name, async () => {
        const editor = await waveEditor();
        if (editor === undefined) {
            return;
        }
        const kernel = await kernelAt(serverKernelAt, editor.document, editor.selection.active);
        if (kernel !== undefined) {
            return act(editor.document.uri.toString(), kernel);
        }
    });
    kernelCommand('wave.runKernel', async (uri, kernel) => {
        const result = await serverCommand(client, RUN, [uri, kernel, null]);
        if (ran(result)) {
            stepDone('run');
        }
        return result;
    });
    /** Go to Writer: who wrote the register at the cursor (in the thread the user names), or a
     * device word the user types; the writer's line is revealed and the answer summarised. */
    register('wave.goToWriter', async () => {
        const editor = await waveEditor();
        if (editor === undefined) {
            return;
        }
        const doc = editor.document;
        const at = editor.selection.active;
        const kernel = await kernelAt(serverKernelAt, doc, at);
        if (kernel === undefined) {
            return;
        }
        const register = registerAt(doc.lineAt(at.line).text, at.character);
        let target: WriterTarget;
        if (register !== undefined) {
            const lane = parseNumber(await vscode.window.showInputBox({
                prompt: `Who wrote ${register} on line ${at.line + 1}: in which thread (global id, as --lanes counts)?`,
                value: '0', validateInput: (t) => parseNumber(t) === undefined ? 'a thread id: 0, 1, ...' : undefined }));
            if (lane === undefined) {
                return;
            }
            target = { register, lane, line: at.line };
        } else {
            const address = parseNumber(await vscode.window.showInputBox({
                prompt: 'Who wrote the device memory word at address (after the run)?', placeHolder: '0x40',
                validateInput: (t) => parseNumber(t) === undefined ? 'an address: 64 or 0x40' : undefined }));
            if (address === undefined) {
                return;
            }
            target = { address };
        }
        const answer = await serverCommand(client, WHO_WROTE, [doc.uri.toString(), kernel, null, target]);
        if (answer === undefined || !('inputs' in answer)) {
            return answer;          // refused: the server said why
        }
        const line = writerLine(answer);
        if (line !== undefined) {
            const place = new vscode.Range(line, 0, line, doc.lineAt(line).text.length);
            editor.selection = new vscode.Selection(place.start, place.end);
            editor.revealRange(place, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
        }
        void vscode.window.showInformationMessage(`WAVE: ${writerSummary(answer)}`);
        return answer;
    });
    kernelCommand('wave.checkPortability', (uri, kernel) => serverCommand(client, CHECK_PORTABILITY, [uri, kernel]));
    kernelCommand('wave.profileKernel', async (uri, kernel) => {
        heat.show(await serverCommand(client, PROFILE, [uri, kernel, null]));
    });
    register('wave.clearProfile', async () => {
        const editor = await waveEditor();
        if (editor !== undefined) {
            return serverCommand(client, CLEAR_PROFILE, [editor.document.uri.toString(), null]);
        }
    });
    register('wave.clearResults', async () => {
        const editor = await waveEditor();
        if (editor !== undefined) {
            return serverCommand(client, CLEAR, [editor.document.uri.toString(), null]);
        }
    });
    register('wave.showEncoding', async () => {
        const editor = await waveEditor();
        if (editor !== undefined) {
            return encoding.show(editor.document);
        }
    });
    for (const target of Object.keys(TARGETS) as Target[]) {
        register(`wave.show${TARGETS[target].title}`, async () => {
            const editor = await waveEditor();
            if (editor !== undefined) {
                return backends.show(editor.document, target);
            }
        });
    }
    register('wave.assemble', async () => {
        const editor = await waveEditor();
        if (editor !== undefined) {
            return serverCommand(client, ASSEMBLE, [editor.document.uri.toString()]);
        }
    });

    context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${SECTION}.compat`)) {
            status.render();
        }
        if (event.affectsConfiguration(`${SECTION}.server`)) {
            log.appendLine('The server settings changed: restarting the server.');
            void client.restart();
        }
    }));

    log.appendLine(`WAVE extension ${String((context.extension.packageJSON as { version?: string }).version)} activated.`);
    void client.start();  // activation does not wait for the server (or its installation)
}

export async function deactivate(): Promise<void> {
    await waveClient?.stop();
}
