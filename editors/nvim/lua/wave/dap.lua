--- The WAVE kernel debugger in nvim-dap: the `wave` adapter (`wave-lsp debug`, the Debug Adapter
--- Protocol on stdio) and launch configurations for `.wave` files.
---
---   require('wave.dap').setup()                                -- with nvim-dap installed
---   require('wave.dap').setup({ command = { '/path/to/venv/bin/wave-lsp', 'debug' } })
---
--- Then `:lua require('dap').continue()` offers the configurations below, and `:WaveDebug [FLAGS]`
--- debugs the kernel at the cursor (FLAGS: `wave-lsp run` flags; none: the kernel's
--- `; wave-lsp run:` launch line, else its default launch). Waves are threads named
--- `wg(X,Y,Z) wave N`; each register's lanes are its children in the scopes view; conditions
--- such as `r3 > 10` hold when any active lane satisfies them.
---
--- Reverse execution (the adapter announces `supportsStepBack`): `require('dap').step_back()`,
--- `require('dap').reverse_continue()` and `require('dap').goto_()` (earlier executions of the
--- cursor's line: "line 12, iteration 5"). "Debug at this moment" code actions of run findings
--- and failing tests run `wave.debugAtMoment`, which this module hands to `dap.run`;
--- `:WaveDebugMoment` picks that action on the cursor's line; `:WaveDebugWitness [KERNEL]` verifies
--- the kernel at the cursor and debugs its race or divergence witness ("Debug witness": the
--- witness's launch paused at its first access, both threads in "Finding lanes"). `setup({ checkpoint_budget_mib = N })`
--- sets the checkpoints' memory budget of every launch (default: the adapter's 256 MiB).
---
--- The adapter is warm (`M.warm_adapter`): the first session starts one `wave-lsp debug
--- --server` for this Neovim, and every session connects to it (nvim-dap's `pipe` adapter, on
--- a private Unix socket; nvim-dap 0.8 or later), so a session starts in milliseconds.
--- `setup({ warm = false })` starts a process per session instead (`M.adapter`), as happens
--- by itself where the warm one cannot start.

local M = {}

M.MOMENT_COMMAND = 'wave.debugAtMoment'

--- The name of the kernel containing the cursor, as the server says (`wave.kernel_at`). Between
--- kernels, or where no wave-lsp server is attached (nvim-dap needs only `wave-lsp debug`, not
--- the language server), the nearest `.kernel` above the cursor, or the first.
function M.kernel_at_cursor(bufnr)
  bufnr = bufnr or 0
  local here = require('wave.kernel_at').name(bufnr)
  if here then
    return here
  end
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local best
  for i, text in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    local name = text:match('^%s*%.kernel%s+([^%s;#]+)')
    if name and (best == nil or i <= row) then
      best = name
    end
  end
  return best
end

--- A launch configuration of the current file's kernel at the cursor.
local function current_kernel(name, extra)
  return vim.tbl_extend('force', {
    type = 'wave',
    request = 'launch',
    name = name,
    program = '${file}',
    kernel = function() return M.kernel_at_cursor() end,
    stopOnEntry = false,
  }, extra or {})
end

--- Launch configurations for `.wave` files (nvim-dap evaluates the functions when starting).
function M.configurations()
  return {
    current_kernel('Debug kernel at cursor (its launch line)'),
    current_kernel('Debug kernel at cursor, stop on entry', { stopOnEntry = true }),
    current_kernel('Debug kernel with wave-lsp run flags…', {
      args = function()
        return vim.split(vim.fn.input('wave-lsp run flags: '), '%s+', { trimempty = true })
      end,
    }),
  }
end

--- "Debug witness": verify the kernel at the cursor (or `kernel`) with the attached wave-lsp
--- (`wave-lsp.verify`) and hand its witness's debug configuration (`debugAtMoment`: the witness's
--- launch paused at its first access) to `wave.debugAtMoment`; without a witness, say the verdict.
function M.debug_witness(bufnr, kernel)
  bufnr = bufnr == 0 and vim.api.nvim_get_current_buf() or bufnr
  local function say(message, level)
    require('wave.messages').notify('wave-lsp: ' .. message, level)
  end
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'wave' })[1]
  kernel = kernel or M.kernel_at_cursor(bufnr)
  if client == nil or kernel == nil then
    say(client == nil and 'no wave-lsp server on this buffer' or 'no .kernel in this buffer',
      vim.log.levels.WARN)
    return
  end
  local command = 'wave-lsp.verify'
  client:exec_cmd({ title = command, command = command,
                    arguments = { vim.uri_from_bufnr(bufnr), kernel } }, { bufnr = bufnr },
    function(err, result)
      if err or result == nil or result.ok == false then
        say(command .. ' failed: ' .. ((err and err.message) or (result and result.message)
          or 'no answer'), vim.log.levels.ERROR)
        return
      end
      vim.b[bufnr].wave_last_verify = result
      if result.debugAtMoment == nil then
        say(kernel .. ': ' .. result.verdict .. (result.witness and
          ' (the file is not on disk: save it to debug the witness)' or ': no witness to debug'))
        return
      end
      local handler = vim.lsp.commands[M.MOMENT_COMMAND]
      if handler == nil then
        say("nvim-dap: call require('wave.dap').setup() first", vim.log.levels.WARN)
        return
      end
      handler({ title = 'Debug witness', command = M.MOMENT_COMMAND,
                arguments = { result.debugAtMoment } })
    end)
end

--- The adapter definition for `command` (default `{ 'wave-lsp', 'debug' }`).
function M.adapter(command)
  command = command or { 'wave-lsp', 'debug' }
  return {
    type = 'executable',
    command = command[1],
    args = vim.list_slice(command, 2),
    options = { detached = false },
  }
end

-- The warm adapter of this Neovim: `where` it listens once it said so, the sessions `waiting`
-- for that, the job.
local warm = nil

local function connect(where, callback)
  if where.socket then
    callback({ type = 'pipe', pipe = where.socket })
  else
    callback({ type = 'server', host = '127.0.0.1', port = where.port })
  end
end

--- The warm adapter (an nvim-dap adapter function): one `wave-lsp debug --server` per Neovim,
--- started by the first session and kept (it exits with Neovim: its stdin ends), loads the
--- debugger once; each session is a connection to it (nvim-dap's `pipe` adapter on the Unix
--- socket it announces, `server` on its TCP port), so a session starts without a process
--- start or the debugger's imports. Where it cannot start or says nothing (a wave-lsp
--- without `--server`), each session starts its own `wave-lsp debug` (`M.adapter`).
function M.warm_adapter(command)
  command = command or { 'wave-lsp', 'debug' }
  return function(callback)
    if warm and warm.failed then           -- said once: every later session starts its own
      return callback(M.adapter(command))
    end
    if warm and warm.where then
      return connect(warm.where, callback)
    end
    if warm then
      table.insert(warm.waiting, callback)
      return
    end
    local this = { waiting = { callback } }
    warm = this
    local heard = ''
    local function give_up(why)
      if warm == this then
        -- it could not start or said nothing: not tried again; once it served, a later
        -- session starts a new one
        warm = (not this.where) and { failed = true } or nil
      end
      if #this.waiting > 0 and why then
        vim.notify('wave.dap: the warm debug adapter is not used (' .. why
          .. '): each session starts its own', vim.log.levels.INFO)
      end
      local waiting = this.waiting
      this.waiting = {}
      for _, each in ipairs(waiting) do
        each(M.adapter(command))
      end
    end
    local ok, job = pcall(vim.fn.jobstart, vim.list_extend(vim.deepcopy(command), { '--server' }), {
      on_stdout = function(_, data)
        if this.where then
          return
        end
        heard = heard .. table.concat(data, '\n')
        local line = heard:match('^([^\n]*)\n')
        if not line then
          return
        end
        local decoded, where = pcall(vim.json.decode, line)
        if not decoded or type(where) ~= 'table' or not (where.socket or where.port) then
          pcall(vim.fn.jobstop, this.job)
          return give_up('it said ' .. line:sub(1, 80))
        end
        this.where = where
        local waiting = this.waiting
        this.waiting = {}
        for _, each in ipairs(waiting) do
          connect(where, each)
        end
      end,
      on_exit = function(_, code)
        give_up(not this.where and ('it exited with ' .. code) or nil)
      end,
    })
    if not ok or job <= 0 then
      return give_up('it could not start: ' .. tostring(ok and job or command[1]))
    end
    this.job = job
  end
end

--- Register the adapter, the configurations and the :WaveDebug command with nvim-dap.
function M.setup(opts)
  opts = opts or {}
  local ok, dap = pcall(require, 'dap')
  if not ok then
    vim.notify('wave.dap: nvim-dap is not installed', vim.log.levels.WARN)
    return false
  end
  if opts.warm == false then
    dap.adapters.wave = M.adapter(opts.command)
  else
    dap.adapters.wave = M.warm_adapter(opts.command)
  end
  local budget = opts.checkpoint_budget_mib
  local configurations = M.configurations()
  if budget then
    for _, config in ipairs(configurations) do
      config.checkpointBudgetMiB = budget
    end
  end
  dap.configurations.wave = vim.list_extend(vim.deepcopy(dap.configurations.wave or {}),
    configurations)
  -- "Debug at this moment" (run findings, failing tests): the server's code action carries a
  -- complete launch configuration (`stopAt`: the moment, and the lanes to show)
  vim.lsp.commands[M.MOMENT_COMMAND] = function(command)
    local config = vim.deepcopy(command.arguments[1])
    if budget and config.checkpointBudgetMiB == nil then
      config.checkpointBudgetMiB = budget
    end
    dap.run(config)
  end
  vim.api.nvim_create_user_command('WaveDebugMoment', function()
    vim.lsp.buf.code_action({
      apply = true,
      filter = function(action)
        return action.command ~= nil and (action.command.command or action.command)
          == M.MOMENT_COMMAND
      end,
    })
  end, { desc = 'Debug the run finding or failing test on this line at its moment' })
  vim.api.nvim_create_user_command('WaveDebugWitness', function(command)
    M.debug_witness(0, command.args ~= '' and command.args or nil)
  end, { nargs = '?', desc = 'Verify the kernel at the cursor and debug its race or divergence witness' })
  vim.api.nvim_create_user_command('WaveDebug', function(command)
    local config = {
      type = 'wave',
      request = 'launch',
      name = 'WAVE: debug kernel',
      program = vim.api.nvim_buf_get_name(0),
      kernel = M.kernel_at_cursor(),
      stopOnEntry = command.bang,
      checkpointBudgetMiB = budget,
    }
    if command.args ~= '' then
      config.args = vim.split(command.args, '%s+', { trimempty = true })
    end
    dap.run(config)
  end, { nargs = '*', bang = true, desc = 'Debug the WAVE kernel at the cursor (! stops on entry)' })
  return true
end

return M
