-- The benchmark's request mix for wrk (`wrk.ts` runs it): every request on another app's proxy,
-- with that app's key in X-Api-Key, the same rotation as the autocannon driver in load.ts.
--   wrk ... -s wrk.lua <origin> -- <apps file: "slug key" per line> <allowed|denied|mixed|json1k|json1m>
--     [direct | alternate <second apps file> <seconds>]
-- `direct` (the passthrough): the upstream's own paths, `/api/v3/…`, with the key of the one line, as a
-- client calls Servarr without Arrbiter, so that the upstream does the same work for both proxies.
-- Prints one line, `WRK_JSON {…}`, when the run is done.

local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

local function gcd(a, b)
  while b ~= 0 do
    a, b = b, a % b
  end
  return a
end

local function lcm(a, b)
  return a / gcd(a, b) * b
end

local function read_apps(file)
  local apps = {}
  for line in io.lines(file) do
    local slug, key = line:match("^(%S+) (%S+)$")
    if slug then
      apps[#apps + 1] = { slug = slug, key = key }
    end
  end
  return apps
end

-- One period of the mix over `apps`: the sequence repeats after lcm(apps, 5000 ids, 6 kinds) (capped).
local function build(apps, mix, direct)
  local period = math.min(lcm(lcm(#apps, 5000), 6), 60000)
  local built = {}
  for n = 1, period do
    local app = apps[((n * 7919) % #apps) + 1]
    local kind
    if mix == "mixed" then
      kind = n % 3
    elseif mix == "denied" then
      kind = 2
    else
      kind = n % 2
    end
    local base = direct and "/api/v3/" or "/proxy/" .. app.slug .. "/api/v3/"
    local path
    if mix == "json1k" then
      path = base .. "test/json?bytes=1024"
    elseif mix == "json1m" then
      path = base .. "test/json?bytes=1048576"
    elseif kind == 0 then
      path = base .. "movie/" .. ((n % 5000) + 1)
    elseif kind == 1 then
      path = base .. "movie"
    else
      path = base .. "config/host"
    end
    built[n] = wrk.format("GET", path, { ["X-Api-Key"] = app.key })
  end
  return built
end

-- Requests are built once here: request() only picks the next one (wrk's advice for fast servers).
function init(args)
  local mix = args[2]
  requests = build(read_apps(args[1]), mix, args[3] == "direct")
  -- `alternate <apps file> <seconds>`: the second list's apps in every other phase of <seconds> by the
  -- wall clock (phases.ts), the first list's in the phases that start on an even multiple.
  if args[3] == "alternate" then
    alternate = build(read_apps(args[4]), mix, false)
    phase_seconds = tonumber(args[5])
  end
  -- Threads start at different points of the sequence.
  next_request = ((id or 0) * 7) % #requests
  statuses = {}
end

function request()
  next_request = next_request + 1
  if next_request > #requests then
    next_request = 1
  end
  if alternate and math.floor(os.time() / phase_seconds) % 2 == 1 then
    return alternate[((next_request - 1) % #alternate) + 1]
  end
  return requests[next_request]
end

function response(status)
  statuses[status] = (statuses[status] or 0) + 1
end

-- Utime + stime of this wrk process, in clock ticks: the load generator's own CPU.
local function cpu_ticks()
  local file = io.open("/proc/self/stat", "r")
  if not file then
    return -1
  end
  local stat = file:read("*a")
  file:close()
  local rest = stat:match("%) (.*)$")
  local fields = {}
  for field in rest:gmatch("%S+") do
    fields[#fields + 1] = field
  end
  return tonumber(fields[12]) + tonumber(fields[13])
end

function done(summary, latency)
  local totals = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      totals[status] = (totals[status] or 0) + count
    end
  end
  local counts = {}
  for status, count in pairs(totals) do
    counts[#counts + 1] = string.format('"%d":%d', status, count)
  end
  local e = summary.errors
  io.write(
    string.format(
      'WRK_JSON {"durationUs":%d,"requests":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},'
        .. '"latencyUs":{"mean":%.1f,"max":%d,"p50":%d,"p90":%d,"p99":%d,"p999":%d},"statuses":{%s},"cpuTicks":%d}\n',
      summary.duration,
      summary.requests,
      summary.bytes,
      e.connect,
      e.read,
      e.write,
      e.status,
      e.timeout,
      latency.mean,
      latency.max,
      latency:percentile(50),
      latency:percentile(90),
      latency:percentile(99),
      latency:percentile(99.9),
      table.concat(counts, ","),
      cpu_ticks()
    )
  )
end
