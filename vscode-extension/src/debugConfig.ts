/**
 * The kernel debugger's launch configurations, without VS Code: the adapter command derived from
 * the language server's (`wave-lsp serve` → `wave-lsp debug`), the kernels of a source text, and
 * completing a configuration (F5 without a launch.json debugs the kernel at the cursor).
 *
 * Launch attributes (debug type `wave`): `program` (.wave or .wbin), `kernel`, `args` (the flags
 * of `wave-lsp run`; absent: the kernel's `; wave-lsp run:` launch line), `stopOnEntry`, `cwd`,
 * `stopAt` (open paused at a finding's moment) and `checkpointBudgetMiB` (reverse execution).
 */

export interface CommandLine {
    command: string;
    args: string[];
}

export interface WaveLaunchConfiguration {
    type: string;
    request: string;
    name: string;
    program?: string;
    kernel?: string;
    args?: string[];
    stopOnEntry?: boolean;
    cwd?: string;
    [key: string]: unknown;
}

export interface ActiveEditor {
    path: string;
    languageId: string;
    text: string;
    /** 0-based line of the cursor. */
    line: number;
    /** The kernel at the cursor as the server's `wave-lsp.kernelAt` says (null: none there);
     * undefined when the language server could not be asked. */
    kernel?: string | null;
}

export const DEBUG_TYPE = 'wave';
/** The server's "Debug at this moment" code actions (run findings, failing tests) and the Testing
 * view's message link run this with a complete launch configuration (`stopAt`: the moment). */
export const DEBUG_MOMENT_COMMAND = 'wave.debugAtMoment';

/** Another `wave-lsp` subcommand from the server's command line: `serve` and what follows
 * become `name` and its `args` (`debug`; `asm FILE --dump-hex`; `dis FILE`). */
export function subcommand(server: CommandLine, name: string, args: string[] = []): CommandLine {
    const at = server.args.lastIndexOf('serve');
    const before = at >= 0 ? server.args.slice(0, at) : server.args;
    return { command: server.command, args: [...before, name, ...args] };
}

/** The debug adapter's command line for the server's: `serve` and what follows become `debug`. */
export function debugAdapterCommand(server: CommandLine): CommandLine {
    return subcommand(server, 'debug');
}

/** Where the warm adapter's first line (`wave-lsp debug --server`) says it listens, or undefined for anything else. */
export function listening(line: string): { socket: string } | { port: number } | undefined {
    try {
        const where = JSON.parse(line) as { socket?: unknown; port?: unknown };
        if (typeof where.socket === 'string' && where.socket !== '') {
            return { socket: where.socket };
        }
        if (typeof where.port === 'number' && Number.isInteger(where.port) && where.port > 0) {
            return { port: where.port };
        }
    } catch {
        // not JSON: not a server line
    }
    return undefined;
}

/** The first error of `wave-lsp asm`'s output (`FILE:LINE:COL: CODE error MESSAGE`) as the
 * 0-based line and the message, or undefined when there is none. */
export function assemblyError(output: string): { line: number; message: string } | undefined {
    const match = /^.*?:(\d+):(\d+): (\S+ error .*)$/m.exec(output);
    return match === null ? undefined : { line: Number(match[1]) - 1, message: `line ${match[1]}: ${match[3]}` };
}

/** The kernels of a source text with the 0-based line of each `.kernel`. */
export function kernelNames(text: string): { name: string; line: number }[] {
    const out: { name: string; line: number }[] = [];
    text.split(/\r?\n/).forEach((line, index) => {
        const match = /^\s*\.kernel\s+([^\s;#]+)/.exec(line);
        if (match !== null) {
            out.push({ name: match[1], line: index });
        }
    });
    return out;
}

/** The kernel containing `line` (the nearest `.kernel` above it), else the first. Only for when
 * the language server cannot answer `wave-lsp.kernelAt`: the debugger needs no language server
 * (it runs `wave-lsp debug`), which may be stopped, failed or still starting. */
export function kernelAtLine(text: string, line: number): string | undefined {
    const kernels = kernelNames(text);
    let best = kernels[0];
    for (const kernel of kernels) {
        if (kernel.line <= line) {
            best = kernel;
        }
    }
    return best?.name;
}

/**
 * A configuration ready to launch, or a message saying why it cannot be. An empty
 * configuration (F5 without launch.json) debugs the active `.wave` file's kernel at the cursor.
 */
export function completeConfiguration(
    config: Partial<WaveLaunchConfiguration>, active: ActiveEditor | undefined,
): WaveLaunchConfiguration | string {
    let out = { ...config } as WaveLaunchConfiguration;
    if (!out.type && !out.request && !out.name) {
        if (active === undefined || active.languageId !== 'wave') {
            return 'Open a .wave file to debug its kernel, or add a "wave" launch configuration.';
        }
        out = {
            type: DEBUG_TYPE, request: 'launch', name: 'Debug WAVE kernel', program: active.path,
            kernel: active.kernel === undefined ? kernelAtLine(active.text, active.line)
                : active.kernel ?? kernelNames(active.text)[0]?.name,
            stopOnEntry: false,
        };
    }
    if (out.request !== 'launch') {
        return 'The WAVE debugger launches kernels: use "request": "launch".';
    }
    if (typeof out.program !== 'string' || out.program === '') {
        return 'A WAVE launch configuration needs "program": the .wave or .wbin file to debug.';
    }
    if (out.args !== undefined && !(Array.isArray(out.args) && out.args.every((a) => typeof a === 'string'))) {
        return '"args" must be a list of wave-lsp run flags, e.g. ["--grid", "4,1,1"].';
    }
    return out;
}
