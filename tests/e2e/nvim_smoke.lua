-- Headless Neovim (0.7+) drives compaction-lsp: hover over an error-memory location, then
-- workspace/executeCommand compaction.compact. Results go to $NVIM_SMOKE_OUT as JSON.
-- Inputs (environment): NVIM_SMOKE_PYTHON, NVIM_SMOKE_WS, NVIM_SMOKE_FILE, NVIM_SMOKE_LINE (0-based),
-- NVIM_SMOKE_TRANSCRIPT, NVIM_SMOKE_OUT.

local env = function(name) return os.getenv(name) or error("missing " .. name) end
local python, ws, file = env("NVIM_SMOKE_PYTHON"), env("NVIM_SMOKE_WS"), env("NVIM_SMOKE_FILE")
local line, transcript, out = tonumber(env("NVIM_SMOKE_LINE")), env("NVIM_SMOKE_TRANSCRIPT"), env("NVIM_SMOKE_OUT")

local report = { steps = {} }

local function finish()
  local fh = io.open(out, "w")
  fh:write(vim.fn.json_encode(report))
  fh:close()
  vim.cmd("qall!")
end

local ok, err = pcall(function()
  local client_id = vim.lsp.start_client({
    name = "compaction",
    cmd = { python, "-m", "lsp_server" },
    root_dir = ws,
    workspace_folders = { { uri = vim.uri_from_fname(ws), name = "ws" } },
  })
  assert(client_id, "start_client failed")
  table.insert(report.steps, "started")

  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client_id)

  local ready = vim.wait(20000, function()
    local c = vim.lsp.get_client_by_id(client_id)
    return c ~= nil and c.server_capabilities ~= nil and next(c.server_capabilities) ~= nil
  end, 50)
  assert(ready, "server did not initialize")
  report.commands = vim.lsp.get_client_by_id(client_id).server_capabilities.executeCommandProvider.commands
  table.insert(report.steps, "initialized")

  -- Hover: retried until the server has loaded the error memory (it loads right after initialize).
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = line, character = 4 },
  }
  local hover_text
  vim.wait(20000, function()
    local responses = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 5000) or {}
    for _, resp in pairs(responses) do
      if resp.result and resp.result.contents then
        hover_text = resp.result.contents.value
      end
    end
    return hover_text ~= nil
  end, 100)
  report.hover = hover_text
  table.insert(report.steps, "hover")

  local responses = vim.lsp.buf_request_sync(bufnr, "workspace/executeCommand", {
    command = "compaction.compact",
    arguments = { { transcript = transcript, allowRead = { transcript }, targetTokens = 400 } },
  }, 60000) or {}
  for _, resp in pairs(responses) do
    if resp.err then
      report.compact_error = resp.err.message
    elseif resp.result then
      report.compact = {
        compacted = resp.result.compacted,
        rounds = resp.result.rounds,
        paths = resp.result.paths,
        error_ids = vim.tbl_map(function(r) return r.id end, resp.result.error_memory or {}),
      }
    end
  end
  table.insert(report.steps, "compact")

  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
  table.insert(report.steps, "stopped")
end)

if not ok then
  report.error = tostring(err)
end
finish()
