/**
 * The language client: finds the server (serverLocator.ts), offers to install the bundled one
 * when there is none (installer.ts), starts `wave-lsp serve` over stdio with vscode-languageclient,
 * and reports every failure as a notification naming the fix, and in the status bar.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import {
    CloseAction, CloseHandlerResult, DidChangeConfigurationNotification, ErrorAction, ErrorHandler, ErrorHandlerResult, ExecuteCommandRequest,
    LanguageClient, LanguageClientOptions, RevealOutputChannelOn, ServerOptions, State, TransportKind,
} from 'vscode-languageclient/node';
import { engineLine } from './engine';
import { FailureNotice } from './failureNotice';
import { InstallError, installBundledServer, shippedWheel, wheelFiles } from './installer';
import { isExecutable, LocatorInput, locateServer, ServerCommand, wheelVersion } from './serverLocator';
import { restrictedKeys } from './restricted';
import { RestrictedNotice } from './restrictedNotice';
import { declaredKeys, SECTION, serverSettings, settingValue } from './settings';
import { lensAndCompletionMiddleware } from './middleware';
import { snippetPrefixes } from './snippetTwins';
import { ServerStatus } from './statusBar';

const INSTALLED_MARKER = 'wave-lsp-wheel.txt';
const MAX_CRASHES = 4;            // restarts within CRASH_WINDOW_MS before giving up
const CRASH_WINDOW_MS = 3 * 60 * 1000;

/** The server's notification that the user trusted the workspace after it started. */
import { WORKSPACE_TRUSTED as TRUST_GRANTED } from './generated/extensions';

/** The language client, whose own start-up and crash notifications are left to WaveClient (one
 * notification per failure, taken down on recovery: see FailureNotice). A server that exits
 * with 0 (a restart, a shutdown) did nothing wrong: that is said as information, not an error. */
class WaveLanguageClient extends LanguageClient {
    override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
        if (/^Server process exited with code 0\.?$/.test(message)) {
            this.info(message);
            return;
        }
        super.error(message, data, showNotification === 'force' ? false : showNotification);
    }
}

export class WaveClient implements vscode.Disposable {
    private client: LanguageClient | undefined;
    private readonly keys: string[];
    private readonly restricted: string[];
    private readonly restrictedNotice: RestrictedNotice;
    private readonly privateEnv: string;
    private starting: Promise<void> | undefined;
    private readonly notice = new FailureNotice();
    private readonly notificationHandlers: [string, (params: unknown) => void][] = [];
    private readonly runningHandlers: (() => void)[] = [];
    private readonly snippets: Set<string>;
    private readonly lensHandlers: ((lenses: vscode.CodeLens[]) => void)[] = [];
    activatedAt = Date.now();

    constructor(
        private readonly context: vscode.ExtensionContext,
        readonly log: vscode.OutputChannel,
        readonly status: ServerStatus,
    ) {
        this.keys = declaredKeys(context.extension.packageJSON as Parameters<typeof declaredKeys>[0]);
        this.restricted = restrictedKeys(context.extension.packageJSON as Parameters<typeof restrictedKeys>[0]);
        this.restrictedNotice = new RestrictedNotice(log, this.restricted);
        this.privateEnv = path.join(context.globalStorageUri.fsPath, 'server-env');
        this.snippets = snippetPrefixes(JSON.parse(fs.readFileSync(
            path.join(context.extensionPath, 'snippets', 'wave.json'), 'utf8')) as Parameters<typeof snippetPrefixes>[0]);
    }

    get running(): LanguageClient | undefined {
        return this.client?.state === State.Running ? this.client : undefined;
    }

    /** Starts the server (once at a time); resolves when it runs or has failed visibly. */
    start(): Promise<void> {
        return this.starting ?? this.startingWith(this.doStart());
    }

    /** Stops the server and starts it again. The restart counts as a start in progress, so a
     *  command sent meanwhile waits for the new server instead of starting one of its own
     *  (which the restart would then replace, and the command's answer be lost with it). */
    restart(): Promise<void> {
        const before = this.starting ?? Promise.resolve();
        return this.startingWith(before.then(() => this.stop()).then(() => this.doStart()));
    }

    private startingWith(work: Promise<void>): Promise<void> {
        const starting: Promise<void> = work.finally(() => {
            if (this.starting === starting) { this.starting = undefined; }
        });
        this.starting = starting;
        return starting;
    }

    async stop(): Promise<void> {
        const client = this.client;
        this.client = undefined;
        await client?.dispose(2000).catch((error: unknown) => {
            this.log.appendLine(`stopping the server: ${String(error)}`);
        });
        this.status.set('stopped');
    }

    /** Runs a server command (workspace/executeCommand), showing failures. A command sent while
     *  the server (re)starts waits for it; one that the stopping server drops is sent once more
     *  to the server that replaced it. */
    async execute(command: string, args: unknown[]): Promise<unknown> {
        for (let attempt = 0; ; attempt++) {
            if (this.running === undefined) {
                await this.start();
            }
            const client = this.running;
            if (client === undefined) {
                throw new Error('the WAVE language server is not running (see the WAVE output channel)');
            }
            try {
                return await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
            } catch (error) {
                const replaced = this.client !== client || client.state !== State.Running;
                if (attempt > 0 || !replaced) {
                    throw error;
                }
                this.log.appendLine(`${command} was sent to a server that stopped: sending it again.`);
            }
        }
    }

    /** The user trusted the workspace (onDidGrantWorkspaceTrust): the running server is told
     *  (the next Run runs) and asks for the settings again, the restricted ones counting now. */
    async trustGranted(): Promise<void> {
        await this.starting;
        const client = this.running;
        this.log.appendLine('The workspace is trusted now: kernels may run.');
        if (client !== undefined) {
            void client.sendNotification(TRUST_GRANTED, {});
            void client.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
        }
    }

    /** `execute` for background work (test discovery): waits for a start in progress but never
     *  starts the server itself, so a broken install is reported once, not once a file. */
    async executeIfRunning(command: string, args: unknown[]): Promise<unknown> {
        await this.starting;
        const client = this.running;
        if (client === undefined) {
            throw new Error('the WAVE language server is not running (see the WAVE output channel)');
        }
        return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
    }

    /** Calls `handler` with the server's code lenses of a document each time they come. */
    onLenses(handler: (lenses: vscode.CodeLens[]) => void): void {
        this.lensHandlers.push(handler);
    }

    /** Calls `handler` each time a server has started and runs. */
    onRunning(handler: () => void): void {
        this.runningHandlers.push(handler);
    }

    /** Handles a server notification on the running client and on every one started later. */
    onNotification<P>(method: string, handler: (params: P) => void): void {
        const untyped = (params: unknown) => handler(params as P);
        this.notificationHandlers.push([method, untyped]);
        this.client?.onNotification(method, untyped);
    }

    /** The command line that starts the server (the debugger derives its adapter from it). */
    serverCommand(): ServerCommand | undefined {
        return this.locate();
    }

    private locate(): ServerCommand | undefined {
        const command = settingValue<string[]>('server.command', this.restricted);
        const interpreter = settingValue<string>('server.interpreter', this.restricted);
        const input: LocatorInput = {
            command: command.value ?? [],
            interpreter: interpreter.value ?? '',
            workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
            trusted: vscode.workspace.isTrusted,
            envPath: process.env.PATH ?? '',
            platform: process.platform,
            privateEnv: this.privateEnv,
            isExecutable,
        };
        if (!input.trusted) {
            this.restrictedNotice.tell(input);
        }
        return locateServer(input);
    }

    private async doStart(): Promise<void> {
        this.status.set('starting');
        let server = this.locate();
        const wheel = shippedWheel(this.context.extensionPath);
        if (server?.source === 'bundled' && wheel !== undefined && !this.installedIs(wheel)) {
            server = await this.install(wheel, `updating the bundled server to ${path.basename(wheel)}`);
        } else if (server === undefined) {
            server = await this.offerInstall(wheel);
        }
        if (server === undefined) {
            return;
        }
        await this.launch(server);
    }

    private installedIs(wheel: string): boolean {
        try {
            // the wheel installed (the pure one or one with the native core) is one shipped now
            const installed = fs.readFileSync(path.join(this.privateEnv, INSTALLED_MARKER), 'utf8').trim();
            return wheelFiles(path.dirname(wheel)).includes(installed);
        } catch {
            return false;
        }
    }

    private async offerInstall(wheel: string | undefined): Promise<ServerCommand | undefined> {
        const looked = 'wave.server.command, wave.server.interpreter, the workspace\'s .venv/venv/env and PATH';
        this.log.appendLine(`No wave-lsp server found (looked at ${looked}).`);
        this.status.set('missing', 'No wave-lsp server found');
        const settings = 'Open Settings';
        if (wheel === undefined) {
            const pick = await vscode.window.showErrorMessage(
                `WAVE: the wave-lsp language server was not found (looked at ${looked}). ` +
                'Install it from a checkout of wave-lsp (python3 -m venv .venv && .venv/bin/pip install .) ' +
                'and set "wave.server.command", or install the extension\'s .vsix, which bundles the server.',
                settings, 'Show Log');
            this.followUp(pick);
            return undefined;
        }
        const install = `Install wave-lsp ${wheelVersion(wheel) ?? ''}`.trimEnd();
        const pick = await vscode.window.showWarningMessage(
            `WAVE: no wave-lsp language server found (looked at ${looked}). ` +
            'Install the server bundled with this extension into a private environment? (Needs Python 3.11+.)',
            install, settings);
        if (pick !== install) {
            this.followUp(pick);
            return undefined;
        }
        return this.install(wheel, 'installing the bundled server');
    }

    private async install(wheel: string, what: string): Promise<ServerCommand | undefined> {
        this.status.set('installing', what);
        this.log.appendLine(`${what} into ${this.privateEnv}`);
        try {
            const interpreter = settingValue<string>('server.interpreter', this.restricted).value ?? '';
            const installed = await installBundledServer(wheel, this.privateEnv, interpreter, this.log);
            fs.writeFileSync(path.join(this.privateEnv, INSTALLED_MARKER), `${path.basename(installed)}\n`);
        } catch (error) {
            const message = error instanceof InstallError ? error.message : String(error);
            this.log.appendLine(`Installing the server failed: ${message}`);
            this.status.set('failed', `Installing the server failed: ${message}`);
            const pick = await vscode.window.showErrorMessage(
                `WAVE: installing the wave-lsp server failed: ${message}. ` +
                'Set "wave.server.interpreter" to a Python 3.11+ or install wave-lsp yourself.', 'Show Log', 'Open Settings');
            this.followUp(pick);
            return undefined;
        }
        this.log.appendLine('The bundled server is installed.');
        return this.locate();
    }

    private followUp(pick: string | undefined): void {
        if (pick === 'Open Settings') {
            void vscode.commands.executeCommand('workbench.action.openSettings', 'wave.server');
        } else if (pick === 'Show Log') {
            this.log.show();
        }
    }

    private async launch(server: ServerCommand): Promise<void> {
        const commandLine = [server.command, ...server.args].join(' ');
        this.log.appendLine(`Starting the server (${server.source}): ${commandLine}`);
        const serverOptions: ServerOptions = {
            command: server.command, args: server.args, transport: TransportKind.stdio,
            // the bundled server runs from its private environment alone: a PYTHONPATH naming a
            // wave-lsp checkout would replace the installed package
            options: server.source === 'bundled' ? { env: { PYTHONPATH: '' } } : undefined,
        };
        const clientOptions: LanguageClientOptions = {
            documentSelector: [{ language: 'wave' }],
            outputChannel: this.log,
            traceOutputChannel: this.log,
            revealOutputChannelOn: RevealOutputChannelOn.Never,
            errorHandler: this.errorHandler(() => client),
            // A server that cannot initialize is reported once, below, not retried.
            initializationFailedHandler: (error) => {
                failure = error instanceof Error ? error.message : String(error);
                this.log.appendLine(`Server initialization failed: ${failure}`);
                return false;
            },
            // Restricted mode (an untrusted workspace): the server never runs kernels, whose
            // launch lines come with the workspace (see the server's `workspaceTrusted`).
            initializationOptions: {
                ...serverSettings(this.keys, this.restricted), workspaceTrusted: vscode.workspace.isTrusted,
            },
            synchronize: { configurationSection: SECTION },
            // The dump hover's "next 256 values" links run the server's `wave-lsp.dump`.
            markdown: { isTrusted: { enabledCommands: ['wave-lsp.dump'] } },
            middleware: {
                workspace: {
                    // The `wave` section as the server knows it (not the client's own keys).
                    configuration: (params) => params.items.map((item) => {
                        if (item.section !== SECTION) {
                            return null;
                        }
                        const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
                        return serverSettings(this.keys, this.restricted, scope);
                    }),
                },
                ...lensAndCompletionMiddleware(this.lensHandlers, this.snippets),
            },
        };
        const launchedAt = Date.now();
        let failure: string | undefined;
        const client = new WaveLanguageClient('wave', 'WAVE Language Server', serverOptions, clientOptions);
        this.client = client;
        for (const [method, handler] of this.notificationHandlers) {
            client.onNotification(method, handler);
        }
        client.onDidChangeState((event) => {
            if (this.client !== client) {
                return;
            }
            if (event.newState === State.Running) {
                this.notice.clear();
                this.status.set('running', `${commandLine}`);
                this.status.setEngine(engineLine(client.initializeResult?.capabilities.experimental));
                this.runningHandlers.forEach((handler) => handler());
            } else if (event.newState === State.Stopped) {
                this.status.set('stopped', `${commandLine}`);
            }
        });
        try {
            await client.start();
            if (client.state !== State.Running) {
                // vscode-languageclient resolves start() after a failed initialize.
                throw new Error(failure === undefined ? 'the server stopped during start-up'
                    : `the server stopped during start-up (${failure})`);
            }
            this.status.setEngine(engineLine(client.initializeResult?.capabilities.experimental));
            this.log.appendLine(`Server started in ${Date.now() - launchedAt} ms (${Date.now() - this.activatedAt} ms after activation).`);
        } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            this.log.appendLine(`The server failed to start: ${message}`);
            this.status.set('failed', `${commandLine}: ${message}`);
            if (this.client === client) {
                this.client = undefined;
            }
            this.notice.show(`The language server failed to start (${commandLine}): ${message}. ` +
                'Check "wave.server.command" / "wave.server.interpreter", or see the log.');
        }
    }

    /** Restarts a server that stopped after it ran (up to MAX_CRASHES times in CRASH_WINDOW_MS,
     * then one notification); a server that never ran is reported by launch(). */
    private errorHandler(current: () => LanguageClient): ErrorHandler {
        const crashes: number[] = [];
        let ran = false;
        return {
            error: (_error, _message, count): ErrorHandlerResult => ({
                action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true,
            }),
            closed: (): CloseHandlerResult => {
                ran ||= current().state === State.Running || crashes.length > 0;
                if (!ran || this.client !== current()) {
                    return { action: CloseAction.DoNotRestart, handled: true };
                }
                const now = Date.now();
                crashes.push(now);
                while (crashes.length > 0 && now - crashes[0] > CRASH_WINDOW_MS) {
                    crashes.shift();
                }
                if (crashes.length <= MAX_CRASHES) {
                    this.log.appendLine('The server stopped unexpectedly: restarting it.');
                    return { action: CloseAction.Restart, handled: true };
                }
                this.status.set('failed', 'The server stopped 5 times in 3 minutes');
                void vscode.window.showErrorMessage(
                    'WAVE: the language server stopped 5 times in 3 minutes and was not restarted.',
                    'Show Log', 'Restart Server').then((pick) => {
                    if (pick === 'Restart Server') {
                        void this.restart();
                    } else {
                        this.followUp(pick);
                    }
                });
                return { action: CloseAction.DoNotRestart, handled: true };
            },
        };
    }

    dispose(): void {
        this.notice.dispose();
        void this.stop();
    }
}
