import { LuaScript } from './lua.js';

/**
 * The store's Lua scripts. Redis runs a script atomically (nothing else runs meanwhile) but does
 * NOT roll back what a script already wrote when a later command fails. So every script here
 * is in two phases: first reads and checks (argument validation, the revision, the type of every
 * key it will write: a read of the right type proves it), then writes that cannot fail. The
 * only key written without a proving read is the one written first.
 *
 * Blobs travel as single arguments (never unpack()ed lists of pairs), and no script loops over
 * pairs: the commands a run costs do not grow with its pairs (INFO commandstats counts the
 * commands run inside scripts too; test/store/network-state.test.ts counts them).
 */

const PRELUDE = `
local function fail(message) return redis.error_reply('THM_STORE ' .. message) end
local function isType(key, wanted)
  local t = redis.call('TYPE', key)['ok']
  return t == 'none' or t == wanted
end
`;

/**
 * A run's whole effect.
 * KEYS: 1 network hash, 2 outbox bodies, 3 outbox pending, 4 invoice list, 5 networks set,
 *   6 the run's listing (store/keys.ts)
 * ARGV: revField, indexField, runField, sentField, expectedRev, force ('1'/'0'), runJson,
 *   sentAppend, cutoff (as-of date: dated fields older are pruned), indexAdd (index lines of
 *   the fields written, store/keys.ts indexLine), networkId, nSet, nSet x (field, value), nDel, nDel x field,
 *   nNotif, nNotif x (id, json, dueAt), invoiceJson ('' none), invoiceKeep,
 *   listing ('' none: the key is left as it is), listingExpiresAt (epoch ms)
 * Returns {'ok', newRev} | {'exists', runJson} | {'conflict', currentRev}
 */
export const commitScript = new LuaScript(
  'commit',
  `${PRELUDE}
local net, bodies, pending, invoices, networks, listingKey =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local at = 0
local function arg() at = at + 1; return ARGV[at] end
local revField, indexField, runField, sentField = arg(), arg(), arg(), arg()
local expectedRev = tonumber(arg())
local force = arg() == '1'
local runJson, sentAppend, cutoff, indexAdd, networkId = arg(), arg(), arg(), arg(), arg()
if expectedRev == nil then return fail('invalid expected revision') end
local nSet = tonumber(arg())
if nSet == nil then return fail('invalid field count') end
local setArgs = {}
for j = 1, nSet * 2 do setArgs[j] = arg() end
local nDel = tonumber(arg())
if nDel == nil then return fail('invalid delete count') end
local delFields = {}
for j = 1, nDel do delFields[j] = arg() end
local nNotif = tonumber(arg())
if nNotif == nil then return fail('invalid notification count') end
local notifIds, notifJson, notifDue = {}, {}, {}
for j = 1, nNotif do
  notifIds[j] = arg(); notifJson[j] = arg(); notifDue[j] = tonumber(arg())
  if notifDue[j] == nil or notifDue[j] ~= notifDue[j] then
    return fail('invalid due time of notification ' .. tostring(notifIds[j]))
  end
end
local invoiceJson = arg()
local invoiceKeep = tonumber(arg())
if invoiceJson ~= '' and (invoiceKeep == nil or invoiceKeep < 1) then
  return fail('invalid invoice retention')
end
local listing = arg()
local listingExpiresAt = tonumber(arg())
if listing ~= '' and (listingExpiresAt == nil or listingExpiresAt < 1) then
  return fail('invalid listing expiry')
end

-- Phase 1: reads and checks only.
local cur = redis.call('HMGET', net, revField, runField, sentField, indexField)
if cur[2] and not force then
  -- Only a record known to be failed may be replaced without force.
  local ok, rec = pcall(cjson.decode, cur[2])
  if not ok or type(rec) ~= 'table' or rec.outcome ~= 'failed' then return {'exists', cur[2]} end
end
local rev = tonumber(cur[1] or '0')
if rev ~= expectedRev then return {'conflict', tostring(rev)} end
local fresh = {}
if nNotif > 0 then
  local existing = redis.call('HMGET', bodies, unpack(notifIds))
  local seen = {}
  for j = 1, nNotif do
    if not existing[j] and not seen[notifIds[j]] then
      seen[notifIds[j]] = true
      fresh[#fresh + 1] = j
    end
  end
end
local firstCommit = not cur[1]
if firstCommit and not isType(networks, 'set') then return fail('WRONGTYPE ' .. networks) end
if invoiceJson ~= '' and not isType(invoices, 'list') then return fail('WRONGTYPE ' .. invoices) end
-- The pending zset is not checked: it is the first key written, so a WRONGTYPE there
-- aborts the script before anything was written. Nor is the listing: SET replaces a key of
-- any type.

-- Index lines: "<head> <field>", the head an as-of date, or for a run record
-- "<as-of>|<finishedAt>|<outcome>" (store/keys.ts, indexLine), compared with the cutoff as its date.
local kept, present, prune = {}, {}, {}
for line in string.gmatch(cur[4] or '', '[^\\n]+') do
  local sp = string.find(line, ' ', 1, true)
  if sp then
    local date, field = string.sub(line, 1, sp - 1), string.sub(line, sp + 1)
    if date < cutoff then
      prune[#prune + 1] = field
    elseif not present[field] then
      kept[#kept + 1] = line
      present[field] = #kept
    end
  end
end
-- A field written again (a failed record replaced, a forced re-run) gets its new line in place.
for line in string.gmatch(indexAdd, '[^\\n]+') do
  local sp = string.find(line, ' ', 1, true)
  local field = string.sub(line, sp + 1)
  if present[field] then
    kept[present[field]] = line
  else
    kept[#kept + 1] = line
    present[field] = #kept
  end
end

-- Phase 2: writes.
if #fresh > 0 then
  local zargs, hargs = {}, {}
  for _, j in ipairs(fresh) do
    zargs[#zargs + 1] = notifDue[j]; zargs[#zargs + 1] = notifIds[j]
    hargs[#hargs + 1] = notifIds[j]; hargs[#hargs + 1] = notifJson[j]
  end
  redis.call('ZADD', pending, unpack(zargs))
  redis.call('HSET', bodies, unpack(hargs))
end
local hset = {revField, tostring(rev + 1), runField, runJson, indexField, table.concat(kept, '\\n')}
if sentAppend ~= '' then
  hset[#hset + 1] = sentField
  hset[#hset + 1] = (cur[3] or '') .. sentAppend
end
for j = 1, #setArgs do hset[#hset + 1] = setArgs[j] end
redis.call('HSET', net, unpack(hset))
for j = 1, #delFields do prune[#prune + 1] = delFields[j] end
for j = 1, #prune, 500 do
  redis.call('HDEL', net, unpack(prune, j, math.min(j + 499, #prune)))
end
if firstCommit then redis.call('SADD', networks, networkId) end
if invoiceJson ~= '' then
  redis.call('LPUSH', invoices, invoiceJson)
  redis.call('LTRIM', invoices, 0, invoiceKeep - 1)
end
-- An expiry already past (a run that finished longer ago than the listings are kept) leaves
-- no key.
if listing ~= '' then redis.call('SET', listingKey, listing, 'PXAT', listingExpiresAt) end
return {'ok', tostring(rev + 1)}
`,
);

/**
 * Reads one silence line's id and expiry (lines are JSON objects written by the store).
 */
const SILENCE_LINES = `
local function silenceLines(raw, now)
  local live, expired = {}, {}
  for line in string.gmatch(raw or '', '[^\\n]+') do
    local ok, s = pcall(cjson.decode, line)
    if ok and type(s) == 'table' then
      if tonumber(s.expiresAt) and tonumber(s.expiresAt) > now then
        live[#live + 1] = {line = line, id = s.id}
      elseif s.id then
        expired[#expired + 1] = s.id
      end
    end
  end
  return live, expired
end
`;

/**
 * KEYS: 1 network hash, 2 silence-ids hash, 3 networks set
 * ARGV: silencesField, id, line, networkId, now
 * Returns 1, or 0 when the id is taken. Drops silences expired before `now` on the way (the
 * store passes now minus the retention of expired silences).
 */
export const addSilenceScript = new LuaScript(
  'add-silence',
  `${PRELUDE}${SILENCE_LINES}
local net, ids, networks = KEYS[1], KEYS[2], KEYS[3]
local field, id, line, networkId, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
if redis.call('HEXISTS', ids, id) == 1 then return 0 end
local live, expired = silenceLines(redis.call('HGET', net, field), now)
if not isType(networks, 'set') then return fail('WRONGTYPE ' .. networks) end
local out = {}
for _, s in ipairs(live) do out[#out + 1] = s.line end
out[#out + 1] = line
redis.call('SADD', networks, networkId)
redis.call('HSET', net, field, table.concat(out, '\\n'))
redis.call('HSET', ids, id, networkId)
if #expired > 0 then redis.call('HDEL', ids, unpack(expired)) end
return 1
`,
);

/**
 * KEYS: 1 network hash, 2 silence-ids hash
 * ARGV: silencesField, id, now
 * Returns 1 when an unexpired silence with that id was removed.
 */
export const removeSilenceScript = new LuaScript(
  'remove-silence',
  `${PRELUDE}${SILENCE_LINES}
local net, ids = KEYS[1], KEYS[2]
local field, id, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local live, expired = silenceLines(redis.call('HGET', net, field), now)
local out, removed = {}, 0
for _, s in ipairs(live) do
  if s.id == id then removed = 1 else out[#out + 1] = s.line end
end
redis.call('HGET', ids, id) -- proves the type of the ids hash before the first write
if #out > 0 then
  redis.call('HSET', net, field, table.concat(out, '\\n'))
else
  redis.call('HDEL', net, field)
end
expired[#expired + 1] = id
redis.call('HDEL', ids, unpack(expired))
return removed
`,
);

/**
 * KEYS: 1 network hash, 2 invoice list, 3 networks set, 4 silence-ids hash
 * ARGV: silencesField, networkId
 */
export const deleteNetworkScript = new LuaScript(
  'delete-network',
  `${PRELUDE}${SILENCE_LINES}
local net, invoices, networks, ids = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local live, expired = silenceLines(redis.call('HGET', net, ARGV[1]), 0)
if not isType(networks, 'set') then return fail('WRONGTYPE ' .. networks) end
redis.call('HEXISTS', ids, '') -- proves the type of the ids hash before the first write
for _, s in ipairs(live) do expired[#expired + 1] = s.id end
redis.call('SREM', networks, ARGV[2])
for j = 1, #expired, 500 do
  redis.call('HDEL', ids, unpack(expired, j, math.min(j + 499, #expired)))
end
return redis.call('DEL', net, invoices)
`,
);

/**
 * Outbox transitions. KEYS: 1 bodies, 2 meta, 3 pending, 4 sent, 5 failed, 6 the id's lease
 * ARGV: op, id, at, error, retentionCutoff, maxSent
 * Every transition ends the delivery lease (see leaseScript).
 *   op 'attempt': pending only; attempts+1, lastError, due again at 'at'
 *   op 'sent': pending or failed -> sent at 'at'; trims sent entries (older than cutoff or
 *     beyond maxSent)
 *   op 'failed': pending -> failed at 'at', lastError
 *   op 'retry': failed -> pending, due at 'at', attempts back to 0 (a fresh start: the backoff
 *     and a channel's give-up bound count from here)
 * Returns 1 when the transition happened, 0 when the entry was not in a state that allows it.
 */
export const outboxScript = new LuaScript(
  'outbox',
  `${PRELUDE}
local bodies, metas, pending, sent, failed = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local op, id, at, err = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
if at == nil then return fail('invalid time') end
if op ~= 'retry' then redis.call('DEL', KEYS[6]) end
if redis.call('HEXISTS', bodies, id) == 0 then return 0 end
local raw = redis.call('HGET', metas, id)
local meta = {state = 'pending', attempts = 0}
if raw then meta = cjson.decode(raw) end
local inPending = redis.call('ZSCORE', pending, id)
local inFailed = redis.call('ZSCORE', failed, id)
local inSent = redis.call('ZSCORE', sent, id)
if op == 'attempt' then
  if not inPending then return 0 end
  meta.attempts = (meta.attempts or 0) + 1
  meta.lastError = err
  meta.nextAttemptAt = at
  redis.call('ZADD', pending, at, id)
elseif op == 'sent' then
  if inSent then return 0 end
  meta.attempts = (meta.attempts or 0) + 1
  meta.state = 'sent'
  meta.sentAt = at
  meta.nextAttemptAt = nil
  redis.call('ZREM', pending, id)
  redis.call('ZREM', failed, id)
  redis.call('ZADD', sent, at, id)
  local old = redis.call('ZRANGEBYSCORE', sent, '-inf', '(' .. ARGV[5])
  local excess = redis.call('ZCARD', sent) - #old - tonumber(ARGV[6])
  if excess > 0 then
    local more = redis.call('ZRANGE', sent, #old, #old + excess - 1)
    for _, x in ipairs(more) do old[#old + 1] = x end
  end
  for j = 1, #old, 500 do
    local chunk = {unpack(old, j, math.min(j + 499, #old))}
    redis.call('ZREM', sent, unpack(chunk))
    redis.call('HDEL', bodies, unpack(chunk))
    redis.call('HDEL', metas, unpack(chunk))
  end
  for _, x in ipairs(old) do if x == id then return 1 end end
elseif op == 'failed' then
  if not inPending then return 0 end
  meta.attempts = (meta.attempts or 0) + 1
  meta.state = 'failed'
  meta.lastError = err
  meta.failedAt = at
  meta.nextAttemptAt = nil
  redis.call('ZREM', pending, id)
  redis.call('ZADD', failed, at, id)
elseif op == 'retry' then
  if not inFailed then return 0 end
  meta.state = 'pending'
  meta.attempts = 0
  meta.nextAttemptAt = at
  meta.failedAt = nil
  redis.call('ZREM', failed, id)
  redis.call('ZADD', pending, at, id)
else
  return fail('unknown outbox operation ' .. tostring(op))
end
redis.call('HSET', metas, id, cjson.encode(meta))
return 1
`,
);

/**
 * The delivery lease of one notification. KEYS: 1 bodies, 2 meta, 3 pending, 4 the id's lease
 * ARGV: op, id, owner, leaseMs, now
 *   op 'claim': a pending entry whose nextAttemptAt (if any) is not after `now` and whose
 *     lease is free gets it (SET NX PX); returns {'claimed', bodyJson, metaJson or false}
 *     | {'not-due', dueAt} | {'busy'} | {'sent'} | {'failed'} | {'missing'}
 *   op 'release': deletes the lease if `owner` holds it; returns {'released'} or {'kept'}
 * The state check and the SET NX are one atomic step: a sender that finds the entry pending
 * and free is the only one sending it until the lease ends.
 */
export const leaseScript = new LuaScript(
  'lease',
  `${PRELUDE}
local bodies, metas, pending, lease = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local op, id, owner = ARGV[1], ARGV[2], ARGV[3]
if op == 'release' then
  if redis.call('GET', lease) == owner then
    redis.call('DEL', lease)
    return {'released'}
  end
  return {'kept'}
end
if op ~= 'claim' then return fail('unknown lease operation ' .. tostring(op)) end
local leaseMs = tonumber(ARGV[4])
if leaseMs == nil or leaseMs < 1 then return fail('invalid lease time') end
local body = redis.call('HGET', bodies, id)
if not body then return {'missing'} end
local raw = redis.call('HGET', metas, id)
if not redis.call('ZSCORE', pending, id) then
  if raw then return {cjson.decode(raw).state} end
  return {'missing'}
end
local now = tonumber(ARGV[5])
if now == nil then return fail('invalid time') end
if raw then
  local due = cjson.decode(raw).nextAttemptAt
  if due and due > now then return {'not-due', tostring(due)} end
end
if not redis.call('SET', lease, owner, 'NX', 'PX', math.floor(leaseMs)) then return {'busy'} end
return {'claimed', body, raw or false}
`,
);

/**
 * Entries added to the outbox on their own, without a run record. An id already in the outbox
 * (pending, sent or failed) is left as it is, so adding again never sends twice.
 * KEYS: 1 outbox bodies, 2 outbox pending. ARGV: n, n x (id, json, dueAt)
 * Returns the number added.
 */
export const outboxAddScript = new LuaScript(
  'outbox-add',
  `${PRELUDE}
local bodies, pending = KEYS[1], KEYS[2]
local n = tonumber(ARGV[1])
if n == nil then return fail('invalid notification count') end
local added = 0
for j = 0, n - 1 do
  local id, json, due = ARGV[2 + j * 3], ARGV[3 + j * 3], tonumber(ARGV[4 + j * 3])
  if due == nil then return fail('invalid due time of notification ' .. tostring(id)) end
  if redis.call('HEXISTS', bodies, id) == 0 then
    redis.call('ZADD', pending, due, id)
    redis.call('HSET', bodies, id, json)
    added = added + 1
  end
end
return added
`,
);

/**
 * The monitoring problem of a network whose own stored state is unreadable (its run can be
 * neither loaded nor committed): opens its unreadable-state episode, kept outside the network's
 * hash, and adds the problem notice (e-mail and channel deliveries) to the outbox, in one step.
 * An episode already open adds nothing: one notice per episode, however many runs and as-of
 * dates fail meanwhile. An id already in the outbox (pending, sent or failed) is left as it is.
 * KEYS: 1 unreadable-episodes hash, 2 outbox bodies, 3 outbox pending.
 * ARGV: networkId, episodeJson, n, n x (id, json, dueAt)
 * Returns the number of entries added, or -1 when the episode was open already.
 */
export const unreadableProblemScript = new LuaScript(
  'unreadable-problem',
  `${PRELUDE}
local episodes, bodies, pending = KEYS[1], KEYS[2], KEYS[3]
local networkId, episode = ARGV[1], ARGV[2]
local n = tonumber(ARGV[3])
if n == nil then return fail('invalid notification count') end
-- Phase 1: reads and checks only.
for j = 0, n - 1 do
  if tonumber(ARGV[6 + j * 3]) == nil then
    return fail('invalid due time of notification ' .. tostring(ARGV[4 + j * 3]))
  end
end
if not isType(episodes, 'hash') then return fail('WRONGTYPE ' .. episodes) end
if redis.call('HEXISTS', episodes, networkId) == 1 then return -1 end
local fresh = {}
for j = 0, n - 1 do
  if redis.call('HEXISTS', bodies, ARGV[4 + j * 3]) == 0 then fresh[#fresh + 1] = j end
end
-- Phase 2: writes (the pending zset first: a WRONGTYPE there aborts before anything is written).
for _, j in ipairs(fresh) do
  redis.call('ZADD', pending, tonumber(ARGV[6 + j * 3]), ARGV[4 + j * 3])
  redis.call('HSET', bodies, ARGV[4 + j * 3], ARGV[5 + j * 3])
end
redis.call('HSET', episodes, networkId, episode)
return #fresh
`,
);

/**
 * Ends a network's unreadable-state episode once its state reads again: the episode becomes the
 * network's open problem (unless one is open there already), so its next successful
 * traffic-check sends the one "restored" notice, as for any episode; the revision moves on, so
 * a run deciding meanwhile decides again with it.
 * KEYS: 1 unreadable-episodes hash, 2 network hash. ARGV: networkId, problemField, revField
 * Returns 1 when an episode was handed over, 0 when there was none.
 */
export const handOverEpisodeScript = new LuaScript(
  'hand-over-episode',
  `${PRELUDE}
local episodes, net = KEYS[1], KEYS[2]
local networkId, problemField, revField = ARGV[1], ARGV[2], ARGV[3]
-- Phase 1: reads and checks only.
local episode = redis.call('HGET', episodes, networkId)
if not episode then return 0 end
if not isType(net, 'hash') then return fail('WRONGTYPE ' .. net) end
local open = redis.call('HEXISTS', net, problemField) == 1
local hasRev = redis.call('HEXISTS', net, revField) == 1
-- An entry that is not what the store wrote is dropped, never copied into the network's hash.
local ok, decoded = pcall(cjson.decode, episode)
local readable = ok and type(decoded) == 'table'
-- Phase 2: writes (HINCRBY first: a revision that is not a number aborts before anything).
if hasRev then redis.call('HINCRBY', net, revField, 1) end
if readable and not open then redis.call('HSET', net, problemField, episode) end
redis.call('HDEL', episodes, networkId)
return 1
`,
);
