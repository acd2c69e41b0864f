--- How wave-lsp's diagnostics are shown in Neovim beyond its defaults: the lines a run did not
--- execute (R006, a hint tagged Unnecessary) are greyed, never written beside the line. Neovim's
--- `virtual_text = true` writes every severity, hints included, so a kernel with an early `halt`
--- had a "not executed in this run" on each line after it.
---
--- The wave client's namespaces get a `virtual_text` option that follows the global one (what
--- the user set with `vim.diagnostic.config`, read each time diagnostics are shown) and leaves
--- out the diagnostics tagged Unnecessary. A user's own namespace setting wins: it is set only
--- where the namespace has none.

local M = {}

--- The user's global `virtual_text`, resolved, without the Unnecessary diagnostics.
local function virtual_text(namespace, bufnr)
  local global = vim.diagnostic.config().virtual_text
  if type(global) == 'function' then
    global = global(namespace, bufnr)
  end
  if not global then
    return false
  end
  local opts = type(global) == 'table' and vim.deepcopy(global) or {}
  local format = opts.format
  opts.format = function(diagnostic)
    if diagnostic._tags and diagnostic._tags.unnecessary then
      return nil
    end
    if format then
      return format(diagnostic)
    end
    return diagnostic.message
  end
  return opts
end

--- Configure the namespaces of `client` (pushed and pulled diagnostics).
function M.attach(client)
  for _, pulled in ipairs({ false, true }) do
    local namespace = vim.lsp.diagnostic.get_namespace(client.id, pulled)
    if vim.diagnostic.config(nil, namespace).virtual_text == nil then
      vim.diagnostic.config({ virtual_text = virtual_text }, namespace)
    end
  end
end

return M
