/**
 * Unit tests of the heat view's data: levels to lines, icons and tints.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gutterIcon, HEAT_COLOURS, linesByLevel, tint } from '../../src/heat';

describe('heat levels', () => {
    it('puts each profiled line (1-based) under its level, over every kernel', () => {
        const byLevel = linesByLevel([
            { kernel: 'a', heat: [{ line: 3, level: 5, share: 0.5 }, { line: 4, level: 1, share: 0.1 }] },
            { kernel: 'b', heat: [{ line: 10, level: 5, share: 0.9 }] },
            { kernel: 'c', status: 'failed' },
        ]);
        assert.equal(byLevel.length, HEAT_COLOURS.length);
        assert.deepEqual(byLevel[4], [2, 9]);
        assert.deepEqual(byLevel[0], [3]);
        assert.deepEqual(byLevel.slice(1, 4), [[], [], []]);
    });
    it('leaves cold lines (level 1, under 5% of the cost) uncoloured', () => {
        const byLevel = linesByLevel([{ kernel: 'a', heat: [
            { line: 1, level: 1, share: 0.01 }, { line: 2, level: 1, share: 0.05 }, { line: 3, level: 2, share: 0.001 },
        ] }]);
        assert.deepEqual(byLevel[0], [1]);
        assert.deepEqual(byLevel[1], [2]);
    });
    it('clamps odd levels and drops lines that are not lines', () => {
        const byLevel = linesByLevel([{ kernel: 'a', heat: [
            { line: 1, level: 9, share: 1 }, { line: 0, level: 2, share: 0 }, { line: 2.5, level: 2, share: 0 }, { line: 3, level: 0, share: 0 },
        ] }]);
        assert.deepEqual(byLevel[4], [0]);
        assert.deepEqual(byLevel[1], []);
    });
});

describe('heat colours', () => {
    it('draws taller bars for hotter levels, in the level colour', () => {
        const svg = (level: number) => Buffer.from(gutterIcon(level).split(',')[1], 'base64').toString();
        assert.match(svg(1), new RegExp(`height="7" rx="1" fill="${HEAT_COLOURS[0]}"`));
        assert.match(svg(5), new RegExp(`height="19" rx="1" fill="${HEAT_COLOURS[4]}"`));
    });
    it('tints with the level colour', () => {
        assert.equal(tint(5, 0.2), 'rgba(168, 31, 42, 0.2)');
    });
});
