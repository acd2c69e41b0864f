/**
 * The emulator engine the server runs kernels on, as its initialize result says
 * (`capabilities.experimental[ENGINE_CAPABILITY]`, an `Engine`): the status bar tooltip's line.
 * Pure logic, unit-tested without VS Code.
 */
import { ENGINE_CAPABILITY, type Engine } from './generated/extensions';

/** The tooltip line for a server's `capabilities.experimental` (undefined: an older server
 * that does not say). */
export function engineLine(experimental: unknown): string | undefined {
    const engine = (experimental as Record<string, Partial<Engine> | undefined> | undefined)?.[ENGINE_CAPABILITY];
    if (typeof engine?.engine !== 'string') {
        return undefined;
    }
    if (engine.engine === 'native core') {
        return 'Engine: native core';
    }
    return `Engine: ${engine.engine} (${engine.reason ?? 'no reason given'})`;
}
