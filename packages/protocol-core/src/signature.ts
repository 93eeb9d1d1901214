import { createHash, createHmac, hash, timingSafeEqual } from 'node:crypto';
import { equalDigests } from './constant-time.js';
import { hmacSha256Hex } from './hmac-sha256.js';
import { DefaultLimits } from './limits.js';
import { fail, ok, type Result } from './result.js';

// All signatures are HMAC-SHA256 in lowercase hex, keyed with the app secret
// (https://pusher.com/docs/channels/library_auth_reference/auth-signatures).

/** HMAC-SHA256 of a string with a secret, as lowercase hex. */
export function hmacHex(secret: string, text: string | Uint8Array): string {
  // Text (every string the protocol signs) takes the same HMAC as the checks; bytes (a body as received) node:crypto's.
  return typeof text === 'string'
    ? hmacSha256Hex(secret, text)
    : createHmac('sha256', secret).update(text).digest('hex');
}

/** MD5 of a body, as lowercase hex (the REST API's `body_md5`). */
export function md5Hex(body: string | Uint8Array): string {
  // The one-shot hash skips the Hash object: about three times cheaper on the small bodies of REST calls.
  return hash('md5', body, 'hex');
}

/** Compares two strings in time that does not depend on where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    // Still spend a comparison so a length mismatch costs about as much as a content mismatch.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** A secret replaced by a rotation, still accepted until `until` (epoch milliseconds). */
export interface PreviousSecret {
  readonly secret: string;
  readonly until: number;
}

/** The app credentials a signature is made or checked with. */
export interface AppCredentials {
  readonly key: string;
  readonly secret: string;
  /** Secrets replaced by a rotation: checks accept them until their `until`; signing never uses them. */
  readonly previousSecrets?: readonly PreviousSecret[] | undefined;
}

/**
 * The secrets a check accepts right now: the current one, then every previous one whose grace period has not
 * ended. Expiry is decided here, at check time, so a rotated secret stops working at `until` exactly.
 */
export function acceptedSecrets(app: AppCredentials, now: number = Date.now()): string[] {
  const previous = app.previousSecrets;
  if (previous === undefined || previous.length === 0) return [app.secret];
  const secrets = [app.secret];
  for (const entry of previous) if (entry.until > now) secrets.push(entry.secret);
  return secrets;
}

/** The length of an HMAC-SHA256 in hex. */
const SIGNATURE_LENGTH = 64;

/**
 * Whether a signature matches an HMAC of `signed` under any accepted secret; every candidate is compared, in
 * constant time. A signature that is not 64 characters can never match, so it is refused before any hashing (its
 * shape is the sender's to know, and says nothing about the secret).
 */
function matchesAnySecret(app: AppCredentials, signature: string, signed: string, head = ''): boolean {
  if (signature.length !== SIGNATURE_LENGTH) return false;
  const previous = app.previousSecrets;
  if (previous === undefined || previous.length === 0)
    return equalDigests(signature, hmacSha256Hex(app.secret, signed, head));
  let matched = false;
  for (const secret of acceptedSecrets(app)) {
    if (equalDigests(signature, hmacSha256Hex(secret, signed, head))) matched = true;
  }
  return matched;
}

/** Whether `body_md5` is the MD5 of the body (lowercase hex, as {@link md5Hex} gives it). */
function matchesBodyMd5(bodyMd5: string, body: string | Uint8Array): boolean {
  // Nothing secret goes into an MD5 of the body: a plain comparison is enough.
  return bodyMd5.length === 32 && md5Hex(body) === bodyMd5;
}

/** What a channel subscription signs: private and encrypted channels, and presence with its `channel_data`. */
export interface ChannelAuthInput {
  readonly socketId: string;
  readonly channel: string;
  /** Presence only: the exact `channel_data` JSON string the client sends. */
  readonly channelData?: string | undefined;
}

function channelAuthString(input: ChannelAuthInput): string {
  return input.channelData === undefined
    ? `${input.socketId}:${input.channel}`
    : `${input.socketId}:${input.channel}:${input.channelData}`;
}

/**
 * Signs a channel subscription the way an auth endpoint does, giving the `auth` value `key:signature`.
 *
 * @example
 * signChannelAuth({ key: 'k', secret: 's' }, { socketId: '1.2', channel: 'private-a' }) // 'k:…'
 */
export function signChannelAuth(app: AppCredentials, input: ChannelAuthInput): string {
  return `${app.key}:${hmacHex(app.secret, channelAuthString(input))}`;
}

function verifyKeyedSignature(app: AppCredentials, auth: string | undefined, signed: string): boolean {
  if (auth === undefined) return false;
  const colon = auth.indexOf(':');
  if (colon <= 0) return false;
  const key = auth.slice(0, colon);
  const signature = auth.slice(colon + 1);
  // Check both parts even when the key is wrong, so the time taken says nothing about the secret.
  const keyOk = safeEqual(key, app.key);
  const signatureOk = matchesAnySecret(app, signature, signed);
  return keyOk && signatureOk;
}

/**
 * Checks a subscription's `auth` (`key:signature`) against the app's key and secret (or a previous secret still
 * in its grace period), in constant time.
 */
export function verifyChannelAuth(
  app: AppCredentials,
  auth: string | undefined,
  input: ChannelAuthInput,
): boolean {
  return verifyKeyedSignature(app, auth, channelAuthString(input));
}

/** Signs user authentication (`pusher:signin`): the string `socket_id::user::user_data`. */
export function signUserAuth(app: AppCredentials, socketId: string, userData: string): string {
  return `${app.key}:${hmacHex(app.secret, `${socketId}::user::${userData}`)}`;
}

/** Checks a `pusher:signin` `auth` value against the app's key and secret, in constant time. */
export function verifyUserAuth(
  app: AppCredentials,
  auth: string,
  socketId: string,
  userData: string,
): boolean {
  return verifyKeyedSignature(app, auth, `${socketId}::user::${userData}`);
}

/**
 * The shared secret for an end-to-end encrypted channel, as the server libraries derive it:
 * base64(SHA-256(channel name ‖ master key)).
 */
export function encryptedChannelSharedSecret(channel: string, masterKey: Uint8Array): string {
  return createHash('sha256')
    .update(Buffer.concat([Buffer.from(channel), masterKey]))
    .digest('base64');
}

/** Query parameters of a REST request, decoded; repeated parameters joined with commas. */
export type QueryParams = Readonly<Record<string, string | undefined>>;

/** What a REST request signature covers. */
export interface RequestToSign {
  readonly method: string;
  readonly path: string;
  readonly query?: QueryParams;
  readonly body?: string | Uint8Array;
}

function byKey(a: readonly [string, string], b: readonly [string, string]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

function canonicalQuery(query: QueryParams): string {
  const pairs: Array<[string, string]> = [];
  let sorted = true;
  for (const key in query) {
    const value = query[key];
    const lower = key.toLowerCase();
    if (lower === 'auth_signature' || value === undefined) continue;
    const last = pairs[pairs.length - 1];
    if (last !== undefined && last[0] > lower) sorted = false;
    pairs.push([lower, value]);
  }
  // The SDKs send their parameters already sorted: the sort is only paid for a query that is not.
  if (!sorted) pairs.sort(byKey);
  // Not URL-encoded: the spec signs the raw `key=value` pairs.
  let text = '';
  for (let i = 0; i < pairs.length; i++) {
    const [key, value] = pairs[i] as [string, string];
    text += i === 0 ? `${key}=${value}` : `&${key}=${value}`;
  }
  return text;
}

/** The exact string a REST request signature is computed over: `METHOD\nPATH\nsorted_query`. */
export function requestStringToSign(method: string, path: string, query: QueryParams): string {
  return `${method.toUpperCase()}\n${path}\n${canonicalQuery(query)}`;
}

/**
 * Signs a REST request as the server SDKs do and returns every query parameter to send, including
 * `auth_key`, `auth_timestamp`, `auth_version`, `body_md5` (when there is a body) and `auth_signature`.
 */
export function signRequest(
  app: AppCredentials,
  request: RequestToSign,
  timestamp: number = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) params[key.toLowerCase()] = value;
  }
  params.auth_key = app.key;
  params.auth_timestamp = String(timestamp);
  params.auth_version = '1.0';
  if (request.body !== undefined && request.body.length > 0) params.body_md5 = md5Hex(request.body);
  params.auth_signature = hmacHex(app.secret, requestStringToSign(request.method, request.path, params));
  return params;
}

/** Why a signed REST request was refused (all answer HTTP 401). */
export interface RequestAuthError {
  readonly reason:
    | 'missing_param'
    | 'key_mismatch'
    | 'unsupported_version'
    | 'stale_timestamp'
    | 'body_md5_mismatch'
    | 'bad_signature';
  readonly message: string;
}

/** A REST request as received, to be verified. */
export interface RequestToVerify {
  readonly method: string;
  /**
   * The request path, or several accepted forms of it (with and without a configured prefix): a signature over
   * any of them is valid.
   */
  readonly path: string | readonly string[];
  readonly query: QueryParams;
  readonly body: string | Uint8Array;
  /** Unix time in seconds; defaults to now. */
  readonly now?: number;
  /** Allowed distance between `auth_timestamp` and now, in seconds (600 by default). */
  readonly graceSeconds?: number;
}

/** The auth parameters of a signed REST request, as sent. */
interface SignedParams {
  readonly key: string | undefined;
  readonly timestamp: string | undefined;
  readonly version: string | undefined;
  readonly signature: string | undefined;
  readonly bodyMd5: string | undefined;
}

/** Whether `text` is one or more ASCII digits (`auth_timestamp`'s shape). */
function isDigits(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

// Results hold no per-request state: one success serves every check.
const VERIFIED: Result<true, RequestAuthError> = Object.freeze(ok(true as const));

/**
 * The checks every signed REST request passes, in order. The signature covers `METHOD\nPATH\nCANONICAL_QUERY` for
 * one of the accepted forms of the path.
 */
function verifySigned(
  app: AppCredentials,
  params: SignedParams,
  request: Pick<RequestToVerify, 'path' | 'body' | 'now' | 'graceSeconds'>,
  method: string,
  canonical: string,
): Result<true, RequestAuthError> {
  const { key, timestamp, version, signature } = params;
  if (!key || !timestamp || !version || !signature) {
    return fail({
      reason: 'missing_param',
      message: 'auth_key, auth_timestamp, auth_version and auth_signature are required',
    });
  }
  // The key is public (every browser client holds it): a plain comparison says nothing about the secret.
  if (key !== app.key) return fail({ reason: 'key_mismatch', message: 'auth_key does not match the app' });
  if (version !== '1.0') return fail({ reason: 'unsupported_version', message: 'auth_version must be 1.0' });
  const now = request.now ?? Math.floor(Date.now() / 1000);
  const grace = request.graceSeconds ?? DefaultLimits.requestTimestampGraceSeconds;
  if (!isDigits(timestamp) || Math.abs(now - Number(timestamp)) > grace) {
    return fail({
      reason: 'stale_timestamp',
      message: `auth_timestamp must be within ${grace} seconds of the server time (${now})`,
    });
  }
  if (request.body.length > 0 || params.bodyMd5 !== undefined) {
    if (params.bodyMd5 === undefined)
      return fail({ reason: 'missing_param', message: 'body_md5 is required' });
    if (!matchesBodyMd5(params.bodyMd5, request.body)) {
      return fail({ reason: 'body_md5_mismatch', message: 'body_md5 does not match the request body' });
    }
  }
  let matched = false;
  const { path } = request;
  if (typeof path === 'string') matched = matchesAnySecret(app, signature, canonical, `${method}\n${path}\n`);
  else {
    for (const form of path) {
      // Every candidate is compared so the work done does not depend on which one matches.
      if (matchesAnySecret(app, signature, canonical, `${method}\n${form}\n`)) matched = true;
    }
  }
  if (!matched)
    return fail({ reason: 'bad_signature', message: 'auth_signature does not match the request' });
  return VERIFIED;
}

/**
 * Verifies a REST request's HMAC query signature: `auth_key` is the app's, `auth_timestamp` is within the grace
 * period, `body_md5` matches the raw body, and `auth_signature` matches, compared in constant time.
 */
export function verifyRequest(app: AppCredentials, request: RequestToVerify): Result<true, RequestAuthError> {
  const { query } = request;
  const params = {
    key: query.auth_key,
    timestamp: query.auth_timestamp,
    version: query.auth_version,
    signature: query.auth_signature,
    bodyMd5: query.body_md5,
  };
  return verifySigned(app, params, request, request.method.toUpperCase(), canonicalQuery(query));
}

/** A REST request with its query string as received, to be verified. */
export interface RawRequestToVerify extends Omit<RequestToVerify, 'query'> {
  /** The query string as received, without `?`. */
  readonly query: string;
}

/**
 * Verifies a signed REST request straight from its raw query string, when that string is already in the canonical
 * form the signature covers — lower-case names in ascending order, each once, nothing percent-encoded — as the
 * server SDKs send it. The string to sign is then the query itself without `auth_signature`, so nothing is parsed
 * into a record or joined again. Answers `undefined` for any other query: verify it with {@link verifyRequest}
 * over the decoded parameters, which gives the same answer.
 *
 * @example
 * verifyRawRequest(app, { method: 'POST', path: '/apps/1/events', query: 'auth_key=…&auth_signature=…', body })
 */
export function verifyRawRequest(
  app: AppCredentials,
  request: RawRequestToVerify,
): Result<true, RequestAuthError> | undefined {
  const raw = request.query;
  // A `%` or `+` is decoded before signing: the raw text is not what was signed.
  if (raw.includes('%') || raw.includes('+')) return undefined;
  const parsed = inSdkOrder(raw) ?? inCanonicalOrder(raw);
  if (parsed === undefined) return undefined;
  const method = request.method === 'POST' ? 'POST' : request.method.toUpperCase();
  return verifySigned(app, parsed, request, method, parsed.canonical);
}

/** The auth parameters of a raw query, and the query without `auth_signature` (what the signature covers). */
interface RawSignedParams extends SignedParams {
  readonly canonical: string;
}

/** The signed pairs in the order the server SDKs send them, each name with its `=`; `auth_signature` follows. */
const SDK_ORDER = ['auth_key=', 'auth_timestamp=', 'auth_version=', 'body_md5='] as const;

/** Whether `name` (with its `=`) stands at `at` in `raw`. */
function standsAt(raw: string, name: string, at: number): boolean {
  return raw.indexOf(name, at) === at;
}

/**
 * Reads a query in the exact shape the server SDKs send — `auth_key`, `auth_timestamp`, `auth_version`, `body_md5`
 * when there is a body, then `auth_signature` last — by checking each name where it must stand, with nothing cut out
 * but the values. Answers `undefined` for any other shape, which {@link inCanonicalOrder} then reads; for a query
 * both read, both give the same parameters.
 */
function inSdkOrder(raw: string): RawSignedParams | undefined {
  const values: Array<string | undefined> = [undefined, undefined, undefined, undefined];
  let start = 0;
  for (let i = 0; i < SDK_ORDER.length; i++) {
    const name = SDK_ORDER[i] as string;
    if (!standsAt(raw, name, start)) {
      // `body_md5` (the last) only comes with a body.
      if (i === SDK_ORDER.length - 1) break;
      return undefined;
    }
    start += name.length;
    const end = raw.indexOf('&', start);
    if (end === -1) return undefined;
    values[i] = raw.slice(start, end);
    start = end + 1;
  }
  if (!standsAt(raw, 'auth_signature=', start)) return undefined;
  const canonical = raw.slice(0, start - 1);
  start += 'auth_signature='.length;
  // The signature is the last pair, and one value.
  if (raw.indexOf('&', start) !== -1 || raw.indexOf('=', start) !== -1) return undefined;
  const [key, timestamp, version, bodyMd5] = values;
  return { key, timestamp, version, signature: raw.slice(start), bodyMd5, canonical };
}

/**
 * Reads a query whose signed pairs are in the canonical order — lower-case names, ascending, each once, every pair
 * with a `=` — with `auth_signature` anywhere. Answers `undefined` for any other query.
 */
function inCanonicalOrder(raw: string): RawSignedParams | undefined {
  // A trailing `&` leaves an empty pair, and an empty query has nothing to check.
  if (raw === '' || raw.endsWith('&')) return undefined;
  let key: string | undefined;
  let timestamp: string | undefined;
  let version: string | undefined;
  let signature: string | undefined;
  let bodyMd5: string | undefined;
  let signatureStart = -1;
  let signatureEnd = -1;
  let previous = '';
  let start = 0;
  while (start < raw.length) {
    let end = raw.indexOf('&', start);
    if (end === -1) end = raw.length;
    const equals = raw.indexOf('=', start);
    // An empty pair or a name without `=` is signed differently from how it is sent.
    if (equals === -1 || equals >= end || equals === start) return undefined;
    const name = raw.slice(start, equals);
    if (name === 'auth_signature') {
      // Not signed, so it may stand anywhere (the SDKs append it last); once only.
      if (signature !== undefined) return undefined;
      signature = raw.slice(equals + 1, end);
      signatureStart = start;
      signatureEnd = end;
      start = end + 1;
      continue;
    }
    // The signed names must be ascending (which also rules out repeats) and lower case, as the canonical string
    // has them.
    if (name <= previous) return undefined;
    previous = name;
    switch (name) {
      case 'auth_key':
        key = raw.slice(equals + 1, end);
        break;
      case 'auth_timestamp':
        timestamp = raw.slice(equals + 1, end);
        break;
      case 'auth_version':
        version = raw.slice(equals + 1, end);
        break;
      case 'body_md5':
        bodyMd5 = raw.slice(equals + 1, end);
        break;
      default:
        if (name !== name.toLowerCase()) return undefined;
    }
    start = end + 1;
  }
  let canonical = raw;
  if (signatureStart >= 0) {
    const before = signatureStart === 0 ? '' : raw.slice(0, signatureStart - 1);
    const after = signatureEnd >= raw.length ? '' : raw.slice(signatureEnd + 1);
    canonical = before === '' ? after : after === '' ? before : `${before}&${after}`;
  }
  return { key, timestamp, version, signature, bodyMd5, canonical };
}

/** Signs a webhook body: the `X-Pusher-Signature` header value. */
export function signWebhook(secret: string, body: string | Uint8Array): string {
  return hmacHex(secret, body);
}

/** Checks a webhook's `X-Pusher-Signature` against the raw body, in constant time. */
export function verifyWebhook(secret: string, body: string | Uint8Array, signature: string): boolean {
  return safeEqual(signature, hmacHex(secret, body));
}
