package io.zkfence.redis;

/**
 * The Lua the fence runs on the server. Every fenced call is one script or one call of a function
 * of {@link #LIBRARY}, so the token check, the fence record's advance and the writes are one
 * atomic step: Redis runs a script or a function to its end before any other command.
 *
 * <p>Calling convention of the fenced scripts and functions: {@code KEYS[1]} the fence record, {@code KEYS[2]}
 * the floor of its slot, then the data keys; {@code ARGV[1]} the token (a canonical decimal),
 * {@code ARGV[2]} {@code strict} or {@code trust} (the restart policy), then the writes'
 * arguments. Tokens are compared as decimal strings (longer is larger, then lexically): Lua's
 * numbers are doubles, exact only to 2^53, and tokens are any positive {@code long}.
 *
 * <p>Replies, always an array whose first element says what happened: {@code ok} (then the
 * replies of the writes), {@code stale <stored>}, {@code unseeded}, {@code restarted <seeded run>
 * <current run>}, {@code invalid <what the record holds>}, {@code failed <write #> <error>}.
 */
final class Scripts {

    /**
     * The fence's Lua, shared by the scripts and the function library: local functions only, so
     * that what follows it decides what runs. {@code check(keys, args, run)} checks the token
     * ({@code args[1]}) against the record ({@code keys[1]}) and the slot's floor ({@code keys[2]})
     * and advances the record; it answers the reply that ends the call ({@code unseeded},
     * {@code restarted}, {@code invalid}, {@code stale}), or nil when the writes may run. Under the
     * {@code strict} policy it asks {@code run()} for the server's run id: {@code serverRun} reads
     * it with {@code INFO}; the library passes a function that keeps it. {@code writes(keys, args)}
     * runs the fenced writes (see {@link #WRITES}) and answers {@code ok} or {@code failed}.
     *
     * <p>A single write (the count in {@code args[3]} is 1) skips the loop: its keys are
     * {@code keys[3..]} and its arguments {@code args[7..]}, called directly. That saves the
     * server 0.3 to 0.4 µs of about 5 µs per fenced write (a function with it against one without,
     * eight alternating {@code redis-benchmark} runs of each on one server).
     */
    private static final String FENCE = """
            local function above(a, b)
              if #a ~= #b then return #a > #b end
              return a > b
            end
            local function serverRun()
              return string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
            end
            local function check(keys, args, run)
              local token = args[1]
              local floor = redis.call('HMGET', keys[2], 'floor', 'run')
              if not floor[1] then return {'unseeded'} end
              if args[2] == 'strict' then
                local current = run()
                if floor[2] ~= current then return {'restarted', floor[2] or '', current or ''} end
              end
              local stored = redis.pcall('GET', keys[1])
              if type(stored) == 'table' and stored.err then return {'invalid', stored.err} end
              if stored and not string.match(stored, '^[1-9]%d*$') then return {'invalid', stored} end
              local effective = floor[1]
              if stored and above(stored, effective) then effective = stored end
              if above(effective, token) then return {'stale', effective} end
              if not stored or above(token, stored) then redis.call('SET', keys[1], token) end
              return nil
            end
            local function writes(keys, args)
              local count = tonumber(args[3])
              if count == 1 then
                local call = {}
                for i = 3, #keys do call[#call + 1] = keys[i] end
                for i = 7, #args do call[#call + 1] = args[i] end
                local r = redis.pcall(args[4], unpack(call))
                if type(r) == 'table' and r.err then return {'failed', '1', r.err} end
                return {'ok', r}
              end
              local replies = {'ok'}
              local a = 4
              local k = 3
              for w = 1, count do
                local name = args[a]
                local nkeys = tonumber(args[a + 1])
                local nargs = tonumber(args[a + 2])
                a = a + 3
                local call = {}
                for i = 1, nkeys do call[#call + 1] = keys[k]; k = k + 1 end
                for i = 1, nargs do call[#call + 1] = args[a]; a = a + 1 end
                local r = redis.pcall(name, unpack(call))
                if type(r) == 'table' and r.err then return {'failed', tostring(w), r.err} end
                replies[#replies + 1] = r
              end
              return replies
            end
            """;

    /**
     * The fenced writes: {@code ARGV[3]} is their count, then per write its command, how many
     * keys it takes (the next ones of {@code KEYS}, in order) and how many arguments (the next
     * ones of {@code ARGV}). A write that fails stops the script; the writes before it stay (Redis
     * does not roll a script back) and so does the fence's advance. The run id is read with
     * {@code INFO} on every call.
     */
    static final Script WRITES = Script.of(FENCE + """
            return check(KEYS, ARGV, serverRun) or writes(KEYS, ARGV)
            """);

    /**
     * The fenced writes as a Redis 7 function library ({@code FUNCTION LOAD}, {@code FCALL}): the
     * same Lua as {@link #WRITES} ({@code FENCE}), with the same keys and arguments, but the
     * server's run id is read with {@code INFO} once per life of the library, not on every call.
     *
     * <p>Why that cache cannot outlive the run id it holds: {@code run} is a chunk-level local of
     * the library, an upvalue of its functions, living as long as the library's Lua state. The
     * server builds that state when it loads the library: at its start (from the RDB or the
     * append-only file), and on {@code FUNCTION LOAD}, {@code FLUSH} and {@code RESTORE}. A restart
     * or failover, the only ways the run id changes, therefore always meets an empty cache
     * ({@code RestartTest} checks it on the real server).
     */
    static final Library LIBRARY = Library.of(FENCE + """
            local run = nil
            local function cachedRun()
              if not run then run = serverRun() end
              return run
            end
            redis.register_function('$LIB_writes', function(keys, args)
              return check(keys, args, cachedRun) or writes(keys, args)
            end)
            redis.register_function{function_name = '$LIB_run', callback = function() return run or false end,
              flags = {'no-writes'}}
            """);

    /** The fence record and the slot's floor: {@code KEYS[1]}, {@code KEYS[2]}. */
    static final Script READ = Script.of("""
            local stored = redis.pcall('GET', KEYS[1])
            if type(stored) == 'table' and stored.err then return {'invalid', stored.err} end
            local floor = redis.call('HMGET', KEYS[2], 'floor', 'run')
            return {'ok', stored, floor[1], floor[2]}
            """);

    /**
     * Raises the floors in {@code KEYS} (one slot's on Redis Cluster, a batch of slots' on a single
     * server) to {@code ARGV[1]} unless higher already, and stamps each with this server's run id.
     * Answers the lowest floor it left, the server's eviction policy and its run id.
     */
    static final Script SEED = Script.of("""
            local function above(a, b)
              if #a ~= #b then return #a > #b end
              return a > b
            end
            local function field(section, name)
              local info = redis.pcall('INFO', section)
              if type(info) ~= 'string' then return '' end
              return string.match(info, name .. ':([^\\r\\n]*)') or ''
            end
            local run = field('server', 'run_id')
            local lowest = nil
            for _, key in ipairs(KEYS) do
              local floor = ARGV[1]
              local current = redis.call('HGET', key, 'floor')
              if current and above(current, floor) then floor = current end
              redis.call('HSET', key, 'floor', floor, 'run', run)
              if not lowest or above(lowest, floor) then lowest = floor end
            end
            return {'ok', lowest, field('memory', 'maxmemory_policy'), run}
            """);

    /** Whether the server runs in cluster mode: {@code {'1'}} or {@code {'0'}}. */
    static final Script CLUSTER_MODE = Script.of("""
            local info = redis.pcall('INFO', 'cluster')
            if type(info) ~= 'string' then return {'0'} end
            return {string.match(info, 'cluster_enabled:(%d)') or '0'}
            """);

    private Scripts() {}

    /**
     * A user's script: {@code body} is the body of a Lua function of {@code KEYS} and
     * {@code ARGV} (the caller's keys and arguments, without the fence's), run after the check
     * and the fence's advance. Defined before {@code FENCE}, so the fence's locals are out of its
     * reach; an error in it is caught and answered as {@code failed 1 <error>}.
     */
    static Script user(String body) {
        return Script.of("local function user(KEYS, ARGV)\n" + body + "\nend\n" + FENCE + """
                local early = check(KEYS, ARGV, serverRun)
                if early then return early end
                local keys, args = {}, {}
                for i = 3, #KEYS do keys[#keys + 1] = KEYS[i] end
                for i = 3, #ARGV do args[#args + 1] = ARGV[i] end
                local ok, r = pcall(user, keys, args)
                if not ok then
                  if type(r) == 'table' and r.err then r = r.err end
                  return {'failed', '1', tostring(r)}
                end
                if r == nil then r = false end
                return {'ok', r}
                """);
    }
}
