-- WAVE GPU assembly: *.wave files.
vim.filetype.add({ extension = { wave = 'wave' } })
