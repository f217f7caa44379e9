/**
 * Fencing tokens enforced by Redis: {@link io.zkfence.redis.RedisFence} checks the token and
 * writes in one Lua script on the server, with a fence record per fence key in that key's hash
 * slot and a floor per slot that catches a server that lost its data. Lettuce
 * ({@link io.zkfence.redis.LettuceConnector}) is the client it is built on; Jedis
 * ({@link io.zkfence.redis.JedisConnector}) is optional. See {@code docs/fencing-redis.md}.
 */
package io.zkfence.redis;
