/** One heartbeat's cache work in one round trip (kept in TypeScript so the bundle carries it). */
export const RECORD_SIGHTING_SCRIPT = `
-- Every key it touches is declared and carries the tenant's hash tag, as a cluster requires.
-- KEYS[1] the agent's hash (its manifest, when known: knownManifestHash, the hash it was reported with, and
-- its manifestId and supportedOperations), KEYS[2] the tenant's revoked certificate serials, KEYS[3] the
-- tenant's heartbeat count this minute, KEYS[4] the agent's pending-operation marker (a version the console
-- bumps whenever it queues one), KEYS[5] the agent's catch-up claim (present while a catch-up sent to it
-- holds off the next one), KEYS[6] the class index and KEYS[7] the class flow policy of the class ARGV[8]
-- (the agent's class as the caller expects it, '' for none), KEYS[8] the class index of the class ARGV[9]
-- (the class the caller expects the cache to hold for the agent, whose index the agent leaves when its
-- class changes), KEYS[9] the tenant's offline marks (the agents the sweeper announced offline), KEYS[10] the
-- tenant's restarting agents (those restarting for an operation Beacon delivered).
-- ARGV[1] now (ms), ARGV[2] checkpoint interval (ms), ARGV[3] agent id, ARGV[4] agent hash time to live (s),
-- ARGV[5] the certificate's serial, ARGV[6] counter time to live (s), ARGV[7] catch-up retry window (ms),
-- ARGV[10..] field/value pairs this heartbeat reports.
-- The reply's last value is the heartbeat's sequence among its agent's, from 1 again when the hash was lost.
local revocation = redis.call('HMGET', KEYS[2], ARGV[5], '#loaded')
if not revocation[2] then return {'unknown'} end
if revocation[1] then return {'revoked'} end
local previous = redis.call('HMGET', KEYS[1], 'registered', 'checkpointAt', 'agentClass', 'manifestHash', 'flowId',
  'describeUntil', 'knownManifestHash', 'manifestId', 'supportedOperations', 'resourceHash', 'device')
local reported = {}
for index = 10, #ARGV, 2 do reported[ARGV[index]] = ARGV[index + 1] end
local agentClass = reported['agentClass'] or previous[3]
-- The caller declared the keys of other classes than these: nothing is changed, and the reply names the
-- class the cache holds so that the next call declares the right ones.
if (agentClass or '') ~= ARGV[8] or (previous[3] and previous[3] ~= agentClass and previous[3] ~= ARGV[9]) then
  return {'class', previous[3] or ''}
end
if #ARGV >= 11 then redis.call('HSET', KEYS[1], unpack(ARGV, 10)) end
local manifestHash = reported['manifestHash'] or previous[4]
local flowId = reported['flowId'] or previous[5]
if agentClass then
  redis.call('ZADD', KEYS[6], ARGV[1], ARGV[3])
  if previous[3] and previous[3] ~= agentClass then redis.call('ZREM', KEYS[8], ARGV[3]) end
end
-- A registered agent's device other than the one held (JSON the agent API writes in one order) is kept
-- as a mark until the agent's next checkpoint, which writes it to the registry's profile: an address that
-- flaps costs one profile write a checkpoint interval at most.
if previous[1] == '1' and reported['device'] and reported['device'] ~= previous[11] then
  redis.call('HSET', KEYS[1], 'deviceChanged', '1')
end
local checkpointDue = 0
local deviceChanged = 0
if previous[1] == '1' and tonumber(ARGV[1]) - tonumber(previous[2] or '0') >= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'checkpointAt', ARGV[1])
  checkpointDue = 1
  deviceChanged = redis.call('HDEL', KEYS[1], 'deviceChanged')
end
-- The agent's manifest counts only for the hash it was reported with: a new hash is a manifest to learn.
local manifestId = false
local supportedOperations = false
if manifestHash and manifestHash == previous[7] then
  manifestId = previous[8]
  supportedOperations = previous[9]
end
-- The class's flow policy. Without 'loaded' the agent API has not read it from the registry (or its copy
-- expired); with 'loaded' alone the class has none. Catch-up waits for the agent's supported operations,
-- without which it cannot tell whether the agent takes the update.
local classFlowUnknown = 0
local catchUpFlow = false
local catchUpAckTimeout = false
if agentClass then
  local policy = redis.call('HMGET', KEYS[7], 'loaded', 'target', 'accepted', 'ackTimeoutMs')
  if not policy[1] then
    classFlowUnknown = 1
  elseif policy[2] and supportedOperations then
    local current = false
    for accepted in string.gmatch(policy[3] or '', '%S+') do
      if accepted == flowId then current = true end
    end
    -- The claim holds off the next catch-up to the same flow for the retry window, so an agent that fails
    -- to apply it is sent it again only then, and concurrent heartbeats of one agent send it once; a
    -- claim for another flow (the class's target changed since) holds nothing off.
    if not current and redis.call('GET', KEYS[5]) ~= policy[2] then
      redis.call('SET', KEYS[5], policy[2], 'PX', ARGV[7])
      catchUpFlow = policy[2]
      catchUpAckTimeout = policy[4]
    end
  end
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
return {
  'recorded', previous[1] or '', agentClass or '', manifestHash or '', flowId or '',
  previous[3] or '', previous[4] or '', previous[5] or '',
  supportedOperations or '', checkpointDue, previous[6] or '', pending or '',
  classFlowUnknown, catchUpFlow or '', catchUpAckTimeout or '', manifestId or '',
  runStatuses[1] or '', runStatuses[2] or '', previous[10] or '', offline or '', deviceChanged, sequence
}
`;

/**
 * The sweeper's look at one class: marks offline, once each, up to ARGV[2] of the agents of the class index
 * KEYS[1] last seen before ARGV[1] (ms), in the tenant's offline marks KEYS[2], and returns them with their
 * last seen (flattened pairs), after whether it stopped at its limit. It goes on from where the previous look
 * at the class ARGV[3] stopped, kept in KEYS[3] as the score reached and how many entries of that score were
 * passed: an agent's score only grows (each heartbeat sets it to now), so the entries below are ones looked
 * at already, and each look costs O(log n + limit) however many agents stay silent. (Should one of several
 * agents last seen in one millisecond come back between two looks, one of the others may go unannounced.)
 *
 * An agent restarting for an operation (in the tenant's restarting agents KEYS[4], with when its restart
 * should be over) counts as silent only from then on. Went past while that time is not before ARGV[1], it is
 * kept in the class's passed restarts KEYS[5], scored by that time, which each look reads first (within its
 * limit): one whose heartbeat since cleared its restart goes, one still silent is marked then. A restart
 * remembered anew in the meantime (the agent came back, and was sent another) keeps it there until that one
 * is over.
 */
export const MARK_OVERDUE_SCRIPT = `
local cutoff = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local marked = {}
local function mark(agent, score)
  if redis.call('HSETNX', KEYS[2], agent, score) == 1 then
    marked[#marked + 1] = agent
    marked[#marked + 1] = score
  end
end
-- Whether the agent restarts, and its restart's deadline while it is under way by the cutoff; a restart over
-- by then is forgotten.
local function restartOf(agent)
  local deadline = redis.call('HGET', KEYS[4], agent)
  if not deadline then return false, false end
  if tonumber(deadline) >= cutoff then return true, deadline end
  redis.call('HDEL', KEYS[4], agent)
  return true, false
end
local passed = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', '(' .. ARGV[1], 'LIMIT', 0, limit)
for _, agent in ipairs(passed) do
  local restarting, underWay = restartOf(agent)
  if underWay then
    redis.call('ZADD', KEYS[5], underWay, agent)
  else
    redis.call('ZREM', KEYS[5], agent)
    -- Without its restart, the agent heartbeat since: it came back.
    local score = redis.call('ZSCORE', KEYS[1], agent)
    if restarting and score and tonumber(score) < cutoff then mark(agent, score) end
  end
end
local left = limit - #passed
local entries = {}
local from, skip = '-inf', 0
if left > 0 then
  local cursor = redis.call('HGET', KEYS[3], ARGV[3])
  if cursor then
    local score, count = string.match(cursor, '^([%d.]+):(%d+)$')
    if score then from, skip = score, tonumber(count) end
  end
  -- Only entries of that very score are skipped: some of those passed may have heartbeat since, and left it.
  if skip > 0 then skip = math.min(skip, redis.call('ZCOUNT', KEYS[1], from, from)) end
  entries = redis.call('ZRANGEBYSCORE', KEYS[1], from, '(' .. ARGV[1], 'WITHSCORES', 'LIMIT', skip, left)
end
local last, lastCount = from, skip
for index = 1, #entries, 2 do
  local agent, score = entries[index], entries[index + 1]
  if score == last then lastCount = lastCount + 1 else last, lastCount = score, 1 end
  local _, underWay = restartOf(agent)
  if underWay then redis.call('ZADD', KEYS[5], underWay, agent) else mark(agent, score) end
end
if #entries > 0 then redis.call('HSET', KEYS[3], ARGV[3], last .. ':' .. lastCount) end
local full = 0
if #passed + #entries / 2 >= limit then full = 1 end
return {full, marked}
`;

/**
 * Clears an agent's pending-operation marker only if nothing was queued since the heartbeat read it:
 * a console that queued meanwhile bumped the version, and the next heartbeat looks again.
 */
export const CLEAR_PENDING_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
