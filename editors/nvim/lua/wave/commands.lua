--- Buffer-local commands for wave-lsp, in the nvim-lspconfig style: each calls one of the
--- server's `workspace/executeCommand` commands with `client:exec_cmd`.
---
---   :LspWaveRun [NAME]    run the kernel at the cursor (or NAME) with its first launch line
---                         (`; wave-lsp run: FLAGS`) or the default launch; with the cursor on a
---                         launch line, with that one. The kernel then re-runs on every edit.
---   :LspWaveClear [NAME]  clear the run results of one kernel, or of all kernels
---   :LspWaveAssemble      assemble the buffer (writes NAME.wbin beside the file)
---   :LspWaveEncoding      the encoded words of every line, in a split beside the source
---   :LspWaveEmit {ptx|hip|metal|sycl}
---                         what that vendor backend makes of the buffer (`wave-lsp.emit`), in a
---                         read-only split (filetype set; b:wave_emit_map holds the server's
---                         [generated line, source line] pairs); the cursor's instruction and
---                         its generated lines are highlighted in each other (wave.emit_map),
---                         and the split follows edits
---   :LspWavePortability [NAME]
---                         run the kernel at the cursor (or NAME) at every wave width of the
---                         configured targets and report the memory that differs
---   :LspWaveVerify[!] [NAME]
---                         prove the kernel at the cursor (or NAME) free of data races and
---                         divergent barriers (`wave-lsp.verify`): the verdict in its lens, a
---                         witness as a diagnostic on both accesses; with !, replay the
---                         kernel's witness in the emulator (`wave-lsp.replayWitness`)
---   :LspWaveDump [INDEX [START [COUNT]]]
---                         lines START.. (default 0, COUNT default 256, at most 4096) of dump
---                         INDEX (0-based in print order, default 0) of the latest run of the
---                         kernel at the cursor (`wave-lsp.dump`), in a read-only split, each
---                         value with its index and device address (b:wave_dump holds the
---                         answer); on a launch line, that line's run
---   :LspWaveTest [file|NAME]
---                         run the buffer's kernel tests (or NAME's) and fill the quickfix
---                         list with the failures (wave.tests)
---   :LspWaveProfile[!] [NAME]
---                         profile the kernel at the cursor (or NAME) as :LspWaveRun runs it
---                         (`wave-lsp.profile`): hints, hover, diagnostics and the heat view
---                         (wave.profile); it re-profiles on every edit. With !, clear the
---                         profiles of the buffer (or of NAME) instead
---   :LspWaveWhoWrote [THREAD | ADDRESS]
---                         who wrote the register at the cursor in THREAD (default 0), or the
---                         device word at ADDRESS (`wave-lsp.whoWrote`; wave.who_wrote): the
---                         cursor goes to the writer's line

local M = {}

-- `; wave-lsp run: FLAGS` (the pattern is generated from the server's one grammar)
local LAUNCH = require('wave.tool_comments').run

--- The names of the buffer's kernels, in order, with the line (1-based) of each `.kernel`.
local function kernels(bufnr)
  local out = {}
  for i, text in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    local name = text:match('^%s*%.kernel%s+([^%s;#]+)')
    if name then
      out[#out + 1] = { name = name, line = i }
    end
  end
  return out
end

--- The kernel the cursor is in, as the server says (`wave.kernel_at`); between kernels, the one
--- whose launch line the cursor is on, else the nearest one above, else the first; nil without
--- kernels.
local function kernel_at_cursor(bufnr)
  local here = require('wave.kernel_at').name(bufnr)
  if here then
    return here
  end
  local found = kernels(bufnr)
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local best = found[1]
  for _, kernel in ipairs(found) do
    if kernel.line <= row then
      best = kernel
    end
  end
  -- a launch line directly above a kernel belongs to that kernel
  local text = vim.api.nvim_buf_get_lines(bufnr, row - 1, row, false)[1] or ''
  if text:match(LAUNCH) then
    for _, kernel in ipairs(found) do
      if kernel.line > row then
        local between = vim.api.nvim_buf_get_lines(bufnr, row, kernel.line - 1, false)
        local only_comments = true
        for _, line in ipairs(between) do
          if not line:match('^%s*[;#]') and not line:match('^%s*$') then
            only_comments = false
          end
        end
        if only_comments then
          best = kernel
        end
        break
      end
    end
  end
  return best and best.name or nil
end

local function notify(message, level)
  require('wave.messages').notify('wave-lsp: ' .. message, level)
end

--- Run `command` with `arguments` on `client`; `on_result(result)` gets the answer.
local function exec(client, bufnr, command, arguments, on_result)
  client:exec_cmd({ title = command, command = command, arguments = arguments }, { bufnr = bufnr },
    function(err, result)
      if err then
        notify(command .. ' failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        return
      end
      if on_result then
        on_result(result)
      end
    end)
end

--- Ask for the buffer's code lenses now: `vim.lsp.codelens.refresh` sends nothing while its
--- last request is unanswered, whose answer may predate the run's end (then the new lenses
--- stayed undrawn). The server answers in order: the lenses drawn last are this answer's.
local function request_lenses(bufnr)
  local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr) }
  for _, c in ipairs(vim.lsp.get_clients({ bufnr = bufnr, method = 'textDocument/codeLens' })) do
    c:request('textDocument/codeLens', params, vim.lsp.codelens.on_codelens, bufnr)
  end
end

--- Ask the editor for the server's inlay hints and code lenses again (after a run or a clear).
local function refresh(bufnr)
  if vim.lsp.inlay_hint.is_enabled({ bufnr = bufnr }) then
    vim.lsp.inlay_hint.enable(false, { bufnr = bufnr })
    vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
  end
  request_lenses(bufnr)
end

--- The handler of `wave-lsp/runsChanged` (a run ended, or its results were cleared): Neovim 0.11
--- cannot be asked to refresh lenses; its `workspace/inlayHint/refresh` keeps the lines it drew
--- meanwhile, so the new values stayed undrawn: re-enabling the hints starts from none.
function M.runs_changed(_, params)
  local bufnr = params and params.uri and vim.uri_to_bufnr(params.uri)
  if not (bufnr and vim.api.nvim_buf_is_loaded(bufnr)) then
    return
  end
  if vim.lsp.inlay_hint.is_enabled({ bufnr = bufnr }) then
    vim.lsp.inlay_hint.enable(false, { bufnr = bufnr })
    vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
  end
  if vim.b[bufnr].wave_codelens ~= false
      and (vim.b[bufnr].wave_codelens ~= nil or vim.g.wave_codelens ~= false) then
    request_lenses(bufnr)
  end
end

--- The `wave-lsp.run` arguments for `:LspWaveRun [NAME]`: [uri, kernel, launch line or null],
--- the launch line being the cursor's (0-based) when it is a `; wave-lsp run:` comment.
local function run_arguments(bufnr, name)
  local kernel = name or kernel_at_cursor(bufnr)
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local text = vim.api.nvim_buf_get_lines(bufnr, row - 1, row, false)[1] or ''
  local launch = (name == nil and text:match(LAUNCH)) and row - 1 or vim.NIL
  return { vim.uri_from_bufnr(bufnr), kernel, launch }, kernel
end

--- The backends of `:LspWaveEmit` and the filetype that highlights each one's text (generated
--- from the backend table).
local TARGETS = require('wave.targets')

--- Show `text` in a read-only scratch buffer named `name`, in a vertical split on the right of
--- the source (reused), highlighted as `filetype` (default: WAVE syntax).
local function show_listing(name, text, filetype)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].bufhidden = 'wipe'
    vim.bo[buf].swapfile = false
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  if filetype then
    vim.bo[buf].filetype = filetype
  else
    vim.bo[buf].syntax = 'wave'
  end
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('rightbelow vertical sbuffer ' .. buf)
  else
    vim.api.nvim_set_current_win(win)
  end
  return buf
end

--- The lines of a `wave-lsp.dump` answer: a header, then each value with its index in the dump
--- and its device address (the server's `addresses`); `--dump-memory` rows show their own.
local function dump_lines(result)
  if result.kind == 'memory' or type(result.addresses) ~= 'table' then
    return result.values
  end
  local last = result.start + #result.values - 1
  local digits = math.max(#tostring(last), #'index')
  local out = { ('%' .. digits .. 's  %-10s  %s'):format('index', 'address', result.kind) }
  for i, value in ipairs(result.values) do
    out[#out + 1] = ('%' .. digits .. 'd  0x%08x  %s'):format(result.start + i - 1,
      result.addresses[i], value)
  end
  return out
end

local function complete_kernels(bufnr)
  return function(lead)
    local names = {}
    for _, kernel in ipairs(kernels(bufnr)) do
      if vim.startswith(kernel.name, lead) then
        names[#names + 1] = kernel.name
      end
    end
    return names
  end
end

--- Create the buffer-local commands for `client` on `bufnr` (the config's on_attach).
function M.attach(client, bufnr)
  local function create(name, fn, opts)
    vim.api.nvim_buf_create_user_command(bufnr, name, fn, opts)
  end

  -- A command on one kernel (NAME, or the one at the cursor) sent as `[uri, kernel]` to
  -- `command` (or to what `command(opts)` names); the buffer keeps its answer in `keep`.
  local function kernel_command(name, verb, command, keep, opts)
    create(name, function(o)
      local kernel = o.args ~= '' and o.args or kernel_at_cursor(bufnr)
      if kernel == nil then
        notify('no .kernel in this buffer to ' .. verb, vim.log.levels.WARN)
        return
      end
      local name_of = type(command) == 'function' and command(o) or command
      exec(client, bufnr, name_of, { vim.uri_from_bufnr(bufnr), kernel }, function(result)
        vim.b[bufnr][keep] = result
        refresh(bufnr)
      end)
    end, vim.tbl_extend('force', { nargs = '?', complete = complete_kernels(bufnr) }, opts))
  end

  create('LspWaveRun', function(opts)
    local arguments, kernel = run_arguments(bufnr, opts.args ~= '' and opts.args or nil)
    if kernel == nil then
      notify('no .kernel in this buffer to run', vim.log.levels.WARN)
      return
    end
    -- the server reports a failed run itself (a message, diagnostics, the code lens)
    exec(client, bufnr, 'wave-lsp.run', arguments, function(result)
      vim.b[bufnr].wave_last_run = result
      refresh(bufnr)
    end)
  end, { nargs = '?', complete = complete_kernels(bufnr),
         desc = 'wave-lsp: run the kernel at the cursor (or NAME), showing values inline' })

  create('LspWaveClear', function(opts)
    local kernel = opts.args ~= '' and opts.args or vim.NIL
    exec(client, bufnr, 'wave-lsp.clear', { vim.uri_from_bufnr(bufnr), kernel }, function()
      refresh(bufnr)
    end)
  end, { nargs = '?', complete = complete_kernels(bufnr),
         desc = 'wave-lsp: clear the run results of a kernel (default: all)' })

  create('LspWaveAssemble', function()
    exec(client, bufnr, 'wave-lsp.assemble', { vim.uri_from_bufnr(bufnr) }, function(result)
      vim.b[bufnr].wave_last_assemble = result
    end)
  end, { desc = 'wave-lsp: assemble the buffer to a .wbin beside the file' })

  create('LspWaveEncoding', function()
    exec(client, bufnr, 'wave-lsp.encoding', { vim.uri_from_bufnr(bufnr) }, function(result)
      if type(result) ~= 'table' or type(result.text) ~= 'string' then
        return -- the server said why in a message
      end
      local source = vim.api.nvim_buf_get_name(bufnr)
      show_listing('wave-encoding://' .. source, result.text)
    end)
  end, { desc = 'wave-lsp: show the encoded words of every line in a split' })

  create('LspWaveEmit', function(opts)
    local target = opts.args
    if TARGETS[target] == nil then
      notify('unknown target ' .. vim.inspect(target) .. ' (use '
        .. table.concat(vim.fn.sort(vim.tbl_keys(TARGETS)), ', ') .. ')',
        vim.log.levels.ERROR)
      return
    end
    exec(client, bufnr, 'wave-lsp.emit', { vim.uri_from_bufnr(bufnr), target }, function(result)
      if type(result) ~= 'table' then
        return -- the server said why in a message
      end
      if type(result.text) ~= 'string' then
        notify('no ' .. target .. ' for this buffer: ' .. tostring(result.error), vim.log.levels.ERROR)
        return
      end
      local source = vim.api.nvim_buf_get_name(bufnr)
      local buf = show_listing('wave-' .. target .. '://' .. source, result.text, TARGETS[target])
      vim.b[buf].wave_emit_map = result.map
      require('wave.emit_map').link(bufnr, buf, result.map, function(on_result)
        exec(client, bufnr, 'wave-lsp.emit', { vim.uri_from_bufnr(bufnr), target }, on_result)
      end)
    end)
  end, { nargs = 1, complete = function(lead)
           local names = vim.tbl_filter(function(t) return vim.startswith(t, lead) end,
             vim.tbl_keys(TARGETS))
           table.sort(names)
           return names
         end,
         desc = 'wave-lsp: show the PTX, HIP, Metal or SYCL a backend makes of the buffer' })

  create('LspWaveDump', function(opts)
    local numbers = {}
    for _, word in ipairs(opts.fargs) do
      local n = tonumber(word)
      if n == nil or n % 1 ~= 0 then
        notify('LspWaveDump takes whole numbers: INDEX START COUNT, got ' .. word,
          vim.log.levels.ERROR)
        return
      end
      numbers[#numbers + 1] = n
    end
    local arguments, kernel = run_arguments(bufnr, nil)
    if kernel == nil then
      notify('no .kernel in this buffer', vim.log.levels.WARN)
      return
    end
    vim.list_extend(arguments, { numbers[1] or 0, numbers[2] or 0, numbers[3] or 256,
                                 vim.lsp.util.buf_versions[bufnr] })
    exec(client, bufnr, 'wave-lsp.dump', arguments, function(result)
      if type(result) ~= 'table' or not result.ok then
        return -- the server said why in a message
      end
      local source = vim.api.nvim_buf_get_name(bufnr)
      local buf = show_listing('wave-dump://' .. source, table.concat(dump_lines(result), '\n'), '')
      vim.b[buf].wave_dump = result
    end)
  end, { nargs = '*',
         desc = 'wave-lsp: show part of a dump of the latest run (INDEX START COUNT)' })

  create('LspWaveProfile', function(opts)
    local name = opts.args ~= '' and opts.args or nil
    if opts.bang then
      exec(client, bufnr, 'wave-lsp.clearProfile', { vim.uri_from_bufnr(bufnr), name or vim.NIL },
        function() refresh(bufnr) end)
      return
    end
    local arguments, kernel = run_arguments(bufnr, name)
    if kernel == nil then
      notify('no .kernel in this buffer to profile', vim.log.levels.WARN)
      return
    end
    exec(client, bufnr, 'wave-lsp.profile', arguments, function(result)
      require('wave.profile').show(bufnr, result)
      refresh(bufnr)
    end)
  end, { nargs = '?', bang = true, complete = complete_kernels(bufnr),
         desc = 'wave-lsp: profile the kernel at the cursor (or NAME); with !, clear profiles' })

  -- the server reports the outcome itself (a message and code lenses at the store lines)
  kernel_command('LspWavePortability', 'check', 'wave-lsp.checkPortability',
                 'wave_last_portability',
                 { desc = 'wave-lsp: run the kernel at every wave width of the targets and compare memory' })

  create('LspWaveWhoWrote', function(opts)
    local who = require('wave.who_wrote')
    local target, problem = who.target(bufnr, opts.args)
    local arguments, kernel = run_arguments(bufnr, nil)
    if target == nil or kernel == nil then
      notify(problem or 'no .kernel in this buffer', vim.log.levels.WARN)
      return
    end
    arguments[4] = target
    exec(client, bufnr, 'wave-lsp.whoWrote', arguments, function(result)
      who.show(bufnr, result)
    end)
  end, { nargs = '?',
         desc = 'wave-lsp: who wrote the register at the cursor (in THREAD) or the word at ADDRESS' })
  -- the server reports the verdict itself (a message, the kernel's lens, diagnostics)
  kernel_command('LspWaveVerify', 'verify', function(opts)
    return opts.bang and 'wave-lsp.replayWitness' or 'wave-lsp.verify'
  end, 'wave_last_verify',
  { bang = true, desc = 'wave-lsp: prove the kernel race-free (with !, replay its witness)' })

  local tests = require('wave.tests')
  create('LspWaveTest', function(opts)
    tests.run(bufnr, opts.args, function(command, arguments, on_result)
      exec(client, bufnr, command, arguments, on_result)
    end, notify)
  end, { nargs = '?', complete = tests.complete(function()
           return vim.tbl_map(function(k) return k.name end, kernels(bufnr))
         end),
         desc = 'wave-lsp: run the kernel tests of the buffer (or of KERNEL) into the quickfix list' })
end

return M
