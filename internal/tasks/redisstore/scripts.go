package redisstore

import (
	"sync"

	"github.com/redis/go-redis/v9"
)

// The Lua scripts that change a store's keys, each atomically. Every
// script takes the same six keys, in this order (see Store.keys):
//
//	KEYS[1] the task (a string: the task's JSON)
//	KEYS[2] the index (a sorted set: id by when the task may be dropped, ms)
//	KEYS[3] the active set (a sorted set: id of an unfinished task by the end of its lease, ms)
//	KEYS[4] the owner's set (a set: ids of the unfinished tasks of the task's owner)
//	KEYS[5] the byte count (a string: the sum of the sizes of the tasks kept)
//	KEYS[6] the sizes (a hash: id to the task's Size)
//
// Scripts answer with a word: ok, or why they changed nothing. Each is
// made (its SHA-1 taken) at first use, not at every start of toolhost.

// createScript stores a new task unless its id is taken, the index holds
// the most tasks kept, or its size would take the byte count past its cap.
// ARGV: id, json, size, max tasks, max bytes, drop score, lease score,
// key TTL (ms), owner set TTL (ms).
var createScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 'full' end
local size = tonumber(ARGV[3])
if size > 0 and tonumber(redis.call('GET', KEYS[5]) or '0') + size > tonumber(ARGV[5]) then return 'big' end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[8])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[7], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[1])
redis.call('PEXPIRE', KEYS[4], ARGV[9])
redis.call('INCRBY', KEYS[5], size)
redis.call('HSET', KEYS[6], ARGV[1], size)
return 'ok'
`)
})

// casScript replaces a task's JSON when it is still the one read (its
// SHA-1 is the one given: a compare-and-set), keeping the byte count, the
// index and the active and owner sets in step. A lease score of "" means
// the task is now finished.
// ARGV: id, SHA-1 of the JSON read, new json, new size, max bytes, drop
// score, lease score, key TTL (ms), owner set TTL (ms).
var casScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then return 'gone' end
if redis.sha1hex(cur) ~= ARGV[2] then return 'conflict' end
local old = tonumber(redis.call('HGET', KEYS[6], ARGV[1]) or '0')
local new = tonumber(ARGV[4])
if new > old and tonumber(redis.call('GET', KEYS[5]) or '0') + new - old > tonumber(ARGV[5]) then return 'big' end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[8])
redis.call('INCRBY', KEYS[5], new - old)
redis.call('HSET', KEYS[6], ARGV[1], new)
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
if ARGV[7] == '' then
  redis.call('ZREM', KEYS[3], ARGV[1])
  redis.call('SREM', KEYS[4], ARGV[1])
else
  redis.call('ZADD', KEYS[3], ARGV[7], ARGV[1])
  redis.call('PEXPIRE', KEYS[4], ARGV[9])
end
return 'ok'
`)
})

// trimScript drops the tasks whose drop score has passed, at most 1000 a
// call, and returns how many it dropped. Their task keys are named from
// the prefix, so the store runs on one Redis, not a cluster.
// KEYS: the index, the active set, the byte count, the sizes.
// ARGV: now (ms), the key prefix.
var trimScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1000)
for _, id in ipairs(ids) do
  local size = tonumber(redis.call('HGET', KEYS[4], id) or '0')
  redis.call('DECRBY', KEYS[3], size)
  redis.call('HDEL', KEYS[4], id)
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('DEL', ARGV[2] .. 'task:' .. id)
end
return #ids
`)
})

// firstUseScript records an approval's nonce as used, unless it was
// already, in a sorted set by expiry (ms) that it first rids of expired
// nonces; it refuses a new nonce when the set holds the most there may be.
// The set's TTL only grows: a nonce that expires soon (a state answered
// late) must not take the set, and the nonces that expire later, with it.
// KEYS: the set. ARGV: nonce, its expiry (ms), now (ms), the most nonces,
// the set's TTL (ms).
var firstUseScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 'used' end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 'full' end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
end
return 'ok'
`)
})
