/**
 * The warm debug adapter: one `wave-lsp debug --server` per window, started when the language
 * server runs in a trusted workspace (setting `wave.debug.warmAdapter`), so a session
 * ("Debug at this moment" above all) connects to a debugger already loaded instead of starting
 * a process. The server prints where it listens as one JSON line (`{"socket": PATH}` or
 * `{"port": N}`) and exits when its stdin closes, that is with this window.
 *
 * Whenever it cannot start or does not answer within `READY_MS`, `descriptor` gives undefined
 * from then on and the caller starts the process adapter (`wave-lsp debug` on stdio) as before;
 * a server that ran and exited is started again by the next session.
 */
import { ChildProcess, spawn } from 'child_process';
import * as vscode from 'vscode';
import { CommandLine, listening, subcommand } from './debugConfig';

const READY_MS = 15_000;

export class WarmAdapter implements vscode.Disposable {
    private process: ChildProcess | undefined;
    private ready: Promise<vscode.DebugAdapterDescriptor | undefined> | undefined;

    constructor(private readonly log: (text: string) => void) { }

    /** Starts the server unless it runs (or is starting); never throws. */
    warm(server: CommandLine | undefined): void {
        if (server !== undefined && this.ready === undefined) {
            this.ready = this.start(server);
        }
    }

    /** The running server's descriptor, starting it if needed; undefined: use the process. */
    async descriptor(server: CommandLine): Promise<vscode.DebugAdapterDescriptor | undefined> {
        this.warm(server);
        return this.ready;
    }

    private start(server: CommandLine): Promise<vscode.DebugAdapterDescriptor | undefined> {
        const line = subcommand(server, 'debug', ['--server']);
        return new Promise((resolve) => {
            let child: ChildProcess;
            try {
                child = spawn(line.command, line.args, { stdio: ['pipe', 'pipe', 'pipe'] });
            } catch (error) {
                this.failed(`cannot start ${line.command}: ${String(error)}`, undefined);
                resolve(undefined);
                return;
            }
            this.process = child;
            let output = '';
            let errors = '';
            let settled = false;
            let serving = false;
            const timer = setTimeout(() => settle(undefined, `no answer in ${READY_MS / 1000} s`), READY_MS);
            const settle = (descriptor: vscode.DebugAdapterDescriptor | undefined, why?: string) => {
                if (settled) {
                    return;
                }
                settled = true;
                serving = descriptor !== undefined;
                clearTimeout(timer);
                if (descriptor === undefined) {
                    this.failed(why ?? 'it did not start', child, errors);
                }
                resolve(descriptor);
            };
            child.stdout?.on('data', (chunk: Buffer) => {
                output += chunk.toString('utf8');
                const end = output.indexOf('\n');
                if (end < 0) {
                    return;
                }
                const where = listening(output.slice(0, end));
                settle(where === undefined ? undefined
                    : 'socket' in where ? new vscode.DebugAdapterNamedPipeServer(where.socket)
                        : new vscode.DebugAdapterServer(where.port, '127.0.0.1'),
                    `it printed ${JSON.stringify(output.slice(0, 200))}`);
                child.stdout?.removeAllListeners('data');
            });
            child.stderr?.on('data', (chunk: Buffer) => { errors = (errors + chunk.toString('utf8')).slice(-2000); });
            child.on('error', (error) => settle(undefined, String(error)));
            child.on('close', (code) => {       // after its output ended: stderr is complete
                settle(undefined, `it exited with ${code}`);
                if (serving && this.process === child) {   // it ran: the next session starts another
                    this.process = undefined;
                    this.ready = undefined;
                }
            });
        });
    }

    private failed(why: string, child: ChildProcess | undefined, errors = ''): void {
        this.log(`The warm debug adapter is not used (${why})${errors ? `: ${errors.trim()}` : ''}; `
            + 'each debug session starts its own adapter process.');
        if (child !== undefined && child.exitCode === null) {
            child.kill();
        }
    }

    dispose(): void {
        this.process?.stdin?.end();
        this.process?.kill();
        this.process = undefined;
        this.ready = undefined;
    }
}
