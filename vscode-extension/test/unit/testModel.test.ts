/**
 * Unit tests of the Testing view's model of kernel tests: ids, labels, grouping by kernel, what
 * a failure shows and the debugger's configuration for a test.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
    byKernel, debugConfiguration, DiscoveredTest, failureParts, kernelId, testDescription, testId, testLabel,
    TestOutcome,
} from '../../src/testModel';

const RANGE = { start: { line: 3, character: 0 }, end: { line: 5, character: 20 } };

function test(kernel: string, launchLine: number, ordinal: number, flags = '--grid 1,1,1'): DiscoveredTest {
    return { kernel, launchLine, ordinal, flags, args: flags.split(' ').filter((w) => w !== ''), range: RANGE, kernelRange: null };
}

describe('kernel test items', () => {
    it('names items by file, kernel and the ordinal of the test, not its line', () => {
        assert.equal(kernelId('file:///w/a.wave', 'scale'), 'file:///w/a.wave#scale');
        assert.equal(testId('file:///w/a.wave', 'scale', 1), 'file:///w/a.wave#scale#1');
    });
    it('labels a test by its line and describes it by its flags, shortened', () => {
        assert.equal(testLabel(test('k', 6, 0)), 'line 7');
        assert.equal(testDescription(test('k', 0, 0, '--grid 2,1,1 --dump-u32 0:4')), '--grid 2,1,1 --dump-u32 0:4');
        assert.equal(testDescription(test('k', 0, 0, '')), 'default launch');
        const long = testDescription(test('k', 0, 0, '--fill-iota 0:64 '.repeat(10)), 20);
        assert.equal(long.length, 20);
        assert.ok(long.endsWith('…'));
    });
    it('groups tests by kernel in file order', () => {
        const groups = byKernel([test('b', 1, 0), test('a', 9, 0), test('b', 4, 1)]);
        assert.deepEqual(groups.map((g) => [g.kernel, g.tests.map((t) => t.launchLine)]), [['b', [1, 4]], ['a', [9]]]);
    });
});

describe('failures', () => {
    const failed: TestOutcome = {
        kernel: 'scale', launchLine: 3, passed: false, status: 'failed',
        message: 'line 13, lane 2 wrote 5, expected 4',
        expected: ['0x00000000: 0 2 4 6'], actual: ['0x00000000: 0 2 5 6'], actualLines: 1,
        exitStatus: 0, stderr: '',
        difference: { line: 4, expected: '0x00000000: 0 2 4 6', got: '0x00000000: 0 2 5 6', what: 'line' },
        writtenBy: { line: 12, lane: 2 }, range: RANGE,
    };
    it('shows the whole output as a diff at the first wrong expect line', () => {
        const parts = failureParts(failed);
        assert.equal(parts.expected, '0x00000000: 0 2 4 6');
        assert.equal(parts.actual, '0x00000000: 0 2 5 6');
        assert.equal(parts.line, 4);
        assert.match(parts.message, /expected "0x00000000: 0 2 4 6", got "0x00000000: 0 2 5 6"/);
    });
    it('points at the store that wrote the first wrong value', () => {
        assert.deepEqual(failureParts(failed).store, {
            line: 12, message: 'The first wrong value was stored here: line 13, lane 2 wrote 5, expected 4',
        });
        const unknown = failureParts({ ...failed, writtenBy: null, difference: null });
        assert.equal(unknown.store, undefined);
        assert.equal(unknown.line, 3);
        assert.equal(unknown.message, failed.message);
    });
});

describe('debugging a test', () => {
    it('launches the kernel with the test\'s flags', () => {
        assert.deepEqual(debugConfiguration('/w/a.wave', test('scale', 7, 0, '--grid 2,1,1')), {
            type: 'wave', request: 'launch', name: 'Debug test scale (line 8)', program: '/w/a.wave',
            kernel: 'scale', args: ['--grid', '2,1,1'], stopOnEntry: false,
        });
    });
});
