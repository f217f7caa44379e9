// One HTTP exchange with one replica, bounded by a time of its own and by the caller's AbortSignal.

/** No connection could be made: the request was never sent. */
export class Unreached extends Error {}
/** The request may have reached the replica, but no complete answer came back. */
export class NoAnswer extends Error {}
/** The replica answered something that is not a JSON object. */
export class BadAnswer extends Error {}

const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT']);

/**
 * The exact value of the integer member `name` of the JSON object `text` (already validated by
 * JSON.parse), as a BigInt: JSON.parse rounds integers above 2^53 to the nearest double, and Node
 * 20's reviver gets no source text. Scans the text itself: strings (with their escapes) are
 * skipped, only the object's own members count (not a nested object's), and the member's last
 * occurrence wins, as with JSON.parse.
 */
export function exactTopLevelInteger(text, name) {
  let depth = 0;
  let found;
  let key;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const raw = text.slice(i, j + 1);
      i = j + 1;
      while (/\s/.test(text[i])) i += 1;
      key = depth === 1 && text[i] === ':' ? JSON.parse(raw) : undefined;
      continue;
    }
    if (c === ':' && key === name) {
      const m = /^\s*(-?\d+)(?=\s*[,}])/.exec(text.slice(i + 1));
      if (!m) throw new BadAnswer(`'${name}' is not an integer`);
      found = BigInt(m[1]);
    }
    if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') depth -= 1;
    if (c !== ':') key = undefined;
    i += 1;
  }
  if (found === undefined) throw new BadAnswer(`no top-level '${name}'`);
  return found;
}

/** A replica's base URL, checked once: http(s)://host[:port][/prefix]. */
export function replicaUrl(url) {
  if (typeof url !== 'string') throw new TypeError(`replicas must be URL strings, got ${url}`);
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`replica URL '${url}' is not a URL; give http://host[:port] or https://host[:port]`);
  }
  if (!['http:', 'https:'].includes(parsed.protocol) || !parsed.hostname) {
    throw new TypeError(`replica URL '${url}' must be http://host[:port] or https://host[:port]`);
  }
  if (parsed.search || parsed.hash || parsed.username || parsed.password) {
    throw new TypeError(`replica URL '${url}' must not carry a query, fragment or user info (give apiKey)`);
  }
  return url.replace(/\/+$/, '');
}

/**
 * Sends one request and reads its JSON answer within `timeoutMs`. Rejects with the caller's
 * `signal.reason` if it aborts (the connection closes, so a waiting acquire leaves the queue).
 * `fencingToken`, a 64-bit number, is read from the text as a BigInt.
 */
export async function exchange(fetchImpl, replica, method, path, body, headers, timeoutMs, signal) {
  signal?.throwIfAborted();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.max(1, Math.ceil(timeoutMs)));
  const onAbort = () => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let response;
  let text;
  try {
    response = await fetchImpl(replica + path, {
      method,
      headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: controller.signal,
    });
    text = await response.text();
  } catch (e) {
    if (signal?.aborted) throw signal.reason;
    if (controller.signal.aborted) throw new NoAnswer(`${replica}: no answer within ${Math.round(timeoutMs)} ms`);
    const code = e?.cause?.code ?? e?.code;
    if (NOT_SENT.has(code)) throw new Unreached(`${replica}: ${code}`, { cause: e });
    throw new NoAnswer(`${replica}: ${e?.cause?.message ?? e?.message ?? e}`, { cause: e });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    if ([502, 503, 504].includes(response.status)) {
      // Not the service's answer: something in front of a replica that did not answer.
      throw new NoAnswer(`${replica}: HTTP ${response.status} from something in front of the replica`);
    }
    throw new BadAnswer(`${replica} answered HTTP ${response.status} with ${text.length} characters that are not a `
      + 'JSON object');
  }
  if (typeof parsed.fencingToken === 'number') parsed.fencingToken = exactTopLevelInteger(text, 'fencingToken');
  return { status: response.status, body: parsed, retryAfter: response.headers.get('retry-after') };
}
