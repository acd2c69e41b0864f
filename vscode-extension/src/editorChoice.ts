/**
 * The choice of the `.wave` editor a command acts on (waveEditors.ts), free of VS Code so that it
 * is unit-tested without it.
 */

/** What the choice needs of an editor. */
export interface EditorLike {
    document: { languageId: string; isClosed: boolean; uri: { toString(): string } };
}

/** The editor to act on: the active `.wave` editor; else the last active `.wave` editor (when
 * its document is still open: `visible` says if it is on screen); else the first visible one. */
export function chooseWaveEditor<E extends EditorLike>(active: E | undefined, last: E | undefined,
    visible: readonly E[]): { editor: E; visible: boolean } | undefined {
    const wave = (e: E | undefined): e is E => e !== undefined && e.document.languageId === 'wave' && !e.document.isClosed;
    if (wave(active)) {
        return { editor: active, visible: true };
    }
    if (wave(last)) {
        const shown = visible.find((e) => e.document.uri.toString() === last.document.uri.toString());
        return shown !== undefined ? { editor: shown, visible: true } : { editor: last, visible: false };
    }
    const first = visible.find(wave);
    return first !== undefined ? { editor: first, visible: true } : undefined;
}
