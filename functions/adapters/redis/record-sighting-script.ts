import { LOAD_SAMPLES_KEPT } from "../../core/agents/load-samples.js";

/**
 * One heartbeat's cache work in one round trip (kept in TypeScript so the bundle carries it). The target's
 * own rendering is the one whose class flow id is 'targetFlowId' (the rendering in force), not any of the
 * target's hash: a rollout of a class's staged values renders the target a second time.
 */
export const RECORD_SIGHTING_SCRIPT = `
-- Every key it touches is declared and carries the tenant's hash tag, as a cluster requires.
-- KEYS[1] the agent's hash (its manifest, when known: knownManifestHash, the hash it was reported with, and
-- its manifestId and supportedOperations, the serial of the certificate recorded for it, its own
-- parameter values, its pin and its assignment), KEYS[2] the tenant's revoked certificate serials, KEYS[3] the
-- tenant's heartbeat count this minute, KEYS[4] the agent's pending-operation marker (a version the console
-- bumps whenever it queues one), KEYS[5] the agent's catch-up claim (present while a catch-up sent to it
-- holds off the next one), KEYS[6] the class index and KEYS[7] the class flow policy of the class ARGV[8]
-- (the agent's class as the caller expects it, '' for none), KEYS[8] the class index of the class ARGV[9]
-- (the class the caller expects the cache to hold for the agent, whose index the agent leaves when its
-- class changes), KEYS[9] the tenant's offline marks (the agents the sweeper announced offline), KEYS[10] the
-- tenant's restarting agents (those restarting for an operation Beacon delivered), KEYS[11] and KEYS[12]
-- the tenant's agents by when they become overdue, and what the offline sweep tells of them (cache-keys.ts).
-- ARGV[1] now (ms), ARGV[2] checkpoint interval (ms), ARGV[3] agent id, ARGV[4] agent hash time to live (s),
-- ARGV[5] the certificate's serial, ARGV[6] counter time to live (s), ARGV[7] catch-up retry window (ms),
-- KEYS[13..17] the attention indexes of the class ARGV[8] (agents by reason: errorBulletins, backPressure,
-- offTarget, pinned, operationFailed; cache-keys.ts), KEYS[18..22] those of the class ARGV[9], which an agent
-- changing class leaves.
-- ARGV[10] how many heartbeats an agent misses before it is offline, ARGV[11] Beacon's default heartbeat
-- period (ms), ARGV[12] until when the heartbeat's ERROR bulletins hold the agent ('' for none), ARGV[13]
-- whether a queue it reports is back-pressured ('1', '0', '' when it reports none), ARGV[14] this heartbeat's
-- load sample (load-samples.ts, '' for none), kept in KEYS[23] the agent's recent samples, ARGV[15..]
-- field/value pairs this heartbeat reports. KEYS[24] the tenant's heartbeats ever taken, per class (a hash
-- that never expires: what the metrics' monotonic counter reads). KEYS[25] the version of the tenant's groups,
-- answered to an agent the cache does not hold as registered (about to register), and set to one of its
-- own ('<now>:<agent id>') while absent, so that a copy read after it holds only while no change replaced it.
-- The flow id of a rendering (the class's policy's, see class-flow-cache.ts) with an agent's own values
-- (its 'parameters', {name: [kind, text]}), spelled as parameters/rendered-flow-ids.ts spells it: a sensitive
-- parameter takes only a secret reference ('s') of the agent's.
local function ownFlowId(rendering, own)
  local lines = {rendering[1]}
  for _, parameter in ipairs(rendering[3]) do
    local name, kind, text = parameter[1], parameter[3], parameter[4]
    local mine = own[name]
    if mine and (parameter[2] == 0 or mine[1] == 's') then kind, text = mine[1], mine[2] end
    lines[#lines + 1] = name .. '\\n' .. kind .. #text .. ':' .. text
  end
  return redis.sha1hex(table.concat(lines, '\\n'))
end
local revocation = redis.call('HMGET', KEYS[2], ARGV[5], '#loaded')
if not revocation[2] then return {'unknown'} end
if revocation[1] then return {'revoked'} end
local previous = redis.call('HMGET', KEYS[1], 'registered', 'checkpointAt', 'agentClass', 'manifestHash', 'flowId',
  'describeUntil', 'knownManifestHash', 'manifestId', 'supportedOperations', 'resourceHash', 'device',
  'heartbeatPeriodMs', 'bulletinsThrough', 'certificate', 'parameters', 'ownIdsFor', 'ownTargetFlowId',
  'ownAcceptedIds', 'pin', 'assignment')
local reported = {}
for index = 15, #ARGV, 2 do reported[ARGV[index]] = ARGV[index + 1] end
local agentClass = reported['agentClass'] or previous[3]
-- The caller declared the keys of other classes than these: nothing is changed, and the reply names the
-- class the cache holds so that the next call declares the right ones.
if (agentClass or '') ~= ARGV[8] or (previous[3] and previous[3] ~= agentClass and previous[3] ~= ARGV[9]) then
  return {'class', previous[3] or ''}
end
if #ARGV >= 16 then redis.call('HSET', KEYS[1], unpack(ARGV, 15)) end
local manifestHash = reported['manifestHash'] or previous[4]
local flowId = reported['flowId'] or previous[5]
if agentClass then
  redis.call('ZADD', KEYS[6], ARGV[1], ARGV[3])
  redis.call('HINCRBY', KEYS[24], agentClass, 1)
  if previous[3] and previous[3] ~= agentClass then
    redis.call('ZREM', KEYS[8], ARGV[3])
    -- Its reasons go with it to its new class's indexes.
    for index = 0, 4 do
      local score = redis.call('ZSCORE', KEYS[18 + index], ARGV[3])
      if score then
        redis.call('ZREM', KEYS[18 + index], ARGV[3])
        redis.call('ZADD', KEYS[13 + index], score, ARGV[3])
      end
    end
  end
  -- The agents by reason: ERROR bulletins scored by until when they hold (those past it dropped as they are
  -- passed), the others by since when. A heartbeat that says nothing of a reason leaves it as it was.
  if ARGV[12] ~= '' then
    redis.call('ZREMRANGEBYSCORE', KEYS[13], '-inf', ARGV[1])
    redis.call('ZADD', KEYS[13], 'GT', ARGV[12], ARGV[3])
  end
  if ARGV[13] == '1' then
    redis.call('ZADD', KEYS[14], 'NX', ARGV[1], ARGV[3])
  elseif ARGV[13] == '0' then
    redis.call('ZREM', KEYS[14], ARGV[3])
  end
end
-- A registered agent's device other than the one held (JSON the agent API writes in one order) is kept
-- as a mark until the agent's next checkpoint, which writes it to the registry's profile: an address that
-- flaps costs one profile write a checkpoint interval at most.
if previous[1] == '1' and reported['device'] and reported['device'] ~= previous[11] then
  redis.call('HSET', KEYS[1], 'deviceChanged', '1')
end
local checkpointDue = false
local deviceChanged = false
if previous[1] == '1' and tonumber(ARGV[1]) - tonumber(previous[2] or '0') >= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'checkpointAt', ARGV[1])
  checkpointDue = true
  deviceChanged = redis.call('HDEL', KEYS[1], 'deviceChanged') == 1
end
-- The agent's manifest counts only for the hash it was reported with: a new hash is a manifest to learn.
local manifestId = false
local supportedOperations = false
local ownPeriod = false
if manifestHash and manifestHash == previous[7] then
  manifestId = previous[8]
  supportedOperations = previous[9]
  ownPeriod = previous[12]
end
-- The class's flow policy. Without 'loaded' the agent API has not read it from the registry (or its copy
-- expired), and without 'heartbeatPeriodMs' a Beacon that kept no period beside it wrote it: read again.
-- With 'loaded' and the period alone the class has none. Catch-up waits for the agent's supported
-- operations, without which it cannot tell whether the agent takes the update.
local classFlowUnknown = false
local catchUpHash = false
local catchUpFlow = false
local catchUpAckTimeout = false
if agentClass then
  local policy = redis.call('HMGET', KEYS[7], 'loaded', 'target', 'accepted', 'ackTimeoutMs', 'heartbeatPeriodMs',
    'targetFlowId', 'renderings')
  if not policy[1] or not policy[5] then
    classFlowUnknown = true
  elseif supportedOperations then
    -- An assignment holds the agent while the class's target is still the one it was assigned over ('-' for
    -- none): the class's next target makes it lapse, unwritten.
    local assignedOver, assigned = false, false
    if previous[20] then assignedOver, assigned = string.match(previous[20], '^(%S+) (.*)$') end
    if assignedOver ~= (policy[2] or '-') then assigned = false end
    -- A pinned agent's flow is its pin's, then an assigned one's its assignment's (the hash, then the flow ids
    -- it accepts, the first the one sent): never the class's, and that again should it report another.
    local held = previous[19] or assigned
    local targetHash, targetFlowId, acceptedIds
    if held then
      targetHash, acceptedIds = string.match(held, '^(%S+) (.*)$')
      targetFlowId = string.match(acceptedIds, '%S+')
    elseif policy[2] then
      targetHash, targetFlowId, acceptedIds = policy[2], policy[6] or policy[2], policy[3] or ''
    end
    -- An agent with values of its own runs its own rendering of each version that declares parameters:
    -- the class's flow ids of those renderings give way to the agent's.
    -- They are computed once per policy (its target and accepted ids name its renderings) and kept in the
    -- agent's hash until the policy or the agent's values change (both drop 'ownIdsFor').
    if targetHash and not held and previous[15] and policy[7] then
      local stamp = policy[2] .. ' ' .. acceptedIds
      if previous[16] == stamp then
        targetFlowId, acceptedIds = previous[17], previous[18]
      else
        local own = cjson.decode(previous[15])
        local ownIds = {}
        for _, rendering in ipairs(cjson.decode(policy[7])) do
          local id = ownFlowId(rendering, own)
          ownIds[rendering[2]] = id
          if rendering[2] == policy[6] then targetFlowId = id end
        end
        acceptedIds = string.gsub(acceptedIds, '%S+', ownIds)
        redis.call('HSET', KEYS[1], 'ownIdsFor', stamp, 'ownTargetFlowId', targetFlowId, 'ownAcceptedIds', acceptedIds)
      end
    end
    local current = not targetHash
    for accepted in string.gmatch(acceptedIds or '', '%S+') do
      if accepted == flowId then current = true end
    end
    -- A pinned agent is held apart from its class on purpose: pinned, never off target.
    local pinned, offTarget = previous[19] ~= false, false
    if not pinned then offTarget = not current end
    if pinned then redis.call('ZADD', KEYS[16], 'NX', ARGV[1], ARGV[3]) else redis.call('ZREM', KEYS[16], ARGV[3]) end
    if offTarget then redis.call('ZADD', KEYS[15], 'NX', ARGV[1], ARGV[3]) else redis.call('ZREM', KEYS[15], ARGV[3]) end
    -- The claim holds off the next catch-up to the same flow for the retry window, so an agent that fails
    -- to apply it is sent it again only then, and concurrent heartbeats of one agent send it once; a
    -- claim for another flow (the class's target or the agent's values changed since) holds nothing off.
    if not current and redis.call('GET', KEYS[5]) ~= targetFlowId then
      redis.call('SET', KEYS[5], targetFlowId, 'PX', ARGV[7])
      catchUpHash = targetHash
      catchUpFlow = targetFlowId
      catchUpAckTimeout = policy[4]
    end
  end
  -- When the agent becomes overdue: three of its own heartbeat periods from now, else of its class's, else
  -- of the period it was held to before (a class policy not loaded never shortens its allowance), else of
  -- Beacon's default.
  local period = ownPeriod or policy[5]
  if not period then
    local held = redis.call('HGET', KEYS[12], ARGV[3])
    period = (held and string.match(held, '^(%d+):')) or ARGV[11]
  end
  redis.call('ZADD', KEYS[11], tonumber(ARGV[1]) + tonumber(ARGV[10]) * tonumber(period), ARGV[3])
  redis.call('HSET', KEYS[12], ARGV[3], period .. ':' .. ARGV[1] .. ':' .. agentClass)
end
-- The agent's recent load, newest first and capped, lives as long as its hash: what its page charts.
if ARGV[14] ~= '' then
  redis.call('LPUSH', KEYS[23], ARGV[14])
  redis.call('LTRIM', KEYS[23], 0, ${LOAD_SAMPLES_KEPT - 1})
  redis.call('EXPIRE', KEYS[23], ARGV[4])
end
local sequence = redis.call('HINCRBY', KEYS[1], 'sequence', 1)
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('INCR', KEYS[3])
redis.call('EXPIRE', KEYS[3], ARGV[6])
-- An agent announced offline is back: the mark goes, and the reply says when it was last seen before.
local offline = redis.call('HGET', KEYS[9], ARGV[3])
if offline then redis.call('HDEL', KEYS[9], ARGV[3]) end
-- A restarting agent is back: its silence is over.
redis.call('HDEL', KEYS[10], ARGV[3])
local pending = redis.call('GET', KEYS[4])
-- While something may await its effect, the run statuses in force, which a minimized heartbeat may omit.
local runStatuses = {false, false}
if pending then runStatuses = redis.call('HMGET', KEYS[1], 'runStatus', 'processors') end
-- The reply: 'recorded', then what the heartbeat needs as name/value pairs (as HGETALL's), read by name
-- (hot-state.ts). A value that is absent, false or '' is left out; true is sent as 1.
local reply = {'recorded'}
local function answer(name, value)
  if value and value ~= '' then
    reply[#reply + 1] = name
    reply[#reply + 1] = value
  end
end
answer('registered', previous[1] == '1')
answer('agentClass', agentClass)
answer('manifestHash', manifestHash)
answer('flowId', flowId)
answer('previousAgentClass', previous[3])
answer('previousManifestHash', previous[4])
answer('previousFlowId', previous[5])
answer('previousResourceHash', previous[10])
answer('previousBulletinsThrough', previous[13])
answer('manifestId', manifestId)
answer('supportedOperations', supportedOperations)
answer('checkpointDue', checkpointDue)
answer('deviceChanged', deviceChanged)
answer('sequence', sequence)
answer('describePendingUntil', previous[6])
answer('operationsPending', pending)
answer('offlineLastSeen', offline)
answer('catchUpHash', catchUpHash)
answer('catchUpFlowId', catchUpFlow)
answer('catchUpAckTimeoutMs', catchUpAckTimeout)
answer('classFlowUnknown', classFlowUnknown)
answer('runStatus', runStatuses[1])
answer('processors', runStatuses[2])
answer('certificateRecorded', previous[14] == ARGV[5])
if previous[1] ~= '1' then
  local groupsVersion = redis.call('GET', KEYS[25])
  if not groupsVersion then
    groupsVersion = ARGV[1] .. ':' .. ARGV[3]
    redis.call('SET', KEYS[25], groupsVersion)
  end
  answer('groupsVersion', groupsVersion)
end
return reply
`;

/**
 * Learns the agent's manifest (KEYS[1] the agent's hash; ARGV[4] its hash, ARGV[5] its manifestId, ARGV[6]
 * its supported operations, ARGV[7] the heartbeat period it states, '' for none) for ARGV[2] seconds more.
 * Should it be the manifest the agent reports, its allowance since its last heartbeat is scheduled anew
 * with that period (three of them, ARGV[3]), in the tenant's agents by when they become overdue KEYS[2] and
 * what the sweep tells of them KEYS[3] (ARGV[1] the agent's id): its last heartbeat was scheduled before the
 * period was known.
 */
const REMEMBER_MANIFEST_FUNCTION = `
local function rememberManifest()
  redis.call('HSET', KEYS[1], 'knownManifestHash', ARGV[4], 'manifestId', ARGV[5], 'supportedOperations', ARGV[6])
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  if ARGV[7] == '' then return redis.call('HDEL', KEYS[1], 'heartbeatPeriodMs') end
  redis.call('HSET', KEYS[1], 'heartbeatPeriodMs', ARGV[7])
  local held = redis.call('HGET', KEYS[3], ARGV[1])
  if not held or redis.call('HGET', KEYS[1], 'manifestHash') ~= ARGV[4] then return 0 end
  local lastSeen, agentClass = string.match(held, '^%d+:(%d+):(.*)$')
  redis.call('ZADD', KEYS[2], tonumber(lastSeen) + tonumber(ARGV[3]) * tonumber(ARGV[7]), ARGV[1])
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[7] .. ':' .. lastSeen .. ':' .. agentClass)
  return 1
end
`;

/** The agent's manifest learned, as REMEMBER_MANIFEST_FUNCTION says. */
export const REMEMBER_MANIFEST_SCRIPT = `${REMEMBER_MANIFEST_FUNCTION}
return rememberManifest()
`;

/**
 * An agent the registry holds, in one round trip: ARGV[9..] the field/value pairs of the agent's hash KEYS[1]
 * that say so (its own values, pin and assignment among them), its class ARGV[8] in the tenant's classes
 * KEYS[4] (the reply: 1 when the set lacked it), and, unless ARGV[4] is '', the manifest it registered with,
 * as REMEMBER_MANIFEST_FUNCTION (the same KEYS[1..3] and ARGV[1..7]).
 */
export const MARK_REGISTERED_SCRIPT = `${REMEMBER_MANIFEST_FUNCTION}
redis.call('HSET', KEYS[1], unpack(ARGV, 9))
local classAdded = redis.call('SADD', KEYS[4], ARGV[8])
if ARGV[4] ~= '' then rememberManifest() end
return classAdded
`;

/**
 * The sweeper's look at one tenant: marks offline, once each, up to ARGV[2] of the agents overdue before
 * ARGV[1] (ms) in the tenant's agents by when they become overdue KEYS[1], earliest first, in the tenant's
 * offline marks KEYS[3]; returns them flattened (agent, last seen, heartbeat period, class, from what the
 * sweep is told of them, KEYS[2]), after whether it stopped at its limit. An agent marked leaves KEYS[1]
 * and KEYS[2], which its next heartbeat puts it back in: the sweep looks at a silent agent once per
 * outage, and each look costs O(log n + limit) however many agents stay silent.
 *
 * An agent restarting for an operation (in the tenant's restarting agents KEYS[4], with when its restart
 * should be over) counts as silent only from then on: while three of its periods (ARGV[3]) after that are
 * not over, it is scheduled for then instead. Once it is marked its restart is forgotten.
 */
export const MARK_OVERDUE_SCRIPT = `
local now = tonumber(ARGV[1])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, ARGV[2])
local marked = {}
for _, agent in ipairs(due) do
  local period, lastSeen, agentClass = string.match(redis.call('HGET', KEYS[2], agent) or '', '^(%d+):(%d+):(.*)$')
  local restartOver = redis.call('HGET', KEYS[4], agent)
  local allowance = restartOver and period and tonumber(restartOver) + tonumber(ARGV[3]) * tonumber(period)
  if allowance and allowance >= now then
    redis.call('ZADD', KEYS[1], allowance, agent)
  else
    redis.call('ZREM', KEYS[1], agent)
    redis.call('HDEL', KEYS[2], agent)
    if restartOver then redis.call('HDEL', KEYS[4], agent) end
    if period and redis.call('HSETNX', KEYS[3], agent, lastSeen) == 1 then
      marked[#marked + 1] = agent
      marked[#marked + 1] = lastSeen
      marked[#marked + 1] = period
      marked[#marked + 1] = agentClass
    end
  end
end
local full = 0
if #due >= tonumber(ARGV[2]) then full = 1 end
return {full, marked}
`;

/**
 * The one-off scheduling of one class's agents silent since before Beacon scheduled agents at each heartbeat:
 * reads up to ARGV[4] agents of the class index KEYS[1] by last seen, going on from where the previous call
 * for the class ARGV[1] stopped (kept in KEYS[5] as the score reached and how many entries of that score
 * were passed; an agent's score only grows, so those below were read already), and schedules each that no
 * heartbeat scheduled (KEYS[3], what the sweep is told of the agents scheduled) and that is not announced
 * offline (KEYS[4]) in KEYS[2], overdue three (ARGV[3]) of the class's periods ARGV[2] after its last seen.
 * Returns how many it read; the class is "done" in KEYS[5] once a call reads fewer than its limit.
 */
export const SCHEDULE_SILENT_SCRIPT = `
local limit = tonumber(ARGV[4])
local progress = redis.call('HGET', KEYS[5], ARGV[1])
if progress == 'done' then return 0 end
local from, skip = '-inf', 0
if progress then
  local score, count = string.match(progress, '^([%d.]+):(%d+)$')
  if score then from, skip = score, tonumber(count) end
end
-- Only entries of that very score are skipped: some of those passed may have heartbeat since, and left it.
if skip > 0 then skip = math.min(skip, redis.call('ZCOUNT', KEYS[1], from, from)) end
local entries = redis.call('ZRANGEBYSCORE', KEYS[1], from, '+inf', 'WITHSCORES', 'LIMIT', skip, limit)
local last, lastCount = from, skip
for index = 1, #entries, 2 do
  local agent, seen = entries[index], entries[index + 1]
  if seen == last then lastCount = lastCount + 1 else last, lastCount = seen, 1 end
  if redis.call('HEXISTS', KEYS[4], agent) == 0
    and redis.call('HSETNX', KEYS[3], agent, ARGV[2] .. ':' .. seen .. ':' .. ARGV[1]) == 1 then
    redis.call('ZADD', KEYS[2], tonumber(seen) + tonumber(ARGV[3]) * tonumber(ARGV[2]), agent)
  end
end
if #entries / 2 < limit then
  redis.call('HSET', KEYS[5], ARGV[1], 'done')
else
  redis.call('HSET', KEYS[5], ARGV[1], last .. ':' .. lastCount)
end
return #entries / 2
`;

/**
 * Clears an agent's pending-operation marker only if nothing was queued since the heartbeat read it:
 * a console that queued meanwhile bumped the version, and the next heartbeat looks again.
 */
export const CLEAR_PENDING_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
