/**
 * Runs a `wave-lsp` subcommand (`asm`, `dis`) from the located server's command line, for what
 * the language server does not answer: checking that a program assembles before debugging it,
 * and the disassembly of a `.wbin`.
 */
import { execFile } from 'child_process';
import { CommandLine, subcommand } from './debugConfig';

export interface CliResult {
    code: number;
    stdout: string;
    stderr: string;
}

export function runCli(server: CommandLine, name: string, args: string[], cwd?: string): Promise<CliResult> {
    const line = subcommand(server, name, args);
    return new Promise((resolve) => {
        execFile(line.command, line.args, { cwd, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
            (error, stdout, stderr) => {
                const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
                resolve({ code, stdout, stderr: stderr || (error !== null && code !== 0 ? error.message : '') });
            });
    });
}
