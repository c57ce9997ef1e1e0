-- wrk script: POSTs one fixed, pre-signed GitHub webhook body, with a unique
-- X-GitHub-Delivery on every request, in the shape of a UUID as GitHub sends:
-- <thread id>-<run id>-4000-8000-<per-thread counter>.
--
-- Environment (read once per thread):
--   WEBHOOK_BODY_FILE   the exact bytes to send (signed as they are)
--   WEBHOOK_SIGNATURE   "sha256=<hex>" for that body (bench/webhooks/sign.js)
--   WEBHOOK_EVENT       X-GitHub-Event (default issue_comment)
--   WEBHOOK_RUN_ID      0..65535, distinct per wrk run against one server, so
--                       a warm-up and the measured run never repeat a delivery
--                       id (default: the clock's seconds mod 65536)
--
-- At the end prints one machine-readable line:
--   BENCH_RESULT requests=N duration_s=S rps=R p50_ms=A p90_ms=B p99_ms=C max_ms=D non2xx=E socket_errors=F

local threads = {}
local next_thread_id = 1

function setup(thread)
  thread:set("thread_id", next_thread_id)
  next_thread_id = next_thread_id + 1
  table.insert(threads, thread)
end

local function read_file(path)
  local f = assert(io.open(path, "rb"), "cannot open WEBHOOK_BODY_FILE " .. tostring(path))
  local data = f:read("*a")
  f:close()
  return data
end

local body, signature, event, run_id
local counter = 0
-- The request is built once by wrk.format around a placeholder delivery id of the same length;
-- request() only splices a new id in. Rebuilding the whole request (headers and the 14 KB body)
-- on every call cost wrk more CPU than the id, CPU that the server under test then lacked.
local PLACEHOLDER = "@@@@@@@@-@@@@-4000-8000-@@@@@@@@@@@@"
local before_id, after_id

function init(args)
  local body_file = os.getenv("WEBHOOK_BODY_FILE")
  signature = os.getenv("WEBHOOK_SIGNATURE")
  event = os.getenv("WEBHOOK_EVENT") or "issue_comment"
  run_id = (tonumber(os.getenv("WEBHOOK_RUN_ID") or "") or os.time()) % 65536
  assert(body_file and body_file ~= "", "WEBHOOK_BODY_FILE is not set")
  assert(signature and signature:match("^sha256=%x+$"), "WEBHOOK_SIGNATURE must be sha256=<hex>")
  body = read_file(body_file)
  local template = wrk.format("POST", nil, {
    ["Content-Type"] = "application/json",
    ["User-Agent"] = "GitHub-Hookshot/bench",
    ["X-GitHub-Event"] = event,
    ["X-GitHub-Delivery"] = PLACEHOLDER,
    ["X-GitHub-Hook-ID"] = "109948940",
    ["X-Hub-Signature-256"] = signature,
  }, body)
  local at = assert(string.find(template, PLACEHOLDER, 1, true), "placeholder not in the request")
  before_id = string.sub(template, 1, at - 1)
  after_id = string.sub(template, at + #PLACEHOLDER)
end

function request()
  counter = counter + 1
  local delivery = string.format("%08x-%04x-4000-8000-%012x", thread_id, run_id, counter)
  return before_id .. delivery .. after_id
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    "BENCH_RESULT requests=%d duration_s=%.2f rps=%.1f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f non2xx=%d socket_errors=%d\n",
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000,
    e.status, e.connect + e.read + e.write + e.timeout))
end
