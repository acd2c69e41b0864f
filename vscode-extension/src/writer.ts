/**
 * "Go to Writer", free of VS Code: the server's `wave-lsp.whoWrote` target for the word at the
 * cursor (a register or predicate on an executed line, with the thread the user names; else a
 * device address the user types), and what the editor says about its answer (the line to
 * reveal, 0-based, and a one-line account: `line 8, thread 3, step 41: iadd r4, r3, r1 ← r3
 * from line 5, r1 from --set-reg 1:4`).
 */

import type { WhoWrote } from './generated/extensions';

export { WHO_WROTE as WHO_WROTE_COMMAND } from './generated/extensions';
export type { WhoWrote } from './generated/extensions';

/** A `wave-lsp.whoWrote` target. */
export type WriterTarget = { register: string; lane: number; line: number } | { address: number };

/** The register or predicate (`r4`, `p0`; a guard's `@!p1` too) at `character` of `text`. */
export function registerAt(text: string, character: number): string | undefined {
    for (const match of text.matchAll(/\b[rp]\d+\b/g)) {
        const start = match.index ?? 0;
        if (start <= character && character <= start + match[0].length) {
            return match[0];
        }
    }
    return undefined;
}

/** A whole number as the user types it: decimal or 0x-hex (undefined: not one). */
export function parseNumber(text: string | undefined): number | undefined {
    const t = (text ?? '').trim();
    const value = /^0x[0-9a-f]+$/i.test(t) ? parseInt(t.slice(2), 16) : /^\d+$/.test(t) ? parseInt(t, 10) : NaN;
    return Number.isSafeInteger(value) ? value : undefined;
}

/** Where an answer's writer is: 0-based line (undefined: an input from outside the run). */
export function writerLine(answer: WhoWrote): number | undefined {
    return typeof answer.line === 'number' ? answer.line : undefined;
}

type Writer = { line?: number | null; input?: string; lane?: number; step?: number };

function whence(writer: Writer): string {
    return typeof writer.line === 'number' ? `line ${writer.line + 1}` : writer.input ?? 'outside the run';
}

/** The answer in one line (lines 1-based, as the editor shows them). */
export function writerSummary(answer: WhoWrote): string {
    const a = answer as WhoWrote & Writer & { instruction?: string };
    const inputs = (answer.inputs as { operand: string; writer: Writer }[])
        .map((i) => `${i.operand} from ${whence(i.writer)}`);
    if (writerLine(answer) === undefined) {
        return `the value ${answer.value ?? '?'} came from ${a.input ?? 'outside the run'}`;
    }
    return `line ${(answer.line as number) + 1}, thread ${a.lane}, step ${a.step}: ${a.instruction}`
        + (inputs.length ? ` ← ${inputs.join(', ')}` : '');
}
