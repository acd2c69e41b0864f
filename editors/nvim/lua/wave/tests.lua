--- Kernel tests from Neovim: `:LspWaveTest [file|KERNEL]` runs the buffer's kernel tests (a
--- launch line `; wave-lsp run: FLAGS` directly followed by `; wave-lsp expect: TEXT` lines)
--- through the server's `wave-lsp.test` command and fills the quickfix list with the failures:
--- one entry per failed test, at its first wrong expect line (or its launch line when the test
--- could not run), saying what was expected, what the run printed and which store, in which
--- lane, wrote the first wrong value. The quickfix window opens when there are failures.
---
---   :LspWaveTest          every test of the buffer (the same as `:LspWaveTest file`)
---   :LspWaveTest KERNEL   the tests of one kernel
---
--- b:wave_last_test holds the server's answer. The server also shows the outcome as code lenses
--- (`▶ Test`, `✓ passed` / `✕ failed: …`) and the wrong expectations as diagnostics.

local M = {}

--- The quickfix entries of the failed tests of a `wave-lsp.test` answer for `bufnr`.
function M.quickfix_items(bufnr, answer)
  local items = {}
  for _, test in ipairs(answer.tests or {}) do
    if not test.passed then
      local diff = test.difference
      local text
      if diff ~= vim.NIL and diff ~= nil then
        text = string.format('FAIL kernel %s: expected %q, got %q', test.kernel, diff.expected,
          diff.got)
        if test.writtenBy ~= vim.NIL and test.writtenBy ~= nil then
          text = string.format('%s (%s)', text, test.message)
        end
      else
        text = string.format('%s kernel %s: %s', test.status == 'failed' and 'FAIL' or 'ERROR',
          test.kernel, test.message)
      end
      local line = (diff ~= vim.NIL and diff ~= nil) and diff.line or test.launchLine
      items[#items + 1] = { bufnr = bufnr, lnum = line + 1, col = 1, text = text,
                            type = test.status == 'failed' and 'E' or 'W' }
    end
  end
  return items
end

--- How the tests went, `test: 1 passed, 1 failed` (the quickfix title adds `wave-lsp `).
local function summary(answer)
  return string.format('test: %d passed, %d failed', answer.passed or 0, answer.failed or 0)
end

--- `:LspWaveTest [file|KERNEL]` on `bufnr`; `exec(command, arguments, on_result)` runs a server
--- command (commands.lua's), `notify(message, level)` reports.
function M.run(bufnr, what, exec, notify)
  local kernel = (what == nil or what == '' or what == 'file') and vim.NIL or what
  exec('wave-lsp.test', { vim.uri_from_bufnr(bufnr), kernel, vim.NIL }, function(answer)
    if type(answer) ~= 'table' or type(answer.tests) ~= 'table' then
      return -- the server said why in a message
    end
    vim.b[bufnr].wave_last_test = answer
    if #answer.tests == 0 then
      notify(kernel == vim.NIL and 'no kernel tests in this buffer (a launch line followed by '
        .. '`; wave-lsp expect:` lines)' or ('kernel ' .. kernel .. ' has no tests'),
        vim.log.levels.WARN)
    end
    local items = M.quickfix_items(bufnr, answer)
    vim.fn.setqflist({}, ' ', { title = 'wave-lsp ' .. summary(answer), items = items })
    if #answer.tests > 0 then
      notify(summary(answer),
        #items > 0 and vim.log.levels.WARN or vim.log.levels.INFO)
    end
    vim.cmd('botright cwindow')
    vim.api.nvim_exec_autocmds('User', { pattern = 'WaveTestDone', modeline = false,
                                         data = { bufnr = bufnr, answer = answer } })
  end)
end

--- Completion of `:LspWaveTest`: `file` and the buffer's kernels.
function M.complete(kernel_names)
  return function(lead)
    local out = {}
    for _, word in ipairs(vim.list_extend({ 'file' }, kernel_names())) do
      if vim.startswith(word, lead) then
        out[#out + 1] = word
      end
    end
    return out
  end
end

return M
