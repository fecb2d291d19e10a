// The Lua scripts behind RedisCounters. Each runs atomically on the server, which is what makes an
// admission all-or-nothing across instances: no other instance's script runs between a check and
// the write that follows it. The arithmetic repeats cluster/local/gcra.ts and counters.ts step for
// step (Lua numbers are IEEE doubles like JS numbers), so both adapters give the same answers.
// Numbers travel as strings formatted with %.17g both ways: Lua's tostring keeps only 14 digits,
// and a Lua number returned as a reply would be truncated to an integer.
//
// Key layout (all under the adapter's prefix, passed in KEYS so that the scripts stay valid if the
// prefix carries a Redis Cluster hash tag):
//   r:<rate key>    hash rt (requests TAT), tt (tokens TAT), rpm, tpm (the limits the TATs are paid at)
//   c:<rate key>    sorted set of in-flight admissions, scored by when their lease runs out
//   b:<budget key>  hash s (spent), r (reserved)
//   bidx            sorted set (score 0, ordered by name) of budget keys: the prefix listing
//   a:<admission>   exists from an admission to its settle: makes a replayed settle apply at most once
//   l:<budget key>  sorted set of the admissions holding a reservation on the budget, member
//                   "<cost>|<admission>", scored by when the reservation lapses (the admission's lease)

const COMMON = `
local WINDOW = 60000
local EPS = 1e-9
local function f(x) return string.format('%.17g', x) end
local function opt(v) if v == '' then return nil end return tonumber(v) end
local function round(x) return math.floor(x * 1e9 + 0.5) / 1e9 end
local function ttl(ms) ms = math.ceil(ms) if ms < 1 then return 1 end return ms end
-- What a reservation's member in l:<budget key> reserved.
local function reservedBy(member) return tonumber(string.match(member, '^([^|]+)|')) or 0 end
`;

/**
 * KEYS: per rate check r:<key>, c:<key>; then b:<key> per budget; then bidx; then a:<admission>; then
 * l:<key> per budget.
 * ARGV: now, tokens, costUsd, nRates, nBudgets, admissionId, leaseMs, rateSlackMs, budgetTtlMs
 * (0: none), markerTtlMs (0: no marker), then rpm, tpm, concurrency per rate ('' when unset), then limitUsd,
 * block ('1' or '0'), key per budget.
 * Returns {'ok', then per rate: requests remaining, reset, tokens remaining, reset ('' when not
 * charged), calls in flight ('' without a concurrency limit), then per budget: spent, reserved} or
 * {kind, index (1-based), ...numbers} for a refusal. The resets and the counts are what an instance
 * remembers of the shared counters for the time Redis is away (share-counters.ts).
 */
export const ADMIT_LUA = `${COMMON}
local now = tonumber(ARGV[1])
local tokens = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local n = tonumber(ARGV[4])
local m = tonumber(ARGV[5])
local id = ARGV[6]
local leaseMs = tonumber(ARGV[7])
local slackMs = tonumber(ARGV[8])
local budgetTtl = tonumber(ARGV[9])
local markerTtl = tonumber(ARGV[10])
local A = 10
local B = A + 3 * n

local function left(tat, interval, per)
  local ahead = math.max(0, tat - now)
  return math.max(0, math.min(per, math.floor((WINDOW - ahead) / interval))), ahead
end

-- gcra.ts: ok, tat to store, retry after (nil: never), remaining, reset
local function gcra(stored, per, units)
  local interval = WINDOW / per
  local tat = math.max(stored, now)
  local nxt = tat + interval * units
  if units > per then
    local r, a = left(tat, interval, per)
    return false, stored, nil, r, a
  end
  if nxt - WINDOW > now then
    local r, a = left(tat, interval, per)
    return false, stored, (nxt - WINDOW) - now, r, a
  end
  local r, a = left(nxt, interval, per)
  return true, nxt, 0, r, a
end

local function rescaled(tat, from, to)
  if from == to or tat <= now then return tat end
  return now + ((tat - now) * from) / to
end

-- A counter whole again for longer than the slack equals no counter (concurrency alone keeps none).
local function store(key, c)
  local life = math.max(c.rt, c.tt) - now + slackMs
  if life < 1 then return end
  redis.call('HSET', key, 'rt', f(c.rt), 'tt', f(c.tt), 'rpm', f(c.rpm), 'tpm', f(c.tpm))
  redis.call('PEXPIRE', key, ttl(life))
end

local planned = {}
local states = {}
for i = 1, n do
  local rk = KEYS[2 * i - 1]
  local ck = KEYS[2 * i]
  local rpm = opt(ARGV[A + 3 * i - 2])
  local tpm = opt(ARGV[A + 3 * i - 1])
  local conc = opt(ARGV[A + 3 * i])
  local h = redis.call('HMGET', rk, 'rt', 'tt', 'rpm', 'tpm')
  local c = { rt = tonumber(h[1]) or 0, tt = tonumber(h[2]) or 0, rpm = tonumber(h[3]) or 0, tpm = tonumber(h[4]) or 0 }
  local changed = false
  if rpm ~= nil and c.rpm ~= rpm then
    local from = c.rpm
    if from == 0 then from = rpm end
    c.rt = rescaled(c.rt, from, rpm)
    c.rpm = rpm
    changed = true
  end
  if tpm ~= nil and c.tpm ~= tpm then
    local from = c.tpm
    if from == 0 then from = tpm end
    c.tt = rescaled(c.tt, from, tpm)
    c.tpm = tpm
    changed = true
  end
  -- A rescale of a stored counter holds even when this admission is refused, as it does locally.
  if changed and h[1] then store(rk, c) end
  local busy = ''
  if conc ~= nil then
    redis.call('ZREMRANGEBYSCORE', ck, '-inf', f(now))
    local held = redis.call('ZCARD', ck)
    if held >= conc then return { 'concurrency', tostring(i) } end
    busy = tostring(held + 1)
  end
  local st = { '', '', '', '', busy }
  if rpm ~= nil then
    local ok, tat, retry, rem, reset = gcra(c.rt, rpm, 1)
    if not ok then return { 'rpm', tostring(i), retry and f(retry) or '', f(rem), f(reset) } end
    c.rt = tat
    st[1] = f(rem)
    st[2] = f(reset)
  end
  if tpm ~= nil and tokens > 0 then
    local ok, tat, retry, rem, reset = gcra(c.tt, tpm, tokens)
    if not ok then return { 'tpm', tostring(i), retry and f(retry) or '', f(rem), f(reset) } end
    c.tt = tat
    st[3] = f(rem)
    st[4] = f(reset)
  end
  planned[i] = { rk = rk, ck = ck, c = c, conc = conc }
  for _, v in ipairs(st) do states[#states + 1] = v end
end

-- Reservations whose lease has run out belong to admissions that were never settled (their
-- instance died): they stop weighing on the budget, whatever this admission's fate.
for j = 1, m do
  local bk = KEYS[2 * n + j]
  local lk = KEYS[2 * n + m + 2 + j]
  local lapsed = redis.call('ZRANGEBYSCORE', lk, '-inf', f(now))
  if #lapsed > 0 then
    local sum = 0
    for _, member in ipairs(lapsed) do sum = sum + reservedBy(member) end
    redis.call('ZREMRANGEBYSCORE', lk, '-inf', f(now))
    local r = tonumber(redis.call('HGET', bk, 'r')) or 0
    redis.call('HSET', bk, 'r', f(math.max(0, round(r - sum))))
  end
end

for j = 1, m do
  if ARGV[B + 3 * j - 1] == '1' then
    local s = redis.call('HMGET', KEYS[2 * n + j], 's', 'r')
    local spent = tonumber(s[1]) or 0
    local reserved = tonumber(s[2]) or 0
    if spent + EPS >= tonumber(ARGV[B + 3 * j - 2]) or spent + reserved + cost > tonumber(ARGV[B + 3 * j - 2]) + EPS then
      return { 'budget', tostring(j), f(spent), f(reserved) }
    end
  end
end

-- Every check passed: take from all of them.
for i = 1, n do
  local p = planned[i]
  store(p.rk, p.c)
  if p.conc ~= nil then
    redis.call('ZADD', p.ck, f(now + leaseMs), id)
    redis.call('PEXPIRE', p.ck, ttl(leaseMs + slackMs))
  end
end
local idx = KEYS[2 * n + m + 1]
for j = 1, m do
  local bk = KEYS[2 * n + j]
  local sr = redis.call('HMGET', bk, 's', 'r')
  local r = f(round((tonumber(sr[2]) or 0) + cost))
  redis.call('HSET', bk, 'r', r)
  -- A counter is listed from its creation on (the listing drops it once it has expired).
  if not sr[1] then
    redis.call('HSET', bk, 's', '0')
    redis.call('ZADD', idx, 0, ARGV[B + 3 * j])
  end
  states[#states + 1] = sr[1] or '0'
  states[#states + 1] = r
  local lk = KEYS[2 * n + m + 2 + j]
  redis.call('ZADD', lk, f(now + leaseMs), ARGV[3] .. '|' .. id)
  if budgetTtl > 0 then
    redis.call('PEXPIRE', bk, budgetTtl)
    redis.call('PEXPIRE', lk, budgetTtl)
  end
end
if markerTtl > 0 then redis.call('SET', KEYS[2 * n + m + 2], '1', 'PX', markerTtl) end
local out = { 'ok' }
for _, v in ipairs(states) do out[#out + 1] = v end
return out
`;

/**
 * KEYS: as for an admission. ARGV: now, admitted tokens, admitted costUsd, actual tokens, actual
 * usd, nRates, nBudgets, admissionId ('' when unknown), rateSlackMs, budgetTtlMs, replay ('1': apply
 * only if the admission's marker is still there), then tpm ('' when unset) and concurrency flag
 * ('1' or '0') per rate, then key per budget.
 * Returns {'skip'} for a replay already applied, or {'ok', previous, spent per budget, then reserved
 * per budget, then calls in flight per rate ('' without a concurrency limit)}.
 */
export const SETTLE_LUA = `${COMMON}
local now = tonumber(ARGV[1])
local admittedTokens = tonumber(ARGV[2])
local admittedCost = tonumber(ARGV[3])
local actualTokens = tonumber(ARGV[4])
local actualUsd = tonumber(ARGV[5])
local n = tonumber(ARGV[6])
local m = tonumber(ARGV[7])
local id = ARGV[8]
local slackMs = tonumber(ARGV[9])
local budgetTtl = tonumber(ARGV[10])
local A = 11
local B = A + 2 * n
local marker = KEYS[2 * n + m + 2]
local had = redis.call('DEL', marker)
if ARGV[11] == '1' and had == 0 then return { 'skip' } end

local busy = {}
for i = 1, n do
  local rk = KEYS[2 * i - 1]
  local ck = KEYS[2 * i]
  busy[i] = ''
  if ARGV[A + 2 * i] == '1' then
    if id ~= '' then redis.call('ZREM', ck, id) else redis.call('ZPOPMIN', ck) end
    busy[i] = tostring(redis.call('ZCARD', ck))
  end
  local tpm = opt(ARGV[A + 2 * i - 1])
  if tpm ~= nil and admittedTokens > 0 and actualTokens ~= admittedTokens then
    local h = redis.call('HMGET', rk, 'rt', 'tt')
    if h[2] then
      local stored = tonumber(h[2])
      local delta = actualTokens - admittedTokens
      local moved = stored + (WINDOW / tpm) * delta
      if delta < 0 then moved = math.max(moved, math.min(stored, now)) end
      redis.call('HSET', rk, 'tt', f(moved))
      redis.call('PEXPIRE', rk, ttl(math.max(tonumber(h[1]) or 0, moved) - now + slackMs))
    end
  end
end

local idx = KEYS[2 * n + m + 1]
local out = { 'ok' }
local reserved = {}
for j = 1, m do
  local bk = KEYS[2 * n + j]
  local s = redis.call('HMGET', bk, 's', 'r')
  local previous = tonumber(s[1]) or 0
  local spent = round(previous + actualUsd)
  -- A reservation that already lapsed was given back then; an unknown admission ('') gives back its
  -- estimate, as before reservations had leases.
  local held = 1
  if id ~= '' then held = redis.call('ZREM', KEYS[2 * n + m + 2 + j], ARGV[3] .. '|' .. id) end
  local back = 0
  if held == 1 then back = admittedCost end
  reserved[j] = f(math.max(0, round((tonumber(s[2]) or 0) - back)))
  redis.call('HSET', bk, 's', f(spent), 'r', reserved[j])
  if budgetTtl > 0 then redis.call('PEXPIRE', bk, budgetTtl) end
  if not s[1] then redis.call('ZADD', idx, 0, ARGV[B + j]) end
  out[#out + 1] = f(previous)
  out[#out + 1] = f(spent)
end
for j = 1, m do out[#out + 1] = reserved[j] end
for i = 1, n do out[#out + 1] = busy[i] end
return out
`;

/** KEYS: b:<key> each. Returns spent, reserved per key ('' for an unknown key). */
export const BUDGETS_LUA = `
local out = {}
for i = 1, #KEYS do
  local s = redis.call('HMGET', KEYS[i], 's', 'r')
  out[#out + 1] = s[1] or ''
  out[#out + 1] = s[2] or ''
end
return out
`;

/**
 * KEYS: bidx. ARGV: the budget key prefix asked for, the prefix of budget hashes (<prefix>b:).
 * Returns key, spent, reserved per live counter; drops index entries whose counter has expired.
 */
export const BUDGETS_WITH_PREFIX_LUA = `
local names = redis.call('ZRANGEBYLEX', KEYS[1], '[' .. ARGV[1], '(' .. ARGV[1] .. '\\255')
local out = {}
for _, name in ipairs(names) do
  local s = redis.call('HMGET', ARGV[2] .. name, 's', 'r')
  if s[1] or s[2] then
    out[#out + 1] = name
    out[#out + 1] = s[1] or '0'
    out[#out + 1] = s[2] or '0'
  else
    redis.call('ZREM', KEYS[1], name)
  end
end
return out
`;

/** KEYS: b:<key>, bidx. ARGV: spent (already rounded), key, budgetTtlMs (0: none). Reservations are kept. */
export const SEED_LUA = `
if redis.call('HSETNX', KEYS[1], 'r', '0') == 1 then redis.call('ZADD', KEYS[2], 0, ARGV[2]) end
redis.call('HSET', KEYS[1], 's', ARGV[1])
if tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3])) end
return 1
`;
