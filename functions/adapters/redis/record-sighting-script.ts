/** One heartbeat's cache work in one round trip (kept in TypeScript so the bundle carries it). */
export const RECORD_SIGHTING_SCRIPT = `
-- KEYS[1] the agent's hash, KEYS[2] the tenant's known manifests (hash -> supported operations),
-- KEYS[3] the tenant's revoked certificate serials, KEYS[4] the tenant's heartbeat count this minute,
-- KEYS[5] the agent's pending-operation marker (a version the console bumps whenever it queues one).
-- ARGV[1] now (ms), ARGV[2] checkpoint interval (ms), ARGV[3] class index key prefix, ARGV[4] agent id,
-- ARGV[5] agent hash time to live (s), ARGV[6] the certificate's serial, ARGV[7] counter time to live (s),
-- ARGV[8..] field/value pairs this heartbeat reports.
local revocation = redis.call('HMGET', KEYS[3], ARGV[6], '#loaded')
if not revocation[2] then return {'unknown'} end
if revocation[1] then return {'revoked'} end
local previous = redis.call('HMGET', KEYS[1], 'registered', 'checkpointAt', 'agentClass', 'manifestHash', 'flowId', 'describeUntil')
local reported = {}
for index = 8, #ARGV, 2 do reported[ARGV[index]] = ARGV[index + 1] end
if #ARGV >= 9 then redis.call('HSET', KEYS[1], unpack(ARGV, 8)) end
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
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('INCR', KEYS[4])
redis.call('EXPIRE', KEYS[4], ARGV[7])
local pending = redis.call('GET', KEYS[5])
return {
  'recorded', previous[1] or '', agentClass or '', manifestHash or '', flowId or '',
  previous[3] or '', previous[4] or '', previous[5] or '',
  supportedOperations or '', checkpointDue, previous[6] or '', pending or ''
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
