/**
 * Kernel tests in VS Code's Testing view: a `TestController` whose items are the workspace's
 * `.wave` files → their kernels → each kernel's tests (a launch line with expect lines), found
 * by the server (`wave-lsp.discoverTests`, for open documents on their unsaved text) and found
 * again when a file or an open document changes. Each item has its range, so the editor shows
 * the run icons in the gutter as for other languages.
 *
 * The Run profile runs tests through `wave-lsp.test` (one at a time, stopping at a
 * cancellation); a failure is a `TestMessage.diff` of the expected and the actual output at the
 * first wrong expect line, plus a message at the store that wrote the first wrong value. The
 * Debug profile starts the kernel debugger (debug type `wave`) on the test's launch, then runs
 * the test and reports it when the session ends.
 *
 * The server is the one source of a test's outcome: it tests a document again after each edit
 * and says the outcome on the test's lens (`✓ passed`, `✕ failed: …`). Each outcome lens the
 * client receives that differs from what the Testing view shows is reported to it as well
 * (`lensOutcome`), so the gutter icon and the lens never disagree.
 */
import * as vscode from 'vscode';
import {
    byKernel, debugConfiguration, DiscoveredTest, Discovery, failureParts, fileId, kernelId, testDescription,
    testId, testLabel, TestOutcome, TestRunAnswer, WireRange,
} from './testModel';
import { DEBUG_MOMENT_COMMAND } from './debugConfig';
import { DISCOVER_TESTS as DISCOVER, TEST } from './generated/extensions';

type Execute = (command: string, args: unknown[]) => Promise<unknown>;

const EXCLUDE = '{**/node_modules/**,**/.git/**,**/.venv/**,**/venv/**}';
const MAX_FILES = 2000;
const REDISCOVER_MS = 400;

function toRange(range: WireRange): vscode.Range {
    return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

export class KernelTests implements vscode.Disposable {
    readonly controller: vscode.TestController;
    private readonly tests = new Map<string, { uri: vscode.Uri; test: DiscoveredTest }>();
    private readonly timers = new Map<string, NodeJS.Timeout>();
    /** test id -> the outcome the Testing view shows ("passed", or the failure's message) */
    private readonly shown = new Map<string, string>();
    private readonly disposables: vscode.Disposable[] = [];

    /** `execute` runs a command (starting the server if it must: running a test is the user's
     *  request); `discovery` runs one only on a server that runs (discovery is background work). */
    constructor(private readonly execute: Execute, private readonly log: vscode.OutputChannel,
        private readonly discovery: Execute = execute) {
        const controller = vscode.tests.createTestController('wave.kernelTests', 'WAVE Kernel Tests');
        this.controller = controller;
        controller.resolveHandler = async (item) => {
            if (item === undefined) {
                await this.discoverWorkspace();
            }
        };
        controller.refreshHandler = () => this.discoverWorkspace();
        controller.createRunProfile('Run', vscode.TestRunProfileKind.Run,
            (request, token) => this.run(request, token, false), true);
        controller.createRunProfile('Debug', vscode.TestRunProfileKind.Debug,
            (request, token) => this.run(request, token, true), true);
        const watcher = vscode.workspace.createFileSystemWatcher('**/*.wave');
        this.disposables.push(
            controller, watcher,
            watcher.onDidCreate((uri) => this.later(uri)),
            watcher.onDidChange((uri) => this.later(uri)),
            watcher.onDidDelete((uri) => this.remove(uri)),
            vscode.workspace.onDidChangeTextDocument((event) => {
                if (event.document.languageId === 'wave' && event.contentChanges.length > 0) {
                    this.later(event.document.uri);
                }
            }),
            vscode.workspace.onDidOpenTextDocument((document) => {
                if (document.languageId === 'wave') {
                    this.later(document.uri);
                }
            }),
        );
    }

    /** Every `.wave` file of the workspace, discovered (at most MAX_FILES). */
    async discoverWorkspace(): Promise<void> {
        const files = await vscode.workspace.findFiles('**/*.wave', EXCLUDE, MAX_FILES);
        for (const uri of files) {
            await this.discover(uri);
        }
    }

    /** The tests of one file again, soon (edits come in bursts). */
    private later(uri: vscode.Uri): void {
        if (uri.scheme !== 'file' && uri.scheme !== 'untitled') {
            return;
        }
        const key = uri.toString();
        clearTimeout(this.timers.get(key));
        this.timers.set(key, setTimeout(() => {
            this.timers.delete(key);
            void this.discover(uri);
        }, REDISCOVER_MS));
    }

    private remove(uri: vscode.Uri): void {
        this.controller.items.delete(fileId(uri.toString()));
        for (const key of [...this.tests.keys()]) {
            if (key.startsWith(`${uri.toString()}#`)) {
                this.tests.delete(key);
            }
        }
    }

    /** Asks the server for the tests of `uri` and puts them into the tree. */
    async discover(uri: vscode.Uri): Promise<void> {
        let found: Discovery | undefined;
        try {
            found = await this.discovery(DISCOVER, [uri.toString()]) as Discovery | undefined;
        } catch (error) {
            this.log.appendLine(`Discovering the kernel tests of ${uri.fsPath} failed: ${String(error)}`);
            return;
        }
        if (found === undefined || found === null || !Array.isArray(found.tests)) {
            return;
        }
        const key = uri.toString();
        for (const id of [...this.tests.keys()].filter((id) => id.startsWith(`${key}#`))) {
            this.tests.delete(id);
        }
        if (found.tests.length === 0) {
            this.controller.items.delete(fileId(key));
            return;
        }
        // the items that exist are kept (and with them their place, state and expansion)
        const reuse = (collection: vscode.TestItemCollection, id: string, label: string) =>
            collection.get(id) ?? this.controller.createTestItem(id, label, uri);
        const file = reuse(this.controller.items, fileId(key), vscode.workspace.asRelativePath(uri));
        const kernels: vscode.TestItem[] = [];
        for (const group of byKernel(found.tests)) {
            const kernel = reuse(file.children, kernelId(key, group.kernel), group.kernel);
            const first = group.tests[0];
            kernel.range = toRange(first.kernelRange ?? first.range);
            const items: vscode.TestItem[] = [];
            for (const test of group.tests) {
                const id = testId(key, test.kernel, test.ordinal);
                const item = reuse(kernel.children, id, testLabel(test));
                item.label = testLabel(test);
                item.range = toRange(test.range);
                item.description = testDescription(test);
                items.push(item);
                this.tests.set(id, { uri, test });
            }
            kernel.children.replace(items);
            kernels.push(kernel);
        }
        file.children.replace(kernels);
        this.controller.items.add(file);
    }

    /** The test items (leaves) of a request: every test when it names none. */
    private leaves(request: vscode.TestRunRequest): vscode.TestItem[] {
        const out: vscode.TestItem[] = [];
        const excluded = new Set((request.exclude ?? []).map((item) => item.id));
        const walk = (item: vscode.TestItem) => {
            if (excluded.has(item.id)) {
                return;
            }
            if (this.tests.has(item.id)) {
                out.push(item);
            }
            item.children.forEach(walk);
        };
        if (request.include === undefined) {
            this.controller.items.forEach(walk);
        } else {
            request.include.forEach(walk);
        }
        return out;
    }

    private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken, debug: boolean): Promise<void> {
        const run = this.controller.createTestRun(request);
        const items = this.leaves(request);
        items.forEach((item) => run.enqueued(item));
        try {
            for (const item of items) {
                if (token.isCancellationRequested) {
                    run.skipped(item);
                    continue;
                }
                const entry = this.tests.get(item.id);
                if (entry === undefined) {
                    continue;
                }
                run.started(item);
                if (debug && !(await this.debugSession(entry.uri, entry.test, token))) {
                    run.errored(item, new vscode.TestMessage('The kernel debugger did not start (see the WAVE output).'));
                    continue;
                }
                const started = Date.now();
                const outcome = await this.runOne(entry.uri, entry.test);
                this.report(run, item, entry.uri, outcome, Date.now() - started);
            }
        } finally {
            run.end();
        }
    }

    /** An outcome lens of the server (`✓ passed`, `✕ failed: MESSAGE`, `✕ MESSAGE`) on the test
     *  at `launchLine` of `kernel` in `uri`: reported to the Testing view when it shows
     *  another outcome for that test. */
    lensOutcome(uri: string, kernel: string, launchLine: number, title: string): void {
        const entry = [...this.tests.entries()].find(([, e]) => e.uri.toString() === uri
            && e.test.kernel === kernel && e.test.launchLine === launchLine);
        const item = entry && this.findItem(entry[0]);
        const passed = title.startsWith('✓');
        const said = passed ? 'passed' : title.replace(/^✕\s*(failed:\s*)?/, '');
        if (entry === undefined || item === undefined || this.shown.get(entry[0]) === said) {
            return;
        }
        const run = this.controller.createTestRun(new vscode.TestRunRequest([item]), 'the server tested the edit', false);
        if (passed) {
            run.passed(item);
        } else {
            const message = new vscode.TestMessage(said);
            message.location = new vscode.Location(entry[1].uri, new vscode.Position(launchLine, 0));
            run.failed(item, message);
        }
        run.end();
        this.shown.set(entry[0], said);
    }

    private findItem(id: string): vscode.TestItem | undefined {
        let found: vscode.TestItem | undefined;
        const walk = (item: vscode.TestItem) => {
            if (found === undefined) {
                if (item.id === id) {
                    found = item;
                } else {
                    item.children.forEach(walk);
                }
            }
        };
        this.controller.items.forEach(walk);
        return found;
    }

    /** Runs one test through the server; undefined when it gave no answer. */
    private async runOne(uri: vscode.Uri, test: DiscoveredTest): Promise<TestOutcome | undefined> {
        try {
            const answer = await this.execute(TEST, [uri.toString(), test.kernel, test.launchLine]) as TestRunAnswer | undefined;
            return answer?.tests?.[0];
        } catch (error) {
            this.log.appendLine(`Running the kernel test ${test.kernel} of ${uri.fsPath} failed: ${String(error)}`);
            return undefined;
        }
    }

    private report(run: vscode.TestRun, item: vscode.TestItem, uri: vscode.Uri,
        outcome: TestOutcome | undefined, duration: number): void {
        this.shown.set(item.id, outcome === undefined ? '' : outcome.passed ? 'passed' : outcome.message);
        if (outcome === undefined) {
            run.errored(item, new vscode.TestMessage('wave-lsp did not run the test (see the WAVE output).'), duration);
        } else if (outcome.passed) {
            run.passed(item, duration);
        } else if (outcome.status === 'failed') {
            const parts = failureParts(outcome);
            const diff = vscode.TestMessage.diff(parts.message, parts.expected, parts.actual);
            diff.location = new vscode.Location(uri, new vscode.Position(parts.line, 0));
            const messages = [diff];
            if (parts.store !== undefined) {
                const store = new vscode.TestMessage(momentMessage(parts.store.message, outcome.debugAtMoment));
                store.location = new vscode.Location(uri, new vscode.Position(parts.store.line, 0));
                messages.push(store);
            }
            run.failed(item, messages, duration);
        } else {
            const message = new vscode.TestMessage(outcome.message);
            message.location = new vscode.Location(uri, new vscode.Position(outcome.launchLine, 0));
            run.errored(item, message, duration);
        }
    }

    /** Debugs the test's launch in the kernel debugger; resolves when the session has ended
     * (false when it did not start). */
    private async debugSession(uri: vscode.Uri, test: DiscoveredTest, token: vscode.CancellationToken): Promise<boolean> {
        const config = debugConfiguration(uri.fsPath, test);
        const listeners: vscode.Disposable[] = [];
        const ended = new Promise<void>((resolve) => {
            listeners.push(vscode.debug.onDidTerminateDebugSession((session) => {
                if (session.configuration.name === config.name) {
                    resolve();
                }
            }));
            listeners.push(token.onCancellationRequested(() => {
                const session = vscode.debug.activeDebugSession;
                if (session?.configuration.name === config.name) {
                    void vscode.debug.stopDebugging(session);
                }
            }));
        });
        try {
            if (!await vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(uri), config)) {
                return false;
            }
            await ended;
            return true;
        } finally {
            listeners.forEach((listener) => { listener.dispose(); });
        }
    }

    dispose(): void {
        this.timers.forEach((timer) => clearTimeout(timer));
        this.disposables.forEach((d) => void d.dispose());
    }
}

/** A message with a "Debug at this moment" link (the server's launch configuration of the
 * moment the wrong value was written), or the plain text without one. */
function momentMessage(text: string, config: { [key: string]: unknown } | undefined): string | vscode.MarkdownString {
    if (config === undefined) {
        return text;
    }
    const link = `command:${DEBUG_MOMENT_COMMAND}?${encodeURIComponent(JSON.stringify([config]))}`;
    const markdown = new vscode.MarkdownString(`${text} — [Debug at this moment](${link})`);
    markdown.isTrusted = { enabledCommands: [DEBUG_MOMENT_COMMAND] };
    return markdown;
}
