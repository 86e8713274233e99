import type { Redis } from 'ioredis';

/**
 * The BullMQ adapter's own bookkeeping, each step one Lua script so it is
 * atomic in Redis. BullMQ holds the job and its lock (the lease token);
 * these scripts keep what BullMQ does not: delivery and dedupe keys, the
 * open jobs by issue and branch, cancel flags, checkpoints, the per-branch
 * lock, container slots and the history. Every write a worker makes first
 * checks BullMQ's lock key against its token, so it is fenced like BullMQ's own.
 */
class RedisScript {
  constructor(private readonly lua: string) {}

  // EVAL rather than EVALSHA: the scripts are small, and no reply text has to be read to fall back.
  run(redis: Redis, keys: string[], args: (string | number)[]): Promise<unknown> {
    return redis.eval(this.lua, keys.length, ...keys, ...args);
  }
}

/** KEYS: delivery, dedupe, open, latest. ARGV: id, open entry, request, dedupeMs. Returns the earlier job's id, or "" when accepted. */
export const ENQUEUE = new RedisScript(`
local earlier = redis.call('GET', KEYS[1]) or redis.call('GET', KEYS[2])
if earlier then return earlier end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[4])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[4])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('SET', KEYS[4], ARGV[3], 'PX', ARGV[4])
return ''
`);

/**
 * KEYS: lock, open, meta, done, serial, checkpoints. ARGV: id, token, leaseMs, maxRuns, now.
 * Returns {state, ...}: ok (open entry, run, checkpoints as a flat list), busy, done, cancelled (reason), abandoned (runs), lost.
 */
export const CLAIM = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return {'lost'} end
if redis.call('EXISTS', KEYS[4]) == 1 then return {'done'} end
local open = redis.call('HGET', KEYS[2], ARGV[1])
if not open then return {'done'} end
local cancel = redis.call('HGET', KEYS[3], 'cancel')
if cancel then return {'cancelled', cancel} end
local runs = tonumber(redis.call('HGET', KEYS[3], 'runs') or '0')
local handbacks = tonumber(redis.call('HGET', KEYS[3], 'handbacks') or '0')
if runs - handbacks >= tonumber(ARGV[4]) then return {'abandoned', tostring(runs)} end
local holder = redis.call('GET', KEYS[5])
if holder and holder ~= ARGV[1] then return {'busy'} end
redis.call('SET', KEYS[5], ARGV[1], 'PX', ARGV[3])
redis.call('HINCRBY', KEYS[3], 'runs', 1)
redis.call('HSETNX', KEYS[3], 'startedAt', ARGV[5])
return {'ok', open, tostring(runs + 1), redis.call('HGET', KEYS[3], 'startedAt'), redis.call('HGETALL', KEYS[6])}
`);

/** KEYS: lock, meta, serial, containers. ARGV: id, token, leaseMs, now. Returns {held} | {cancelled, reason} | {lost}. */
export const RENEW = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return {'lost'} end
local holder = redis.call('GET', KEYS[3])
if (not holder) or holder == ARGV[1] then redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[3]) end
if redis.call('ZSCORE', KEYS[4], ARGV[1]) then redis.call('ZADD', KEYS[4], ARGV[4] + ARGV[3], ARGV[1]) end
local cancel = redis.call('HGET', KEYS[2], 'cancel')
if cancel then return {'cancelled', cancel} end
return {'held'}
`);

/** KEYS: lock, checkpoints. ARGV: token, key, value. */
export const CHECKPOINT = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1
`);

/** KEYS: lock, containers. ARGV: id, token, max, now, leaseMs. Returns 1 when the slot is taken. */
export const ACQUIRE_CONTAINER = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[2], ARGV[4] + ARGV[5], ARGV[1])
return 1
`);

/** KEYS: lock, containers. ARGV: id, token. */
export const RELEASE_CONTAINER = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return 0 end
return redis.call('ZREM', KEYS[2], ARGV[1])
`);

/** KEYS: lock, meta, serial, containers. ARGV: id, token. Hands the job back: it does not count as a run that failed. */
export const HAND_BACK = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return 0 end
redis.call('HINCRBY', KEYS[2], 'handbacks', 1)
if redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
redis.call('ZREM', KEYS[4], ARGV[1])
return 1
`);

/** KEYS: open, meta. ARGV: id, reason. Returns 1 when the job was open and not cancelled before. */
export const FLAG_CANCEL = new RedisScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
if redis.call('HSETNX', KEYS[2], 'cancel', ARGV[2]) == 0 then return 0 end
return 1
`);

/**
 * KEYS: lock, open, meta, done, history, records, serial, containers, checkpoints, spend,
 * ci-verdicts, ci-waits, fixes, fix-keys.
 * ARGV: id, token ('' = whoever holds it), record, now, dedupeMs, maxAgeMs, maxRecords, costUsd, ledgerMs,
 * fix key ('' when the job pushed no commit).
 * Ends the job once: its record goes into the history, which is trimmed to the retention limits,
 * and its cost into the installation's spend ledger (`id|cost` scored by time), trimmed by age only.
 * A pushed commit is indexed to its job; a pruned job's CI verdict, wait and index entry go with it.
 */
export const FINISH = new RedisScript(`
if ARGV[2] ~= '' and redis.call('GET', KEYS[1]) ~= ARGV[2] then return 0 end
if redis.call('HDEL', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('DEL', KEYS[3], KEYS[9])
redis.call('SET', KEYS[4], '1', 'PX', ARGV[5])
redis.call('ZADD', KEYS[5], ARGV[4], ARGV[1])
redis.call('HSET', KEYS[6], ARGV[1], ARGV[3])
if redis.call('GET', KEYS[7]) == ARGV[1] then redis.call('DEL', KEYS[7]) end
redis.call('ZREM', KEYS[8], ARGV[1])
if tonumber(ARGV[8]) > 0 then redis.call('ZADD', KEYS[10], ARGV[4], ARGV[1] .. '|' .. ARGV[8]) end
if ARGV[10] ~= '' then
  redis.call('HSET', KEYS[13], ARGV[10], ARGV[1])
  redis.call('HSET', KEYS[14], ARGV[1], ARGV[10])
end
redis.call('ZREMRANGEBYSCORE', KEYS[10], '-inf', '(' .. (tonumber(ARGV[4]) - tonumber(ARGV[9])))
local drop = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', tonumber(ARGV[4]) - tonumber(ARGV[6]))
local extra = redis.call('ZCARD', KEYS[5]) - #drop - tonumber(ARGV[7])
if extra > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[5], #drop, #drop + extra - 1)) do table.insert(drop, id) end
end
for _, id in ipairs(drop) do
  redis.call('ZREM', KEYS[5], id)
  redis.call('HDEL', KEYS[6], id)
  redis.call('HDEL', KEYS[11], id)
  redis.call('ZREM', KEYS[12], id)
  local fix = redis.call('HGET', KEYS[14], id)
  if fix then
    redis.call('HDEL', KEYS[14], id)
    if redis.call('HGET', KEYS[13], fix) == id then redis.call('HDEL', KEYS[13], fix) end
  end
end
return 1
`);

/** KEYS: records, ci-verdicts, ci-waits. ARGV: id, verdict. The first verdict stands, and ends the wait. */
export const RECORD_CI_VERDICT = new RedisScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
`);

/** KEYS: records, ci-verdicts, ci-waits. ARGV: id, when the wait ends ('' = no wait). Returns 0 when gone or judged. */
export const AWAIT_CI_VERDICT = new RedisScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 or redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
if ARGV[2] == '' then redis.call('ZREM', KEYS[3], ARGV[1]) else redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1]) end
return 1
`);
