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
-- class changes).
-- ARGV[1] now (ms), ARGV[2] checkpoint interval (ms), ARGV[3] agent id, ARGV[4] agent hash time to live (s),
-- ARGV[5] the certificate's serial, ARGV[6] counter time to live (s), ARGV[7] catch-up retry window (ms),
-- ARGV[10..] field/value pairs this heartbeat reports.
local revocation = redis.call('HMGET', KEYS[2], ARGV[5], '#loaded')
if not revocation[2] then return {'unknown'} end
if revocation[1] then return {'revoked'} end
local previous = redis.call('HMGET', KEYS[1], 'registered', 'checkpointAt', 'agentClass', 'manifestHash', 'flowId',
  'describeUntil', 'knownManifestHash', 'manifestId', 'supportedOperations', 'resourceHash')
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
local checkpointDue = 0
if previous[1] == '1' and tonumber(ARGV[1]) - tonumber(previous[2] or '0') >= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'checkpointAt', ARGV[1])
  checkpointDue = 1
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
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('INCR', KEYS[3])
redis.call('EXPIRE', KEYS[3], ARGV[6])
local pending = redis.call('GET', KEYS[4])
-- While something may await its effect, the run statuses in force, which a minimized heartbeat may omit.
local runStatuses = {false, false}
if pending then runStatuses = redis.call('HMGET', KEYS[1], 'runStatus', 'processors') end
return {
  'recorded', previous[1] or '', agentClass or '', manifestHash or '', flowId or '',
  previous[3] or '', previous[4] or '', previous[5] or '',
  supportedOperations or '', checkpointDue, previous[6] or '', pending or '',
  classFlowUnknown, catchUpFlow or '', catchUpAckTimeout or '', manifestId or '',
  runStatuses[1] or '', runStatuses[2] or '', previous[10] or ''
}
`;

/**
 * Clears an agent's pending-operation marker only if nothing was queued since the heartbeat read it:
 * a console that queued meanwhile bumped the version, and the next heartbeat looks again.
 */
export const CLEAR_PENDING_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
