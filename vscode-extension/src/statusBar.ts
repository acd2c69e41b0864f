/**
 * The status bar item: the server's state, the engine it runs kernels on (engine.ts) and the
 * compatibility mode; a click opens the log.
 */
import * as vscode from 'vscode';

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed' | 'missing' | 'installing';

const ICONS: Record<ServerState, string> = {
    starting: '$(sync~spin)',
    installing: '$(sync~spin)',
    running: '$(check)',
    stopped: '$(circle-slash)',
    failed: '$(error)',
    missing: '$(warning)',
};

const MEANING: Record<ServerState, string> = {
    starting: 'starting',
    installing: 'installing the bundled server',
    running: 'running',
    stopped: 'stopped',
    failed: 'failed to start: see the log',
    missing: 'not installed: see the notification or the log',
};

export class ServerStatus implements vscode.Disposable {
    private readonly item: vscode.StatusBarItem;
    private state: ServerState = 'starting';
    private detail = '';
    private engine = '';

    constructor() {
        this.item = vscode.window.createStatusBarItem('wave.server', vscode.StatusBarAlignment.Left, 0);
        this.item.name = 'WAVE Language Server';
        this.item.command = 'wave.showServerLog';
        this.render();
        this.item.show();
    }

    set(state: ServerState, detail = ''): void {
        this.state = state;
        this.detail = detail;
        if (state !== 'running') {
            this.engine = '';
        }
        this.render();
    }

    /** The running server's engine line (engine.ts), '' for none. */
    setEngine(line: string | undefined): void {
        this.engine = line ?? '';
        this.render();
    }

    /** Re-read the compatibility mode (after a settings change). */
    render(): void {
        const compat = vscode.workspace.getConfiguration('wave').get<string>('compat', 'none');
        const mode = compat === 'wave-asm' ? ' · wave-asm' : '';
        this.item.text = `${ICONS[this.state]} WAVE${mode}`;
        const lines = [
            `wave-lsp: ${MEANING[this.state]}`,
            this.detail,
            this.engine,
            `Encoding: ${compat === 'wave-asm' ? "wave-asm's exact bytes (compat)" : 'specification'}`,
            'Click to show the server log',
        ];
        this.item.tooltip = lines.filter((l) => l !== '').join('\n');
        this.item.backgroundColor = this.state === 'failed' || this.state === 'missing'
            ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    }

    dispose(): void {
        this.item.dispose();
    }
}
