/**
 * Unit tests of the debugger's launch configuration logic.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { completeConfiguration, debugAdapterCommand, kernelAtLine, kernelNames } from '../../src/debugConfig';

const SOURCE = '; header\n.kernel first\n    halt\n.end\n\n.kernel second ; two\n    halt\n.end\n';

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
