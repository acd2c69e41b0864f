/**
 * Kernel tests as the server describes them, without VS Code: the JSON of the server's
 * `wave-lsp.discoverTests` and `wave-lsp.test` commands, the Testing view's item ids and labels
 * (file → kernel → launch line), and what a failure shows (the expected/actual diff, the line of
 * the first wrong expectation, the store that wrote the first wrong value).
 *
 * A kernel test is a launch line `; wave-lsp run: FLAGS` directly followed by
 * `; wave-lsp expect: TEXT` lines (see the server's README section on kernel tests).
 */

/** The JSON of `wave-lsp.discoverTests` and `wave-lsp.test`, generated from the server's types
 * (wave_lsp/server/extensions.py): a test's place, a discovery, an outcome, a run's answer. */
export type { DiscoveredTest, Discovery, TestOutcome, TestRun as TestRunAnswer, WireRange } from './generated/extensions';
import type { DiscoveredTest, TestOutcome } from './generated/extensions';

/** The Testing view's id of a file, a kernel in it, and one of the kernel's tests. The test id
 * counts the kernel's tests, not lines, so results stay on their test when lines move above. */
export function fileId(uri: string): string {
    return uri;
}

export function kernelId(uri: string, kernel: string): string {
    return `${uri}#${kernel}`;
}

export function testId(uri: string, kernel: string, ordinal: number): string {
    return `${uri}#${kernel}#${ordinal}`;
}

/** The label of a test item: where its launch line is (1-based, as editors count). */
export function testLabel(test: DiscoveredTest): string {
    return `line ${test.launchLine + 1}`;
}

/** The description beside a test item's label: its flags (shortened), or "default launch". */
export function testDescription(test: DiscoveredTest, limit = 60): string {
    const flags = test.flags.trim();
    if (flags === '') {
        return 'default launch';
    }
    return flags.length <= limit ? flags : `${flags.slice(0, limit - 1)}…`;
}

/** The kernels of a discovery, in file order, each with its tests. */
export function byKernel(tests: DiscoveredTest[]): { kernel: string; tests: DiscoveredTest[] }[] {
    const out: { kernel: string; tests: DiscoveredTest[] }[] = [];
    for (const test of tests) {
        let group = out.find((g) => g.kernel === test.kernel);
        if (group === undefined) {
            group = { kernel: test.kernel, tests: [] };
            out.push(group);
        }
        group.tests.push(test);
    }
    return out;
}

/** What a failed test shows: the diff of the whole output (expected and actual, one line per
 * output line) at the first wrong expect line, and the wrong store's line when known. */
export interface FailureParts {
    message: string;
    expected: string;
    actual: string;
    /** 0-based line for the diff message (the first wrong expect line, else the launch line). */
    line: number;
    store: { line: number; message: string } | undefined;
}

export function failureParts(outcome: TestOutcome): FailureParts {
    const difference = outcome.difference;
    const message = difference === null ? outcome.message
        : `${outcome.kernel}: expected ${JSON.stringify(difference.expected)}, got ${JSON.stringify(difference.got)}`;
    const store = outcome.writtenBy === null ? undefined : {
        line: outcome.writtenBy.line, message: `The first wrong value was stored here: ${outcome.message}`,
    };
    return {
        message, expected: outcome.expected.join('\n'), actual: outcome.actual.join('\n'),
        line: difference?.line ?? outcome.launchLine, store,
    };
}

/** The debugger's launch configuration for a test: its kernel with the test's launch flags. */
export function debugConfiguration(program: string, test: DiscoveredTest): {
    type: string; request: string; name: string; program: string; kernel: string; args: string[];
    stopOnEntry: boolean;
} {
    return {
        type: 'wave', request: 'launch', name: `Debug test ${test.kernel} (line ${test.launchLine + 1})`,
        program, kernel: test.kernel, args: test.args, stopOnEntry: false,
    };
}
