--- `:checkhealth wave`: is wave-lsp installed and found, which version, on which Python, with
--- which libraries; is the Neovim side (filetype, syntax, LSP config) in place; are the vendors'
--- compilers (ptxas, hipcc) found, and what they add. Says what is missing and how to fix it.

local M = {}

local health = vim.health

local PYTHON_PROBE = [[
import importlib.metadata as m, sys
print("python", sys.version.split()[0], sys.executable)
for name in ("pygls", "lsprotocol", "parsimonious", "numpy"):
    try:
        print(name, m.version(name))
    except m.PackageNotFoundError:
        print(name, "MISSING")
]]

--- The server command from the `wave` LSP config, or the default.
local function server_cmd()
  local config = vim.lsp.config and vim.lsp.config.wave
  if config and type(config.cmd) == 'table' then
    return config.cmd
  end
  return config and config.cmd or { 'wave-lsp', 'serve' }
end

--- The interpreter named on the `#!` line of a Python console script, or nil.
local function shebang_python(path)
  local file = io.open(path, 'rb')
  if not file then
    return nil
  end
  local first = file:read('*l') or ''
  file:close()
  local interpreter = first:match('^#!%s*(%S+)')
  if interpreter and interpreter:match('python[%d.]*$') then
    return interpreter
  end
  return nil
end

--- The checkout of wave-lsp this plugin directory belongs to (editors/nvim's grandparent, when
--- it holds pyproject.toml), or nil.
function M.checkout()
  local config = vim.api.nvim_get_runtime_file('lsp/wave.lua', false)[1]
  if not config then
    return nil
  end
  local root = vim.fn.fnamemodify(config, ':p:h:h:h:h')
  if vim.fn.filereadable(root .. '/pyproject.toml') == 1 then
    return root
  end
  return nil
end

--- The commands that install wave-lsp today (it is not on PyPI): a virtual environment and
--- `pip install` of this checkout, as the README says.
function M.install_advice()
  local checkout = M.checkout()
  return {
    ('install it from %s: python3 -m venv ~/.venvs/wave && ~/.venvs/wave/bin/pip install %s'):format(
      checkout and 'this checkout' or 'a checkout of wave-lsp',
      checkout and vim.fn.shellescape(checkout) or '/path/to/wave-lsp'),
    "then put ~/.venvs/wave/bin on PATH, or set vim.lsp.config('wave', { cmd = "
      .. "{ vim.fn.expand('~/.venvs/wave/bin/wave-lsp'), 'serve' } })",
  }
end

--- One warning per session when the `wave` configuration is enabled but its command cannot be
--- run (Neovim 0.11 only logs that), on one line so that it never stops start-up at a
--- "Press ENTER" prompt: what is missing, and `:checkhealth wave` for how to install it.
function M.warn_if_unstartable()
  if M.warned or not (vim.lsp.is_enabled and vim.lsp.is_enabled('wave')) then
    return
  end
  local cmd = server_cmd()
  if type(cmd) ~= 'table' or vim.fn.executable(cmd[1]) == 1 then
    return
  end
  M.warned = true
  local name = vim.fn.fnamemodify(cmd[1], ':t')
  require('wave.messages').notify(
    ('wave-lsp: %s not found; see :checkhealth wave'):format(name),
    vim.log.levels.WARN)
end

local function check_neovim()
  health.start('Neovim')
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()))
  else
    health.error('Neovim ' .. tostring(vim.version()) .. ' is too old',
      { 'editors/nvim needs Neovim 0.11 or newer (vim.lsp.config / vim.lsp.enable)' })
  end
  if vim.filetype.match({ filename = 'kernel.wave' }) == 'wave' then
    health.ok('*.wave files get filetype "wave"')
  else
    health.error('*.wave files are not detected', {
      "add the repository's editors/nvim directory to 'runtimepath' before filetype detection",
    })
  end
  local syntax = vim.api.nvim_get_runtime_file('syntax/wave.vim', false)
  if #syntax > 0 then
    health.ok('syntax file: ' .. syntax[1])
  else
    health.warn('syntax/wave.vim not found on runtimepath: no colours before the server attaches')
  end
  if not (vim.lsp.config and vim.lsp.config.wave) then
    health.error('no LSP configuration "wave"', {
      "add editors/nvim to 'runtimepath' (it holds lsp/wave.lua)",
    })
  elseif vim.lsp.is_enabled and not vim.lsp.is_enabled('wave') then
    health.warn('the "wave" LSP configuration is not enabled', { "call vim.lsp.enable('wave')" })
  else
    health.ok('LSP configuration "wave" is enabled')
  end
end

local function check_server()
  health.start('wave-lsp server')
  local cmd = server_cmd()
  if type(cmd) ~= 'table' then
    health.info('cmd is a function (a custom transport): not checked')
    return
  end
  local exe = vim.fn.exepath(cmd[1])
  if exe == '' then
    health.error(('server command %q not found (cmd = %s)'):format(cmd[1], vim.inspect(cmd)),
      M.install_advice())
    return
  end
  health.ok('server: ' .. exe)
  local version = vim.system({ exe, '--version' }, { text = true }):wait(10000)
  if version.code == 0 then
    health.ok('version: ' .. vim.trim(version.stdout))
  else
    health.error(('%s --version failed (exit %s): %s'):format(exe, tostring(version.code),
      vim.trim((version.stderr or '') .. (version.stdout or ''))),
      { 'reinstall wave-lsp in its virtual environment' })
  end

  local python = shebang_python(exe)
  if not python then
    health.info('not a Python console script: its Python was not checked')
    return
  end
  if vim.fn.executable(python) ~= 1 then
    health.error('its Python interpreter is gone: ' .. python,
      { 'recreate the virtual environment and reinstall wave-lsp' })
    return
  end
  local probe = vim.system({ python, '-c', PYTHON_PROBE }, { text = true }):wait(10000)
  if probe.code ~= 0 then
    health.error('running ' .. python .. ' failed: ' .. vim.trim(probe.stderr or ''))
    return
  end
  M.python = python
  for line in vim.gsplit(vim.trim(probe.stdout), '\n', { plain = true }) do
    local name, rest = line:match('^(%S+)%s+(.*)$')
    if name == 'python' then
      health.ok('Python ' .. rest)
    elseif rest == 'MISSING' then
      health.error(('Python package %s is missing'):format(name),
        { ('reinstall wave-lsp with %s -m pip install %s (it brings %s)'):format(
          python, vim.fn.shellescape(M.checkout() or '/path/to/wave-lsp'), name) })
    elseif name then
      health.ok(('%s %s'):format(name, rest))
    end
  end
end

-- Asks wave-lsp itself (its Python) where it finds ptxas and hipcc under the `backends`
-- settings, and what each adds and how to install it (`wave_lsp.ide.vendor_help`): the server's
-- own answers, so nothing here restates them.
local VENDOR_PROBE = [[
import json, sys
from wave_lsp.asm.vendors import find_compiler
from wave_lsp.ide.vendor_help import NOT_FOUND, Absent
settings = json.loads(sys.argv[1])
settings = settings if isinstance(settings, dict) else {}
out = []
for target in ("ptx", "hip"):
    absent = Absent(target, NOT_FOUND)
    setting = settings.get(absent.compiler)
    named = setting if isinstance(setting, str) and setting else None
    found = None if setting is False else find_compiler(target, named)
    out.append({**absent.as_dict(), "path": found, "off": setting is False, "named": named})
print(json.dumps(out))
]]

--- The `backends` settings of the `wave` LSP configuration (settings, else init_options).
local function backend_settings()
  local config = vim.lsp.config and vim.lsp.config.wave or {}
  local settings = (config.settings or {}).wave or {}
  local backends = settings.backends or (config.init_options or {}).backends
  return type(backends) == 'table' and backends or {}
end

local function check_vendor_compilers(python)
  health.start('Vendor compilers (kernel hover figures, Show PTX/HIP verdicts, P824)')
  if not python then
    health.info('the server is not a Python console script: ptxas and hipcc were not looked for')
    return
  end
  local probe = vim.system({ python, '-c', VENDOR_PROBE, vim.json.encode(backend_settings()) },
    { text = true }):wait(10000)
  local ok, found = pcall(vim.json.decode, probe.stdout or '')
  if probe.code ~= 0 or not ok then
    health.warn('could not ask wave-lsp for its compilers: ' .. vim.trim(probe.stderr or ''))
    return
  end
  for _, c in ipairs(found) do
    local advice = { ('install it: %s'):format(c.install),
      ('or point %s at it: settings = { wave = { backends = { %s = "/path/to/%s" } } }'):format(
        c.setting, c.compiler, c.compiler) }
    if c.path ~= vim.NIL and c.path then
      health.ok(('%s: %s'):format(c.compiler, c.path))
    elseif c.off then
      health.info(('%s turned off (%s = false): it would add %s. Install: %s'):format(
        c.compiler, c.setting, c.adds, c.install))
    elseif c.named ~= vim.NIL and c.named then
      health.warn(('%s: %s names %q, which is not a program here; it would add %s'):format(
        c.compiler, c.setting, c.named, c.adds), advice)
    else
      health.warn(('%s not found: it would add %s'):format(c.compiler, c.adds), advice)
    end
  end
end

local function check_clients()
  health.start('Running clients')
  local clients = vim.lsp.get_clients({ name = 'wave' })
  if #clients == 0 then
    health.info('no wave-lsp client is running (open a .wave file to start one)')
  end
  for _, client in ipairs(clients) do
    local buffers = vim.tbl_keys(client.attached_buffers)
    health.ok(('client %d: root %s, %d buffer(s), position encoding %s'):format(
      client.id, client.root_dir or '(none)', #buffers, client.offset_encoding))
  end
end

function M.check()
  M.python = nil
  check_neovim()
  check_server()
  check_vendor_compilers(M.python)
  check_clients()
end

return M
