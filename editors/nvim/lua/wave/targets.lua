-- The backends of :LspWaveEmit and the filetype that highlights each one's text.
-- GENERATED from wave_lsp/isa by `python -m wave_lsp.generate.backend_lists`: do not edit.
return { ptx = 'asm', hip = 'cpp', metal = 'cpp', sycl = 'cpp' }
