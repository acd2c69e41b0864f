// The backends, their titles and the language that highlights their text.
// GENERATED from wave_lsp/isa by `python -m wave_lsp.generate.backend_lists`: do not edit.
export const TARGETS = {
    ptx: { title: 'PTX', language: 'ptx' },
    hip: { title: 'HIP', language: 'cpp' },
    metal: { title: 'Metal', language: 'cpp' },
    sycl: { title: 'SYCL', language: 'cpp' },
} as const;
