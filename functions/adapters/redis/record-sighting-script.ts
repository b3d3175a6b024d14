/** One heartbeat's cache work in one round trip (kept in TypeScript so the bundle carries it). */
export const RECORD_SIGHTING_SCRIPT = `
-- KEYS[1] the agent's hash, KEYS[2] the tenant's known manifests (hash -> supported operations),
-- KEYS[3] the tenant's revoked certificate serials, KEYS[4] the tenant's heartbeat count this minute,
-- KEYS[5] the agent's pending-operation marker (a version the console bumps whenever it queues one),
-- KEYS[6] the agent's catch-up claim (present while a catch-up sent to it holds off the next one).
-- ARGV[1] now (ms), ARGV[2] checkpoint interval (ms), ARGV[3] class index key prefix, ARGV[4] agent id,
-- ARGV[5] agent hash time to live (s), ARGV[6] the certificate's serial, ARGV[7] counter time to live (s),
-- ARGV[8] class flow policy key prefix, ARGV[9] catch-up retry window (ms),
-- ARGV[10..] field/value pairs this heartbeat reports.
local revocation = redis.call('HMGET', KEYS[3], ARGV[6], '#loaded')
if not revocation[2] then return {'unknown'} end
if revocation[1] then return {'revoked'} end
local previous = redis.call('HMGET', KEYS[1], 'registered', 'checkpointAt', 'agentClass', 'manifestHash', 'flowId', 'describeUntil')
local reported = {}
for index = 10, #ARGV, 2 do reported[ARGV[index]] = ARGV[index + 1] end
if #ARGV >= 11 then redis.call('HSET', KEYS[1], unpack(ARGV, 10)) end
local agentClass = reported['agentClass'] or previous[3]
local manifestHash = reported['manifestHash'] or previous[4]
local flowId = reported['flowId'] or previous[5]
-- The class index shares the tenant's hash tag with KEYS[1], so it lives in the same cluster slot.
if agentClass then
  redis.call('ZADD', ARGV[3] .. agentClass, ARGV[1], ARGV[4])
  if previous[3] and previous[3] ~= agentClass then redis.call('ZREM', ARGV[3] .. previous[3], ARGV[4]) end
end
local checkpointDue = 0
if previous[1] == '1' and tonumber(ARGV[1]) - tonumber(previous[2] or '0') >= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'checkpointAt', ARGV[1])
  checkpointDue = 1
end
local supportedOperations = false
if manifestHash then supportedOperations = redis.call('HGET', KEYS[2], manifestHash) end
-- The class's flow policy, in the same slot as the class index. Without 'loaded' the agent API has not
-- read it from the registry (or its copy expired); with 'loaded' alone the class has none. Catch-up waits
-- for the agent's supported operations, without which it cannot tell whether the agent takes the update.
local classFlowUnknown = 0
local catchUpFlow = false
local catchUpAckTimeout = false
if agentClass then
  local policy = redis.call('HMGET', ARGV[8] .. agentClass, 'loaded', 'target', 'accepted', 'ackTimeoutMs')
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
    if not current and redis.call('GET', KEYS[6]) ~= policy[2] then
      redis.call('SET', KEYS[6], policy[2], 'PX', ARGV[9])
      catchUpFlow = policy[2]
      catchUpAckTimeout = policy[4]
    end
  end
end
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('INCR', KEYS[4])
redis.call('EXPIRE', KEYS[4], ARGV[7])
local pending = redis.call('GET', KEYS[5])
return {
  'recorded', previous[1] or '', agentClass or '', manifestHash or '', flowId or '',
  previous[3] or '', previous[4] or '', previous[5] or '',
  supportedOperations or '', checkpointDue, previous[6] or '', pending or '',
  classFlowUnknown, catchUpFlow or '', catchUpAckTimeout or ''
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
