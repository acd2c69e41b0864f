/**
 * Unit tests of the status bar's engine line, from the server's initialize result.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { engineLine } from '../../src/engine';
import { ENGINE_CAPABILITY } from '../../src/generated/extensions';

describe('engine line', () => {
    it('names the native core, or the numpy engine and why', () => {
        assert.equal(engineLine({ [ENGINE_CAPABILITY]: { engine: 'native core', reason: 'loaded' } }), 'Engine: native core');
        assert.equal(engineLine({ [ENGINE_CAPABILITY]: { engine: 'numpy engine', reason: 'WAVE_LSP_NATIVE=0 turns the native core off' } }),
            'Engine: numpy engine (WAVE_LSP_NATIVE=0 turns the native core off)');
    });

    it('says nothing for a server that does not tell', () => {
        assert.equal(engineLine(undefined), undefined);
        assert.equal(engineLine({ other: 1 }), undefined);
        assert.equal(engineLine({ [ENGINE_CAPABILITY]: 'native' }), undefined);
    });
});
