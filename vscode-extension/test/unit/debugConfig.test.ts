/**
 * Unit tests of the debugger's launch configuration logic.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
    assemblyError, completeConfiguration, debugAdapterCommand, kernelAtLine, kernelNames, listening, subcommand,
} from '../../src/debugConfig';

const SOURCE = '; header\n.kernel first\n    halt\n.end\n\n.kernel second ; two\n    halt\n.end\n';

describe('warm adapter', () => {
    it('reads where the server listens from its first line', () => {
        assert.deepEqual(listening('{"socket": "/tmp/wave-dap-x/adapter.sock"}'), { socket: '/tmp/wave-dap-x/adapter.sock' });
        assert.deepEqual(listening('{"port": 40123}'), { port: 40123 });
        for (const line of ['usage: wave-lsp debug [-h]', '{"port": 0}', '{"port": 1.5}', '{"socket": ""}', '{}', '[]', 'null']) {
            assert.equal(listening(line), undefined, line);
        }
    });
    it('is started with --server after the command line before serve', () => {
        assert.deepEqual(subcommand({ command: 'python3', args: ['-m', 'wave_lsp', 'serve'] }, 'debug', ['--server']),
            { command: 'python3', args: ['-m', 'wave_lsp', 'debug', '--server'] });
    });
});

describe('debug adapter command', () => {
    it('replaces serve and its options with debug', () => {
        assert.deepEqual(debugAdapterCommand({ command: '/v/bin/wave-lsp', args: ['serve'] }),
            { command: '/v/bin/wave-lsp', args: ['debug'] });
        assert.deepEqual(debugAdapterCommand({ command: 'python3', args: ['-m', 'wave_lsp', 'serve', '--ws'] }),
            { command: 'python3', args: ['-m', 'wave_lsp', 'debug'] });
        assert.deepEqual(debugAdapterCommand({ command: 'wave-lsp', args: [] }),
            { command: 'wave-lsp', args: ['debug'] });
    });
});

describe('other subcommands and the assembler\'s errors', () => {
    it('derives asm and dis from the server command', () => {
        assert.deepEqual(subcommand({ command: 'python3', args: ['-m', 'wave_lsp', 'serve'] }, 'dis', ['k.wbin']),
            { command: 'python3', args: ['-m', 'wave_lsp', 'dis', 'k.wbin'] });
    });
    it('reads the first error of wave-lsp asm', () => {
        const out = "k.wave:6:5: L401 error 'add.s32' is obsolete\nk.wave: 1 error(s); nothing assembled\n";
        assert.deepEqual(assemblyError(out), { line: 5, message: "line 6: L401 error 'add.s32' is obsolete" });
        assert.equal(assemblyError('k.wave: 0 error(s)\n'), undefined);
    });
});

describe('kernels', () => {
    it('finds kernels and the one at a line', () => {
        assert.deepEqual(kernelNames(SOURCE), [{ name: 'first', line: 1 }, { name: 'second', line: 5 }]);
        assert.equal(kernelAtLine(SOURCE, 0), 'first');
        assert.equal(kernelAtLine(SOURCE, 6), 'second');
        assert.equal(kernelAtLine('no kernels', 0), undefined);
    });
});

describe('completeConfiguration', () => {
    const active = { path: '/w/k.wave', languageId: 'wave', text: SOURCE, line: 6 };
    it('debugs the kernel at the cursor without a launch.json', () => {
        assert.deepEqual(completeConfiguration({}, active), {
            type: 'wave', request: 'launch', name: 'Debug WAVE kernel', program: '/w/k.wave',
            kernel: 'second', stopOnEntry: false,
        });
    });
    it('debugs the kernel the server says is at the cursor, else the first', () => {
        assert.equal((completeConfiguration({}, { ...active, line: 0, kernel: 'second' }) as { kernel?: string }).kernel, 'second');
        assert.equal((completeConfiguration({}, { ...active, kernel: null }) as { kernel?: string }).kernel, 'first');
    });
    it('explains what is missing', () => {
        const message = (config: Parameters<typeof completeConfiguration>[0], editor: typeof active | undefined): string => {
            const done = completeConfiguration(config, editor);
            assert.equal(typeof done, 'string');
            return done as string;
        };
        assert.match(message({}, undefined), /Open a \.wave file/);
        assert.match(message({ type: 'wave', request: 'launch', name: 'x' }, active), /"program"/);
        assert.match(message({ type: 'wave', request: 'attach', name: 'x' }, active), /launch/);
        assert.match(message({ type: 'wave', request: 'launch', name: 'x', program: 'a.wave', args: '--grid 2' as never }, active), /list/);
    });
    it('keeps a complete configuration', () => {
        const config = { type: 'wave', request: 'launch', name: 'x', program: 'a.wave', args: ['--grid', '2,1,1'] };
        assert.deepEqual(completeConfiguration(config, undefined), config);
    });
});
