import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import Pusher from 'pusher';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { equalDigests } from './constant-time.js';
import { hmacSha256Hex } from './hmac-sha256.js';
import {
  type AppCredentials,
  acceptedSecrets,
  encryptedChannelSharedSecret,
  hmacHex,
  md5Hex,
  type QueryParams,
  type RequestToVerify,
  requestStringToSign,
  safeEqual,
  signChannelAuth,
  signRequest,
  signUserAuth,
  signWebhook,
  verifyChannelAuth,
  verifyRawRequest,
  verifyRequest,
  verifyUserAuth,
  verifyWebhook,
} from './signature.js';

// Pass node:crypto and the digest compare through, but watch timingSafeEqual and equalDigests so the tests can see
// a constant-time compare is used.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});
vi.mock('./constant-time.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./constant-time.js')>();
  return { equalDigests: vi.fn(actual.equalDigests) };
});

// The credentials of the worked examples on Pusher's auth-signatures and HTTP API pages.
const DOCS_APP = { key: '278d425bdf160c739803', secret: '7ad3773142a6692b25b8' };
const APP = { key: 'app-key', secret: 'app-secret' };
const OTHER_SECRET = { key: APP.key, secret: 'another-secret' };
const OTHER_KEY = { key: 'another-key', secret: APP.secret };

const hmac = (secret: string, text: string): string =>
  createHmac('sha256', secret).update(text).digest('hex');
const md5 = (body: string): string => createHash('md5').update(body).digest('hex');

const SDK_OPTIONS = { appId: '3', key: APP.key, secret: APP.secret, cluster: 'mt1' };
const sdk = new Pusher(SDK_OPTIONS);
const sdkWithMasterKey = (masterKey: Uint8Array): Pusher =>
  new Pusher({ ...SDK_OPTIONS, encryptionMasterKeyBase64: Buffer.from(masterKey).toString('base64') });

describe('hmacHex', () => {
  it('matches the RFC 4231 HMAC-SHA256 test vector', () => {
    expect(hmacHex('Jefe', 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('signs bytes and their UTF-8 string alike', () => {
    expect(hmacHex('s', Buffer.from('Zoë 🚀'))).toBe(hmacHex('s', 'Zoë 🚀'));
  });
});

describe('md5Hex', () => {
  it('gives the MD5 of the empty body', () => {
    expect(md5Hex('')).toBe('d41d8cd98f00b204e9800998ecf8427e');
  });

  it('hashes the UTF-8 bytes of a string body', () => {
    expect(md5Hex('{"data":"Zoë 🚀"}')).toBe(md5('{"data":"Zoë 🚀"}'));
    expect(md5Hex(new TextEncoder().encode('{"data":"Zoë 🚀"}'))).toBe(md5('{"data":"Zoë 🚀"}'));
  });
});

describe('safeEqual', () => {
  beforeEach(() => {
    vi.mocked(timingSafeEqual).mockClear();
  });

  it.each([
    ['equal strings', 'abc', 'abc', true],
    ['two empty strings', '', '', true],
    ['equal multi-byte strings', 'Zoë🚀', 'Zoë🚀', true],
    ['strings differing in the last character', 'abc', 'abd', false],
    ['strings differing in the first character', 'xbc', 'abc', false],
    ['a string and its prefix', 'abc', 'ab', false],
    ['a prefix and the longer string', 'ab', 'abc', false],
    ['an empty and a non-empty string', '', 'a', false],
    ['strings of equal length in characters but not bytes', 'é', 'ee', false],
    ['strings differing only in case', 'ABC', 'abc', false],
  ])('compares %s', (_name, a, b, expected) => {
    expect(safeEqual(a, b)).toBe(expected);
  });

  it('compares with crypto.timingSafeEqual', () => {
    safeEqual('abc', 'abd');
    expect(timingSafeEqual).toHaveBeenCalled();
  });

  it('still spends a constant-time comparison when the lengths differ', () => {
    expect(safeEqual('short', 'a much longer string')).toBe(false);
    expect(timingSafeEqual).toHaveBeenCalledTimes(1);
  });
});

describe('signChannelAuth', () => {
  it('gives the auth of the worked example in the Pusher docs', () => {
    expect(signChannelAuth(DOCS_APP, { socketId: '1234.1234', channel: 'private-foobar' })).toBe(
      '278d425bdf160c739803:58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4',
    );
  });

  it('signs socket_id:channel:channel_data for presence channels', () => {
    const channelData = '{"user_id":"7","user_info":{"name":"Ann"}}';
    expect(signChannelAuth(APP, { socketId: '1.2', channel: 'presence-room', channelData })).toBe(
      `app-key:${hmac('app-secret', `1.2:presence-room:${channelData}`)}`,
    );
  });

  it('gives the same auth as the pusher SDK for a private channel', () => {
    expect(signChannelAuth(APP, { socketId: '123.456', channel: 'private-orders' })).toBe(
      sdk.authorizeChannel('123.456', 'private-orders').auth,
    );
  });

  it('gives the same auth as the pusher SDK for a presence channel', () => {
    const response = sdk.authorizeChannel('123.456', 'presence-room', {
      user_id: '7',
      user_info: { name: 'Zoë' },
    });
    expect(
      signChannelAuth(APP, {
        socketId: '123.456',
        channel: 'presence-room',
        channelData: response.channel_data,
      }),
    ).toBe(response.auth);
  });
});

describe('verifyChannelAuth', () => {
  const input = { socketId: '123.456', channel: 'private-orders' };
  const validAuth = `app-key:${hmac('app-secret', '123.456:private-orders')}`;

  it('accepts a valid signature', () => {
    expect(verifyChannelAuth(APP, validAuth, input)).toBe(true);
  });

  it('accepts the worked example from the Pusher docs', () => {
    expect(
      verifyChannelAuth(
        DOCS_APP,
        '278d425bdf160c739803:58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4',
        { socketId: '1234.1234', channel: 'private-foobar' },
      ),
    ).toBe(true);
  });

  it('rejects a signature made with another secret', () => {
    expect(verifyChannelAuth(OTHER_SECRET, validAuth, input)).toBe(false);
  });

  it('rejects a valid signature presented with another key', () => {
    expect(verifyChannelAuth(OTHER_KEY, validAuth, input)).toBe(false);
    expect(verifyChannelAuth(APP, validAuth.replace('app-key:', 'other-key:'), input)).toBe(false);
  });

  it('rejects a signature made for another socket', () => {
    expect(verifyChannelAuth(APP, validAuth, { ...input, socketId: '123.457' })).toBe(false);
  });

  it('rejects a signature made for another channel', () => {
    expect(verifyChannelAuth(APP, validAuth, { ...input, channel: 'private-invoices' })).toBe(false);
  });

  it('rejects a private signature offered for the encrypted channel of the same name', () => {
    expect(verifyChannelAuth(APP, validAuth, { ...input, channel: 'private-encrypted-orders' })).toBe(false);
  });

  it.each([
    ['no auth', undefined],
    ['an empty auth', ''],
    ['an auth without a colon', hmac('app-secret', '123.456:private-orders')],
    ['an auth without a key', `:${hmac('app-secret', '123.456:private-orders')}`],
    ['an auth without a signature', 'app-key:'],
    ['an upper-case signature', `app-key:${hmac('app-secret', '123.456:private-orders').toUpperCase()}`],
    ['a truncated signature', validAuth.slice(0, -1)],
    ['a signature with a trailing character', `${validAuth}0`],
    ['a signature with whitespace', `${validAuth} `],
  ])('rejects %s', (_name, auth) => {
    expect(verifyChannelAuth(APP, auth, input)).toBe(false);
  });

  it('compares the signature in constant time', () => {
    vi.mocked(equalDigests).mockClear();
    verifyChannelAuth(APP, `app-key:${'0'.repeat(64)}`, input);
    expect(equalDigests).toHaveBeenCalled();
  });

  describe('on presence channels', () => {
    const channelData = '{"user_id":"7","user_info":{"name":"Ann"}}';
    const presence = { socketId: '1.2', channel: 'presence-room', channelData };
    const auth = `app-key:${hmac('app-secret', `1.2:presence-room:${channelData}`)}`;

    it('accepts a signature over the exact channel_data', () => {
      expect(verifyChannelAuth(APP, auth, presence)).toBe(true);
    });

    it.each([
      ['another user_id', '{"user_id":"8","user_info":{"name":"Ann"}}'],
      ['other user_info', '{"user_id":"7","user_info":{"name":"Bob"}}'],
      ['the same JSON with other spacing', '{"user_id": "7", "user_info": {"name": "Ann"}}'],
      ['the same JSON with keys reordered', '{"user_info":{"name":"Ann"},"user_id":"7"}'],
      ['a numeric user_id', '{"user_id":7,"user_info":{"name":"Ann"}}'],
    ])('rejects tampered channel_data: %s', (_name, tampered) => {
      expect(verifyChannelAuth(APP, auth, { ...presence, channelData: tampered })).toBe(false);
    });

    it('rejects a presence signature when channel_data is left out', () => {
      expect(verifyChannelAuth(APP, auth, { socketId: '1.2', channel: 'presence-room' })).toBe(false);
    });

    it('rejects a private-style signature when channel_data is sent', () => {
      const privateStyle = `app-key:${hmac('app-secret', '1.2:presence-room')}`;
      expect(verifyChannelAuth(APP, privateStyle, presence)).toBe(false);
    });
  });

  describe('with the pusher SDK’s authorizeChannel', () => {
    it('accepts its private channel auth', () => {
      const { auth } = sdk.authorizeChannel('8765.4321', 'private-orders');
      expect(verifyChannelAuth(APP, auth, { socketId: '8765.4321', channel: 'private-orders' })).toBe(true);
    });

    it('accepts its presence auth over the channel_data string it returns', () => {
      const response = sdk.authorizeChannel('8765.4321', 'presence-room', {
        user_id: '42',
        user_info: { name: 'Zoë "Q" \\ 🚀', roles: ['admin'] },
      });
      const channelData = response.channel_data;
      expect(channelData).toEqual(expect.any(String));
      expect(
        verifyChannelAuth(APP, response.auth, {
          socketId: '8765.4321',
          channel: 'presence-room',
          channelData,
        }),
      ).toBe(true);
    });

    it('accepts its encrypted channel auth, signed like a private one', () => {
      const { auth } = sdkWithMasterKey(randomBytes(32)).authorizeChannel('1.1', 'private-encrypted-inbox');
      expect(verifyChannelAuth(APP, auth, { socketId: '1.1', channel: 'private-encrypted-inbox' })).toBe(
        true,
      );
    });

    it('refuses its auth when checked with another secret', () => {
      const { auth } = sdk.authorizeChannel('8765.4321', 'private-orders');
      expect(
        verifyChannelAuth(OTHER_SECRET, auth, { socketId: '8765.4321', channel: 'private-orders' }),
      ).toBe(false);
    });
  });
});

describe('encryptedChannelSharedSecret', () => {
  const masterKey = Buffer.from('0123456789abcdef0123456789abcdef');

  it('is base64 of SHA-256 over the channel name then the master key', () => {
    const expected = createHash('sha256')
      .update(Buffer.from('private-encrypted-inbox', 'utf8'))
      .update(masterKey)
      .digest('base64');
    expect(encryptedChannelSharedSecret('private-encrypted-inbox', masterKey)).toBe(expected);
  });

  it('gives the shared_secret the pusher SDK hands to clients', () => {
    const response = sdkWithMasterKey(masterKey).authorizeChannel('1.1', 'private-encrypted-inbox');
    expect(encryptedChannelSharedSecret('private-encrypted-inbox', masterKey)).toBe(response.shared_secret);
  });

  it('differs between channels', () => {
    expect(encryptedChannelSharedSecret('private-encrypted-a', masterKey)).not.toBe(
      encryptedChannelSharedSecret('private-encrypted-b', masterKey),
    );
  });
});

describe('signUserAuth', () => {
  it('gives the auth of the user authentication example in the Pusher docs', () => {
    expect(signUserAuth(DOCS_APP, '1234.1234', '{"id":"12345"}')).toBe(
      '278d425bdf160c739803:4708d583dada6a56435fb8bc611c77c359a31eebde13337c16ab43aa6de336ba',
    );
  });

  it('gives the same auth as the pusher SDK’s authenticateUser', () => {
    const response = sdk.authenticateUser('1.2', { id: 'u1', name: 'Zoë' });
    expect(signUserAuth(APP, '1.2', response.user_data)).toBe(response.auth);
  });
});

describe('verifyUserAuth', () => {
  const userData = '{"id":"12345"}';
  const auth = `app-key:${hmac('app-secret', `1.2::user::${userData}`)}`;

  it('accepts socket_id::user::user_data signed with the secret', () => {
    expect(verifyUserAuth(APP, auth, '1.2', userData)).toBe(true);
  });

  it('accepts the pusher SDK’s authenticateUser output', () => {
    const response = sdk.authenticateUser('8765.4321', { id: 'u1', watchlist: ['u2'], name: 'Zoë "Q"' });
    expect(verifyUserAuth(APP, response.auth, '8765.4321', response.user_data)).toBe(true);
  });

  it('rejects a signature made with another secret', () => {
    expect(verifyUserAuth(OTHER_SECRET, auth, '1.2', userData)).toBe(false);
  });

  it('rejects a signature presented with another key', () => {
    expect(verifyUserAuth(OTHER_KEY, auth, '1.2', userData)).toBe(false);
  });

  it('rejects a signature made for another socket', () => {
    expect(verifyUserAuth(APP, auth, '1.3', userData)).toBe(false);
  });

  it('rejects tampered user_data', () => {
    expect(verifyUserAuth(APP, auth, '1.2', '{"id":"12346"}')).toBe(false);
  });

  it('rejects a channel-style signature over socket_id:user_data', () => {
    expect(verifyUserAuth(APP, `app-key:${hmac('app-secret', `1.2:${userData}`)}`, '1.2', userData)).toBe(
      false,
    );
  });

  it('rejects an auth without a colon', () => {
    expect(verifyUserAuth(APP, hmac('app-secret', `1.2::user::${userData}`), '1.2', userData)).toBe(false);
  });
});

describe('requestStringToSign', () => {
  it('lowercases and sorts the keys and does not URL-encode, as in the HTTP API docs', () => {
    expect(requestStringToSign('POST', '/some/resource', { Name: 'Something else', auth_key: 'foo' })).toBe(
      'POST\n/some/resource\nauth_key=foo&name=Something else',
    );
  });

  it('upper-cases the method', () => {
    expect(requestStringToSign('get', '/apps/1/channels', {})).toBe('GET\n/apps/1/channels\n');
  });

  it('leaves out auth_signature whatever its case, and parameters without a value', () => {
    expect(
      requestStringToSign('GET', '/p', {
        b: '2',
        auth_signature: 'x',
        AUTH_SIGNATURE: 'y',
        c: undefined,
        a: '1',
      }),
    ).toBe('GET\n/p\na=1&b=2');
  });

  it('sorts by key in byte order', () => {
    expect(requestStringToSign('GET', '/p', { b: '1', a_b: '2', a: '3', B2: '4', ab: '5' })).toBe(
      'GET\n/p\na=3&a_b=2&ab=5&b=1&b2=4',
    );
  });

  it('keeps commas, spaces and unicode in values as they are', () => {
    expect(requestStringToSign('GET', '/p', { info: 'user_count,subscription_count', q: 'a b&é' })).toBe(
      'GET\n/p\ninfo=user_count,subscription_count&q=a b&é',
    );
  });
});

describe('signRequest', () => {
  const body = JSON.stringify({
    name: 'my-event',
    data: JSON.stringify({ text: 'Zoë 🚀' }),
    channels: ['orders'],
  });

  it('adds auth_key, auth_timestamp, auth_version, body_md5 and the signature over them', () => {
    const params = signRequest(APP, { method: 'POST', path: '/apps/3/events', body }, 1353088179);
    const signed = `POST\n/apps/3/events\nauth_key=app-key&auth_timestamp=1353088179&auth_version=1.0&body_md5=${md5(body)}`;
    expect(params).toEqual({
      auth_key: 'app-key',
      auth_timestamp: '1353088179',
      auth_version: '1.0',
      body_md5: md5(body),
      auth_signature: hmac('app-secret', signed),
    });
  });

  it('adds no body_md5 without a body', () => {
    const params = signRequest(APP, { method: 'GET', path: '/apps/3/channels' }, 1000);
    expect(params).not.toHaveProperty('body_md5');
    expect(params.auth_signature).toBe(
      hmac('app-secret', 'GET\n/apps/3/channels\nauth_key=app-key&auth_timestamp=1000&auth_version=1.0'),
    );
  });

  it('signs extra query parameters with lowercased keys', () => {
    const params = signRequest(
      APP,
      {
        method: 'GET',
        path: '/apps/3/channels',
        query: { FILTER_BY_PREFIX: 'presence-', info: 'user_count' },
      },
      1000,
    );
    expect(params.filter_by_prefix).toBe('presence-');
    expect(params.auth_signature).toBe(
      hmac(
        'app-secret',
        'GET\n/apps/3/channels\nauth_key=app-key&auth_timestamp=1000&auth_version=1.0&filter_by_prefix=presence-&info=user_count',
      ),
    );
  });

  it('uses the current time by default', () => {
    const before = Math.floor(Date.now() / 1000);
    const stamp = Number(signRequest(APP, { method: 'GET', path: '/' }).auth_timestamp);
    expect(stamp).toBeGreaterThanOrEqual(before);
    expect(stamp).toBeLessThanOrEqual(before + 1);
  });

  describe('compared with the pusher SDK', () => {
    const timestamp = 1_700_000_000;

    beforeEach(() => {
      vi.spyOn(Date, 'now').mockReturnValue(timestamp * 1000);
    });

    afterEach(() => {
      vi.restoreAllMocks();
    });

    const sdkParams = (options: Pusher.SignedQueryStringOptions): Record<string, string> =>
      Object.fromEntries(new URLSearchParams(sdk.createSignedQueryString(options)));

    it('signs a trigger exactly as the SDK does', () => {
      expect(signRequest(APP, { method: 'POST', path: '/apps/3/events', body }, timestamp)).toEqual(
        sdkParams({ method: 'POST', path: '/apps/3/events', body }),
      );
    });

    it('signs a GET with query parameters exactly as the SDK does', () => {
      const query = { filter_by_prefix: 'presence-', info: 'user_count' };
      expect(signRequest(APP, { method: 'GET', path: '/apps/3/channels', query }, timestamp)).toEqual(
        sdkParams({ method: 'GET', path: '/apps/3/channels', params: query }),
      );
    });

    it('produces a request verifyRequest accepts, and so does the SDK’s', () => {
      const sdkQuery = sdkParams({ method: 'POST', path: '/apps/3/events', body });
      expect(
        verifyRequest(APP, { method: 'POST', path: '/apps/3/events', query: sdkQuery, body, now: timestamp }),
      ).toEqual({ ok: true, value: true });
      const ours = signRequest(APP, { method: 'POST', path: '/apps/3/events', body }, timestamp);
      expect(
        verifyRequest(APP, { method: 'POST', path: '/apps/3/events', query: ours, body, now: timestamp }).ok,
      ).toBe(true);
    });
  });
});

type Verifier = (app: AppCredentials, request: RequestToVerify) => ReturnType<typeof verifyRequest>;

/** The query as the SDKs send it: `name=value` pairs, unencoded, in the order given (auth_signature last). */
const rawQueryOf = (query: QueryParams): string =>
  Object.entries(query)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${value}`)
    .join('&');

/** The raw check, and the decoded one for a query it leaves (as @herald/http-api does). */
const rawVerifier: Verifier = (app, request) =>
  verifyRawRequest(app, { ...request, query: rawQueryOf(request.query) }) ?? verifyRequest(app, request);

// Every case runs against both ways in: the parsed query record, and the raw query string.
describe.each([
  ['verifyRequest', verifyRequest as Verifier],
  ['verifyRawRequest', rawVerifier],
])('%s', (_name, verifyWith) => {
  const now = 1_700_000_000;
  const path = '/apps/3/events';
  const body = JSON.stringify({ name: 'e', data: '{"a":"\\"q\\" é"}', channel: 'orders' });

  /** Builds a request signed by hand with node:crypto, independently of signRequest. */
  function signedByHand(
    overrides: { timestamp?: number; bodyMd5?: string | null; signedPath?: string } = {},
  ) {
    const query: Record<string, string> = {
      auth_key: APP.key,
      auth_timestamp: String(overrides.timestamp ?? now),
      auth_version: '1.0',
    };
    const bodyMd5 = overrides.bodyMd5 === undefined ? md5(body) : overrides.bodyMd5;
    if (bodyMd5 !== null) query.body_md5 = bodyMd5;
    const sorted = Object.keys(query)
      .sort()
      .map((key) => `${key}=${query[key]}`)
      .join('&');
    query.auth_signature = hmac(APP.secret, `POST\n${overrides.signedPath ?? path}\n${sorted}`);
    return query;
  }

  const verify = (query: QueryParams, extra: Partial<RequestToVerify> = {}) =>
    verifyWith(APP, { method: 'POST', path, query, body, now, ...extra });

  const refusal = (reason: string) => ({ ok: false, error: { reason, message: expect.any(String) } });

  it('accepts a correctly signed request', () => {
    expect(verify(signedByHand())).toEqual({ ok: true, value: true });
  });

  it.each([
    ['600 s old', now - 600],
    ['600 s ahead', now + 600],
    ['1 s old', now - 1],
  ])('accepts a timestamp %s', (_name, timestamp) => {
    expect(verify(signedByHand({ timestamp })).ok).toBe(true);
  });

  it.each([
    ['601 s old', now - 601],
    ['601 s ahead', now + 601],
    ['a day old', now - 86_400],
  ])('refuses a timestamp %s', (_name, timestamp) => {
    expect(verify(signedByHand({ timestamp }))).toEqual(refusal('stale_timestamp'));
  });

  it('applies a configured grace period', () => {
    expect(verify(signedByHand({ timestamp: now - 61 }), { graceSeconds: 60 })).toEqual(
      refusal('stale_timestamp'),
    );
    expect(verify(signedByHand({ timestamp: now - 60 }), { graceSeconds: 60 }).ok).toBe(true);
  });

  it.each(['abc', '1e9', '-5', '17000000.5', ' 1700000000'])(
    'refuses the malformed timestamp %j',
    (timestamp) => {
      expect(verify({ ...signedByHand(), auth_timestamp: timestamp })).toEqual(refusal('stale_timestamp'));
    },
  );

  it('refuses a body_md5 that does not match the body', () => {
    expect(verify(signedByHand({ bodyMd5: md5('something else') }))).toEqual(refusal('body_md5_mismatch'));
  });

  it('refuses a body changed after signing', () => {
    expect(verify(signedByHand(), { body: body.replace('orders', 'invoices') })).toEqual(
      refusal('body_md5_mismatch'),
    );
  });

  it('refuses a body sent without body_md5', () => {
    expect(verify(signedByHand({ bodyMd5: null }))).toEqual(refusal('missing_param'));
  });

  it('accepts a request without body and without body_md5', () => {
    expect(verify(signedByHand({ bodyMd5: null }), { body: '' }).ok).toBe(true);
  });

  it('accepts a Uint8Array body', () => {
    expect(verify(signedByHand(), { body: new TextEncoder().encode(body) }).ok).toBe(true);
  });

  it.each(['auth_key', 'auth_timestamp', 'auth_version', 'auth_signature'])(
    'refuses a request without %s',
    (key) => {
      const query: Record<string, string | undefined> = { ...signedByHand() };
      delete query[key];
      expect(verify(query)).toEqual(refusal('missing_param'));
    },
  );

  it('refuses another app’s key', () => {
    expect(verify({ ...signedByHand(), auth_key: 'another-key' })).toEqual(refusal('key_mismatch'));
  });

  it('refuses an auth_version other than 1.0', () => {
    expect(verify({ ...signedByHand(), auth_version: '2.0' })).toEqual(refusal('unsupported_version'));
  });

  it('rejects a signature made with another secret', () => {
    expect(verifyWith(OTHER_SECRET, { method: 'POST', path, query: signedByHand(), body, now })).toEqual(
      refusal('bad_signature'),
    );
  });

  it('refuses a parameter added after signing', () => {
    expect(verify({ ...signedByHand(), socket_id: '1.2' })).toEqual(refusal('bad_signature'));
  });

  it('refuses another method', () => {
    expect(verify(signedByHand(), { method: 'PUT' })).toEqual(refusal('bad_signature'));
  });

  it('refuses another path', () => {
    expect(verify(signedByHand(), { path: '/apps/4/events' })).toEqual(refusal('bad_signature'));
  });

  it('refuses a signature in upper case', () => {
    const query = signedByHand();
    expect(verify({ ...query, auth_signature: query.auth_signature?.toUpperCase() })).toEqual(
      refusal('bad_signature'),
    );
  });

  it.each([
    ['cut short', (signature: string) => signature.slice(0, 63)],
    ['with a digit too many', (signature: string) => `${signature}0`],
    ['with a space after it', (signature: string) => `${signature} `],
    ['as base64 of the same bytes', (signature: string) => Buffer.from(signature, 'hex').toString('base64')],
  ])('refuses a signature %s', (_name, change) => {
    const query = signedByHand();
    expect(verify({ ...query, auth_signature: change(query.auth_signature as string) })).toEqual(
      refusal('bad_signature'),
    );
  });

  it.each([
    ['in upper case', (digest: string) => digest.toUpperCase()],
    ['cut short', (digest: string) => digest.slice(0, 31)],
    ['with a digit too many', (digest: string) => `${digest}0`],
  ])('refuses a body_md5 %s, even when the signature covers it', (_name, change) => {
    const query = signedByHand({ bodyMd5: change(md5(body)) });
    expect(verify(query)).toEqual(refusal('body_md5_mismatch'));
  });

  it('verifies query keys case-insensitively in the signed string', () => {
    const query: Record<string, string> = { ...signedByHand({ bodyMd5: null }), Socket_ID: '1.2' };
    const sorted = `auth_key=app-key&auth_timestamp=${now}&auth_version=1.0&socket_id=1.2`;
    query.auth_signature = hmac(APP.secret, `POST\n${path}\n${sorted}`);
    expect(verify(query, { body: '' }).ok).toBe(true);
  });

  describe('behind a path prefix', () => {
    const accepted = ['/realtime/apps/3/events', '/apps/3/events'];

    it.each(accepted)('accepts a signature over %s when both forms are given', (signedPath) => {
      expect(verify(signedByHand({ signedPath }), { path: accepted }).ok).toBe(true);
    });

    it('accepts a signature over any of several accepted paths', () => {
      const paths = ['/a/b/apps/3/events', '/b/apps/3/events', '/apps/3/events'];
      for (const signedPath of paths) {
        expect(verify(signedByHand({ signedPath }), { path: paths }).ok).toBe(true);
      }
    });

    it('refuses a signature over a path that is not among them', () => {
      expect(verify(signedByHand({ signedPath: '/other/apps/3/events' }), { path: accepted })).toEqual(
        refusal('bad_signature'),
      );
    });

    it('refuses every signature when no path is accepted', () => {
      expect(verify(signedByHand(), { path: [] })).toEqual(refusal('bad_signature'));
    });
  });

  it('uses the current time by default', () => {
    const fresh = signedByHand({ timestamp: Math.floor(Date.now() / 1000) });
    expect(verifyWith(APP, { method: 'POST', path, query: fresh, body }).ok).toBe(true);
    expect(verifyWith(APP, { method: 'POST', path, query: signedByHand({ timestamp: 1000 }), body }).ok).toBe(
      false,
    );
  });

  it('compares the signature in constant time', () => {
    vi.mocked(equalDigests).mockClear();
    verify({ ...signedByHand(), auth_signature: '0'.repeat(64) });
    expect(equalDigests).toHaveBeenCalled();
  });
});

/** Decodes a query as http-api does before the parsed check: URLSearchParams, repeats joined with commas. */
function decodedQuery(raw: string): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    record[name] = record[name] === undefined ? value : `${record[name]},${value}`;
  }
  return record;
}

describe('verifyRawRequest, on its own', () => {
  const now = 1_700_000_000;
  const path = '/apps/3/events';
  const body = '{"name":"e","data":"{}","channel":"orders"}';

  beforeEach(() => {
    vi.spyOn(Date, 'now').mockReturnValue(now * 1000);
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('checks a trigger signed by the pusher SDK straight from its query string', () => {
    const query = sdk.createSignedQueryString({ method: 'POST', path, body });
    expect(query.endsWith(`&auth_signature=${new URLSearchParams(query).get('auth_signature')}`)).toBe(true);
    expect(verifyRawRequest(APP, { method: 'POST', path, query, body })).toEqual({ ok: true, value: true });
    expect(verifyRawRequest(OTHER_SECRET, { method: 'POST', path, query, body })).toMatchObject({
      ok: false,
      error: { reason: 'bad_signature' },
    });
  });

  it('checks a signed GET with the SDK’s extra parameters the same way', () => {
    const params = { filter_by_prefix: 'presence-', info: 'user_count' };
    const query = sdk.createSignedQueryString({ method: 'GET', path: '/apps/3/channels', params });
    expect(verifyRawRequest(APP, { method: 'GET', path: '/apps/3/channels', query, body: '' })).toEqual({
      ok: true,
      value: true,
    });
  });

  it.each([
    ['percent-encoding', 'auth_key=app%2Dkey&auth_timestamp=1&auth_version=1.0&auth_signature=00'],
    ['a plus sign', 'auth_key=app+key&auth_timestamp=1&auth_version=1.0&auth_signature=00'],
    ['names out of order', 'auth_timestamp=1&auth_key=app-key&auth_version=1.0&auth_signature=00'],
    [
      'an upper-case name',
      'auth_key=app-key&auth_timestamp=1&auth_version=1.0&Socket_id=1.2&auth_signature=0',
    ],
    [
      'a repeated name',
      'auth_key=app-key&auth_key=app-key&auth_timestamp=1&auth_version=1.0&auth_signature=0',
    ],
    [
      'two signatures',
      'auth_key=app-key&auth_signature=0&auth_timestamp=1&auth_version=1.0&auth_signature=0',
    ],
    ['a name without a value', 'auth_key=app-key&auth_timestamp=1&auth_version=1.0&flag&auth_signature=0'],
    ['an empty pair', 'auth_key=app-key&&auth_timestamp=1&auth_version=1.0&auth_signature=0'],
    ['a trailing &', 'auth_key=app-key&auth_timestamp=1&auth_version=1.0&auth_signature=0&'],
    ['nothing at all', ''],
  ])('leaves a query with %s to the decoded check', (_name, query) => {
    expect(verifyRawRequest(APP, { method: 'POST', path, query, body })).toBeUndefined();
  });

  it('gives the decoded check’s answer whenever it answers, over many changed queries', () => {
    const signed = sdk.createSignedQueryString({ method: 'POST', path, body });
    const pairs = signed.split('&');
    // Random changes: reorder, drop, duplicate, add, upper-case or encode a pair, change a value; also untouched.
    const changes = [
      (list: string[]) => [...list].reverse(),
      (list: string[]) => list.filter((_, i) => i !== Math.floor(Math.random() * list.length)),
      (list: string[]) => [...list, list[Math.floor(Math.random() * list.length)] as string],
      (list: string[]) => [...list.slice(0, -1), 'socket_id=1.2', list[list.length - 1] as string],
      (list: string[]) => ['a_first=x', ...list],
      (list: string[]) => list.map((pair, i) => (i === 0 ? pair.toUpperCase() : pair)),
      (list: string[]) => list.map((pair, i) => (i === 1 ? pair.replace('_', '%5F') : pair)),
      (list: string[]) =>
        list.map((pair) => (pair.startsWith('auth_timestamp') ? `auth_timestamp=${now - 700}` : pair)),
      (list: string[]) => list.map((pair) => (pair.startsWith('body_md5') ? `body_md5=${md5('x')}` : pair)),
      (list: string[]) => list,
    ];
    let answered = 0;
    for (let round = 0; round < 400; round++) {
      let list = pairs;
      for (let i = 0; i < 1 + Math.floor(Math.random() * 3); i++) {
        list = (changes[Math.floor(Math.random() * changes.length)] as (l: string[]) => string[])(list);
      }
      const query = list.join('&');
      const raw = verifyRawRequest(APP, { method: 'POST', path, query, body });
      if (raw === undefined) continue;
      answered++;
      expect(raw, query).toEqual(
        verifyRequest(APP, { method: 'POST', path, query: decodedQuery(query), body }),
      );
    }
    expect(answered).toBeGreaterThan(50);
  });
});

describe('the HMAC-SHA256 and MD5 of the hot paths', () => {
  // Lengths around the 64-byte block and its 56-byte padding limit, where a padding mistake would show.
  const lengths = [
    0, 1, 31, 32, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 200, 1023, 1024, 1025, 3000,
  ];
  const text = (length: number) =>
    Array.from({ length }, () =>
      String.fromCodePoint(
        Math.random() < 0.9
          ? 32 + Math.floor(Math.random() * 95)
          : 0xe9 + Math.floor(Math.random() * 0x1f600),
      ),
    ).join('');

  it('gives node:crypto’s HMAC for keys and messages of every length, ASCII or not', () => {
    for (const keyLength of [0, 1, 20, 63, 64, 65, 100, 200]) {
      for (const length of lengths) {
        const secret = text(keyLength);
        const message = text(length);
        const expected = createHmac('sha256', secret).update(message).digest('hex');
        expect(hmacSha256Hex(secret, message), `${keyLength}/${length}`).toBe(expected);
      }
    }
  });

  it('gives node:crypto’s HMAC for ASCII secrets, whose inner pad is hashed as text', () => {
    const ascii = (length: number) =>
      Array.from({ length }, () => String.fromCharCode(32 + Math.floor(Math.random() * 95))).join('');
    for (const keyLength of [1, 20, 32, 63, 64]) {
      for (const length of lengths) {
        const secret = ascii(keyLength);
        const message = text(length);
        expect(hmacSha256Hex(secret, message), `${keyLength}/${length}`).toBe(
          createHmac('sha256', secret).update(message).digest('hex'),
        );
      }
    }
  });

  it('gives each secret and head its own HMAC when checks under several of them interleave', () => {
    // The last secret's pads and the last head are kept between calls: a switch of secret or head, or a message that
    // outgrows the work space, must not leave the previous ones in place.
    const secrets = ['app-secret', text(20), text(90), 'another-secret'];
    const heads = ['', 'POST\n/apps/1/events\n', 'GET\n/apps/1/channels\n', text(30)];
    for (let round = 0; round < 80; round++) {
      const secret = secrets[round % secrets.length] as string;
      const head = heads[Math.floor(round / 3) % heads.length] as string;
      const message = text(round === 30 ? 5000 : 40 + round);
      expect(hmacSha256Hex(secret, message, head), String(round)).toBe(
        createHmac('sha256', secret)
          .update(head + message)
          .digest('hex'),
      );
    }
  });

  it('gives node:crypto’s HMAC for long messages, which a key with a non-ASCII pad does not keep room for', () => {
    for (const secret of ['app-secret', 'sécret-ü', text(90)]) {
      for (const length of [16_000, 40_000]) {
        const message = text(length);
        expect(hmacSha256Hex(secret, message, 'POST\n/x\n'), String(length)).toBe(
          createHmac('sha256', secret).update(`POST\n/x\n${message}`).digest('hex'),
        );
      }
      // A short one after a long one still uses the space the key keeps.
      expect(hmacSha256Hex(secret, 'short')).toBe(createHmac('sha256', secret).update('short').digest('hex'));
    }
  });

  it('signs text and bytes alike with hmacHex, as node:crypto does', () => {
    for (const secret of ['app-secret', 'sécret-ü']) {
      const body = text(300);
      const expected = createHmac('sha256', secret).update(body).digest('hex');
      expect(hmacHex(secret, body)).toBe(expected);
      expect(hmacHex(secret, Buffer.from(body))).toBe(expected);
    }
  });

  it('checks body_md5 against bodies of every length, as bytes and as text', () => {
    for (const length of lengths) {
      const bytes = randomBytes(length);
      const body = text(length);
      for (const sent of [bytes, body]) {
        const query = signRequest(APP, { method: 'POST', path: '/apps/1/events', body: sent });
        expect(verifyRequest(APP, { method: 'POST', path: '/apps/1/events', query, body: sent }).ok).toBe(
          true,
        );
        const other = { ...query, body_md5: createHash('md5').update('other').digest('hex') };
        expect(
          verifyRequest(APP, { method: 'POST', path: '/apps/1/events', query: other, body: sent }),
        ).toMatchObject({
          ok: false,
          error: { reason: 'body_md5_mismatch' },
        });
      }
    }
  });
});

describe('signWebhook', () => {
  const body = '{"time_ms":1700000000000,"events":[{"name":"channel_occupied","channel":"orders"}]}';

  it('is the HMAC-SHA256 hex of the exact body', () => {
    expect(signWebhook(APP.secret, body)).toBe(hmac(APP.secret, body));
  });

  it('is accepted by the pusher SDK’s webhook check', () => {
    const webhook = sdk.webhook({
      headers: {
        'x-pusher-key': APP.key,
        'x-pusher-signature': signWebhook(APP.secret, body),
        'content-type': 'application/json',
      },
      rawBody: body,
    });
    expect(webhook.isValid()).toBe(true);
  });
});

describe('verifyWebhook', () => {
  const body = '{"time_ms":1,"events":[{"name":"member_added","channel":"presence-a","user_id":"Zoë"}]}';
  const signature = hmac(APP.secret, body);

  it('accepts the signature of the exact body', () => {
    expect(verifyWebhook(APP.secret, body, signature)).toBe(true);
  });

  it('accepts the body as bytes', () => {
    expect(verifyWebhook(APP.secret, Buffer.from(body), signature)).toBe(true);
  });

  it('rejects a body changed by one byte', () => {
    expect(verifyWebhook(APP.secret, body.replace('"time_ms":1', '"time_ms":2'), signature)).toBe(false);
  });

  it('rejects a body re-serialised with other spacing', () => {
    expect(verifyWebhook(APP.secret, JSON.stringify(JSON.parse(body), null, 1), signature)).toBe(false);
  });

  it('rejects a signature made with another secret', () => {
    expect(verifyWebhook(APP.secret, body, hmac('another-secret', body))).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['truncated', signature.slice(0, 32)],
  ])('rejects an %s signature', (_name, bad) => {
    expect(verifyWebhook(APP.secret, body, bad)).toBe(false);
  });
});

describe('previous secrets after a rotation', () => {
  const now = Date.now();
  const rotated = {
    key: 'k',
    secret: 'new-secret',
    previousSecrets: [
      { secret: 'old-secret', until: now + 60_000 },
      { secret: 'ancient-secret', until: now - 1 },
    ],
  };
  const oldApp = { key: 'k', secret: 'old-secret' };
  const ancientApp = { key: 'k', secret: 'ancient-secret' };

  it('lists the current secret first, then previous ones still in their grace period', () => {
    expect(acceptedSecrets(rotated, now)).toEqual(['new-secret', 'old-secret']);
    expect(acceptedSecrets(rotated, now + 60_000)).toEqual(['new-secret']);
  });

  it('accepts a channel auth signed with a previous secret until its grace period ends', () => {
    const input = { socketId: '1.2', channel: 'private-a' };
    expect(verifyChannelAuth(rotated, signChannelAuth(oldApp, input), input)).toBe(true);
    expect(verifyChannelAuth(rotated, signChannelAuth(rotated, input), input)).toBe(true);
    expect(verifyChannelAuth(rotated, signChannelAuth(ancientApp, input), input)).toBe(false);
  });

  it('accepts a user auth signed with a previous secret until its grace period ends', () => {
    const userData = '{"id":"ada"}';
    expect(verifyUserAuth(rotated, signUserAuth(oldApp, '1.2', userData), '1.2', userData)).toBe(true);
    expect(verifyUserAuth(rotated, signUserAuth(ancientApp, '1.2', userData), '1.2', userData)).toBe(false);
  });

  it('accepts a REST request signed with a previous secret until its grace period ends', () => {
    const body = '{"name":"e","channel":"c","data":"{}"}';
    const request = (secret: string) => ({
      method: 'POST',
      path: '/apps/1/events',
      query: signRequest({ key: 'k', secret }, { method: 'POST', path: '/apps/1/events', body }),
      body,
    });
    expect(verifyRequest(rotated, request('old-secret')).ok).toBe(true);
    expect(verifyRequest(rotated, request('new-secret')).ok).toBe(true);
    expect(verifyRequest(rotated, request('ancient-secret'))).toMatchObject({
      ok: false,
      error: { reason: 'bad_signature' },
    });
  });
});
