--- The kernel at the cursor as the server decides it: `wave-lsp.kernelAt [uri, line]` answers the
--- kernel whose `.kernel` … `.end` holds the line (`{ kernel, line, endLine }`, 0-based), or null
--- between kernels. One synchronous request to the buffer's wave-lsp client.

local M = {}

local TIMEOUT_MS = 2000

--- The wave-lsp client attached to `bufnr`, or nil.
function M.client(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = 'wave' })[1]
end

--- The name of the kernel at 0-based `line` of `bufnr` (default: the cursor's), or nil: between
--- kernels, or when no wave-lsp client is attached or it does not answer in time.
function M.name(bufnr, line)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  line = line or (vim.api.nvim_win_get_cursor(0)[1] - 1)
  local client = M.client(bufnr)
  if client == nil then
    return nil
  end
  local answer = client:request_sync('workspace/executeCommand', {
    command = 'wave-lsp.kernelAt', arguments = { vim.uri_from_bufnr(bufnr), line },
  }, TIMEOUT_MS, bufnr)
  local result = answer and answer.result
  return type(result) == 'table' and type(result.kernel) == 'string' and result.kernel or nil
end

return M
