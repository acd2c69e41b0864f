// The server's protocol extensions: commands, notifications, their arguments and results.
// GENERATED from wave_lsp/server/extensions.py by `python -m wave_lsp.generate.ts_types`: do not edit.

/** `ide.who_wrote.answer_json` (value, line, lane, wave, workgroup, step, iteration, instruction, inputs; `input` instead of a line for a value from outside the run) with the document's URI and version. */
export interface WhoWrote {
    uri: string;
    version: number | null;
    value: number | null;
    line: number | null;
    inputs: { [key: string]: unknown }[];
    [field: string]: unknown;
}

/** A kernel, its launch line (null: the first, or the default launch) and the value: `{"address": A}` (a device word after the run) or `{"register": "r4", "lane": T, "line": L}` (thread T's r4 at 0-based line L). */
export type WhoWroteArgs = [uri: string, kernel: string | null, launchLine: number | null, target: { [key: string]: unknown }];

export interface DiscoveredTest {
    kernel: string;
    launchLine: number;
    ordinal: number;
    flags: string;
    args: string[];
    range: WireRange;
    kernelRange: WireRange | null;
}

export interface Discovery {
    uri: unknown;
    version?: number | null;
    tests: DiscoveredTest[];
    error?: string;
}

export interface Difference {
    line: number;
    expected: string;
    got: string;
    what: string;
}

export interface Position {
    line: number;
    character: number;
}

export interface TestOutcome {
    kernel: string;
    launchLine: number;
    passed: boolean;
    status: 'passed' | 'failed' | 'error' | 'cancelled';
    message: string;
    expected: string[];
    actual: string[];
    actualLines: number;
    exitStatus: number | null;
    stderr: string;
    difference: Difference | null;
    writtenBy: WrittenBy | null;
    range: WireRange;
    debugAtMoment?: { [key: string]: unknown };
}

export interface TestRun {
    uri: unknown;
    version?: number | null;
    tests: TestOutcome[];
    passed: number;
    failed: number;
    error?: string;
}

/** An LSP range in the client's position encoding. */
export interface WireRange {
    start: Position;
    end: Position;
}

export interface WrittenBy {
    line: number;
    lane: number | null;
}

/** A witness's launch run: `shown` when it showed the race (or barrier error), `message`. */
export interface Replayed {
    uri: string;
    launch: string;
    shown: boolean;
    message: string;
    [field: string]: unknown;
}

/** `wave-lsp verify --json`'s kernel entry (`ide.verify.Verification.as_dict`), URI added. */
export interface Verification {
    uri: string;
    kernel: string;
    verdict: string;
    witness: { [key: string]: unknown } | null;
    debugAtMoment?: { [key: string]: unknown };
    [field: string]: unknown;
}

export type DocumentArgs = [uri: string];

export type KernelArgs = [uri: string, kernel: string];

/** A kernel and one of its launch lines (0-based; null: its first, or the default launch). */
export type LaunchArgs = [uri: string, kernel: string | null, launchLine?: number | null];

export type ClearArgs = [uri: string, kernel?: string | null];

export type DumpArgs = [uri: string, kernel: string, launchLine: number | null, dumpIndex: number, start: number, count: number, version?: number | null];

export type EmitArgs = [uri: string, target: string, compat?: 'upstream' | 'none' | null];

export type KernelAtArgs = [uri: string, line: number];

/** A command that could not act: why (also shown as a warning). */
export interface Refusal {
    uri: unknown;
    kernel: unknown;
    ok: false;
    status: 'invalid-request';
    message: string;
}

export interface Cleared {
    uri: string;
    cleared: string[];
}

/** `ide.run_results.KernelRun.to_json` with the document's URI. */
export interface KernelRun {
    uri: string;
    kernel: string;
    version: number | null;
    launchLine: number | null;
    status: string;
    ok: boolean;
    message: string;
    summary: string;
    lines: { [key: string]: unknown }[];
    [field: string]: unknown;
}

export interface DumpWindow {
    uri: string;
    version: number | null;
    kernel: string;
    dump: number;
    start: number;
    count: number;
    values: string[];
    addresses: unknown[];
    ok: boolean;
    [field: string]: unknown;
}

/** A profiled line: `line` 1-based, `level` 1 (cool) .. 5 (hottest), `share` of the cost. */
export interface HeatLine {
    line: number;
    level: number;
    share: number;
}

/** `ide.profile_session.KernelProfileRun.to_json` with the document's URI. */
export interface KernelProfile {
    uri: string;
    kernel: string;
    version: number | null;
    status: string;
    summary: string;
    heat: HeatLine[];
    [field: string]: unknown;
}

/** `emu.wave_widths` comparison's JSON with the document's URI. */
export interface Portability {
    uri: string;
    kernel: string;
    widths: number[];
    portable: boolean;
    lines: { [key: string]: unknown }[];
    [field: string]: unknown;
}

/** `ide.gpu.run_on_gpu`'s outcome (`same`: the device memory is the emulator's). */
export interface GpuRun {
    ok: boolean;
    message: string;
    same?: boolean;
    [field: string]: unknown;
}

/** `ide.resources` figures of the kernel, with the vendor compilers' (`vendor`). */
export interface KernelResources {
    kernel: string;
    registersUsed: number;
    workgroupSize: number[];
    vendor: { [key: string]: unknown }[];
    [field: string]: unknown;
}

/** `ide.assemble.assemble_report`: `path` written, or why not, or `error` at 0-based `line`. */
export interface Assembled {
    uri?: string;
    size?: number;
    sha256?: string;
    path?: string | null;
    not_written?: string;
    error?: string;
    line?: number;
    [field: string]: unknown;
}

export interface Emitted {
    uri: string;
    target: string;
    map?: [number, number][];
    text?: string;
    error?: string;
    [field: string]: unknown;
}

export interface Encoding {
    uri: string;
    text: string;
}

/** A kernel's `.kernel` line and last line (its `.end`, else its last statement), 0-based. */
export interface KernelPlace {
    kernel: string;
    line: number;
    endLine: number;
}

/** The engine that runs kernels, and why: the initialize result's `experimental[CAPABILITY]`. */
export interface Engine {
    engine: 'native core' | 'numpy engine';
    reason: string;
}

export interface RunsChanged {
    uri: string;
}

export interface ProfileChanged {
    uri: string;
    version: number | null;
    profiles: KernelProfile[];
}

export const RUN = 'wave-lsp.run';
export const CLEAR = 'wave-lsp.clear';
export const DUMP = 'wave-lsp.dump';
export const PROFILE = 'wave-lsp.profile';
export const CLEAR_PROFILE = 'wave-lsp.clearProfile';
export const TEST = 'wave-lsp.test';
export const DISCOVER_TESTS = 'wave-lsp.discoverTests';
export const CHECK_PORTABILITY = 'wave-lsp.checkPortability';
export const RUN_ON_GPU = 'wave-lsp.runOnGpu';
export const KERNEL_RESOURCES = 'wave-lsp.kernelResources';
export const ASSEMBLE = 'wave-lsp.assemble';
export const EMIT = 'wave-lsp.emit';
export const ENCODING = 'wave-lsp.encoding';
export const KERNEL_AT = 'wave-lsp.kernelAt';
export const WHO_WROTE = 'wave-lsp.whoWrote';
export const VERIFY = 'wave-lsp.verify';
export const REPLAY_WITNESS = 'wave-lsp.replayWitness';
export const RUNS_CHANGED = 'wave-lsp/runsChanged';
export const PROFILE_CHANGED = 'wave-lsp/profileChanged';
export const WORKSPACE_TRUSTED = 'wave-lsp/workspaceTrusted';
/** The initialize result's `capabilities.experimental` key of its `Engine`. */
export const ENGINE_CAPABILITY = 'waveLspEngine';

/** Each command's arguments and the answers it may give. */
export interface Commands {
    'wave-lsp.run': { arguments: LaunchArgs; result: KernelRun | Refusal };
    'wave-lsp.clear': { arguments: ClearArgs; result: Cleared };
    'wave-lsp.dump': { arguments: DumpArgs; result: DumpWindow | Refusal };
    'wave-lsp.profile': { arguments: LaunchArgs; result: KernelProfile | Refusal };
    'wave-lsp.clearProfile': { arguments: ClearArgs; result: Cleared };
    'wave-lsp.test': { arguments: LaunchArgs; result: TestRun };
    'wave-lsp.discoverTests': { arguments: DocumentArgs; result: Discovery };
    'wave-lsp.checkPortability': { arguments: KernelArgs; result: Portability | Refusal };
    'wave-lsp.runOnGpu': { arguments: KernelArgs; result: GpuRun };
    'wave-lsp.kernelResources': { arguments: KernelArgs; result: KernelResources | null };
    'wave-lsp.assemble': { arguments: DocumentArgs; result: Assembled | null };
    'wave-lsp.emit': { arguments: EmitArgs; result: Emitted | null };
    'wave-lsp.encoding': { arguments: DocumentArgs; result: Encoding | null };
    'wave-lsp.kernelAt': { arguments: KernelAtArgs; result: KernelPlace | null };
    'wave-lsp.whoWrote': { arguments: WhoWroteArgs; result: WhoWrote | Refusal };
    'wave-lsp.verify': { arguments: KernelArgs; result: Verification | Refusal };
    'wave-lsp.replayWitness': { arguments: KernelArgs; result: Replayed | Refusal };
}

/** Each notification's parameters (null: none). */
export interface Notifications {
    'wave-lsp/runsChanged': RunsChanged;
    'wave-lsp/profileChanged': ProfileChanged;
    'wave-lsp/workspaceTrusted': null;
}

export type CommandName = keyof Commands;
export type CommandArguments<C extends CommandName> = Commands[C]['arguments'];
export type CommandResult<C extends CommandName> = Commands[C]['result'];
