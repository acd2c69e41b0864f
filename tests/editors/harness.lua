-- Loaded by every Neovim test script (after init.lua, the user configuration): helpers to wait
-- for the server and to hand a JSON result back to pytest.

H = {}

--- Wait up to `ms` for `cond()`, or fail naming `what`.
function H.wait(what, cond, ms)
  if not vim.wait(ms or 20000, cond, 20) then
    error('timed out waiting for ' .. what, 2)
  end
end

--- The wave-lsp client attached to `bufnr` (waits for it).
function H.client(bufnr)
  local client
  H.wait('wave-lsp to attach', function()
    client = vim.lsp.get_clients({ bufnr = bufnr, name = 'wave' })[1]
    return client ~= nil and client.initialized
  end)
  return client
end

--- Open `path` in the current window and return its buffer.
function H.open(path)
  vim.cmd.edit(vim.fn.fnameescape(path))
  return vim.api.nvim_get_current_buf()
end

--- Open `path` and wait for wave-lsp to attach to it; returns the buffer.
function H.attach(path)
  local bufnr = H.open(path)
  H.client(bufnr)
  return bufnr
end

--- Diagnostics of `bufnr` from wave-lsp, once at least `count` have arrived.
function H.diagnostics(bufnr, count)
  H.wait('diagnostics', function()
    return #vim.diagnostic.get(bufnr) >= (count or 1)
  end)
  return vim.diagnostic.get(bufnr)
end

--- A synchronous request through the real client; returns the result (fails on an error).
function H.request(bufnr, method, params)
  local client = H.client(bufnr)
  local response = client:request_sync(method, params, 20000, bufnr)
  assert(response, method .. ': no response')
  assert(not response.err, method .. ': ' .. vim.inspect(response.err))
  return response.result
end

--- A request at (row, col) (1-based row, 0-based byte column) of the current window's buffer,
--- with the position made by Neovim itself.
function H.request_at(bufnr, row, col, method)
  vim.api.nvim_win_set_cursor(0, { row, col })
  return H.request(bufnr, method, vim.lsp.util.make_position_params(0, 'utf-8'))
end

--- Run the test body `fn`; its return value is written as JSON to $WAVE_RESULT.
function H.run(fn)
  local ok, result = xpcall(fn, debug.traceback)
  local out = ok and { ok = true, result = result } or { ok = false, error = result }
  local file = assert(io.open(assert(os.getenv('WAVE_RESULT')), 'w'))
  file:write(vim.json.encode(out))
  file:close()
  for _, client in ipairs(vim.lsp.get_clients()) do
    client:stop(true)
  end
  vim.cmd('qall!')
end
