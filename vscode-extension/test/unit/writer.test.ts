/**
 * Unit tests of "Go to Writer": the register at the cursor, numbers as typed, and the account
 * of a `wave-lsp.whoWrote` answer (as the server gives it: tests/server/test_who_wrote.py).
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseNumber, registerAt, writerLine, writerSummary, type WhoWrote } from '../../src/writer';

const ANSWER = {
    uri: 'file:///k.wave', version: 1, value: 1019, line: 8, lane: 19, wave: 0, workgroup: 2,
    step: 5, iteration: 1, instruction: 'iadd r5, r4, r6',
    inputs: [
        { operand: 'r4', value: 19, writer: { line: 7, lane: 19, step: 4 } },
        { operand: 'r6', value: 1000, writer: { line: null, input: '--set-reg 6:1000', kind: 'set-reg' } },
    ],
} as unknown as WhoWrote;

describe('go to writer', () => {
    it('finds the register or predicate under the cursor', () => {
        assert.equal(registerAt('    iadd r5, r4, r6', 10), 'r5');
        assert.equal(registerAt('    iadd r5, r4, r6', 13), 'r4');
        assert.equal(registerAt('    @!p1 halt', 6), 'p1');
        assert.equal(registerAt('    iadd r5, r4, r6', 5), undefined);
        assert.equal(registerAt('    mov_sr r0, sr_lane_id', 17), undefined);
    });
    it('reads decimal and hex numbers, and nothing else', () => {
        assert.equal(parseNumber('52'), 52);
        assert.equal(parseNumber(' 0x34 '), 52);
        assert.equal(parseNumber('-1'), undefined);
        assert.equal(parseNumber('r4'), undefined);
        assert.equal(parseNumber(undefined), undefined);
    });
    it('says where the value came from, lines 1-based', () => {
        assert.equal(writerLine(ANSWER), 8);
        assert.equal(writerSummary(ANSWER),
            'line 9, thread 19, step 5: iadd r5, r4, r6 ← r4 from line 8, r6 from --set-reg 6:1000');
        const input = { ...ANSWER, line: null, input: '--set-reg 6:1000', inputs: [] } as unknown as WhoWrote;
        assert.equal(writerLine(input), undefined);
        assert.equal(writerSummary(input), 'the value 1019 came from --set-reg 6:1000');
    });
});
