// A push service double. No real push service (Google's FCM, Mozilla's autopush, Apple's) can be reached from
// here, so the tests post to this one on loopback instead. It follows the rules a real one checks:
// - RFC 8030 (Generic Event Delivery Using HTTP Push): `POST` to the subscription's push resource with a `TTL`
//   header, answered `201 Created` with a `Location` of the push message; 404 for an unknown subscription.
// - RFC 8292 (VAPID): `Authorization: vapid t=<JWT>, k=<public key>`; the JWT is ES256, signed with the key in
//   `k`, which must be the `applicationServerKey` the browser subscribed with; `aud` is this service's origin,
//   `exp` within 24 hours, `sub` a mailto: or https: contact. Otherwise 401/403.
// - RFC 8291 (Message Encryption for Web Push) over RFC 8188 (`Content-Encoding: aes128gcm`): the body is
//   decrypted here with the browser's private key and auth secret, as a browser would, using node:crypto only.
// It speaks HTTPS (the web-push library only posts over TLS) with a certificate made by `openssl` for 127.0.0.1.

import { execFileSync } from 'node:child_process';
import {
  createDecipheriv,
  createECDH,
  createPublicKey,
  type ECDH,
  hkdfSync,
  randomBytes,
  randomUUID,
  verify,
} from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A subscription as `PushSubscription.toJSON()` gives it in a browser. */
export interface SubscriptionJson {
  readonly endpoint: string;
  readonly expirationTime: null;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

/** One push the double accepted: decrypted, with the headers and VAPID claims it came with. */
export interface ReceivedPush {
  readonly endpoint: string;
  /** The decrypted payload, parsed as JSON. */
  readonly message: Record<string, unknown>;
  readonly ttl: number;
  readonly urgency: string | undefined;
  readonly claims: { readonly aud: string; readonly exp: number; readonly sub: string };
  readonly receivedAt: number;
}

/** Every request the double refused, with its status and why (a test asserts this stays empty). */
export interface RefusedPush {
  readonly endpoint: string;
  readonly status: number;
  readonly reason: string;
}

export interface PushServiceDouble {
  readonly origin: string;
  /** A PEM file of the certificate authority to trust for it (the self-signed certificate itself). */
  readonly caFile: string;
  readonly received: ReceivedPush[];
  readonly refused: RefusedPush[];
  /** Makes a subscription as a browser's `pushManager.subscribe({ applicationServerKey })` would. */
  subscribe(applicationServerKey: string): SubscriptionJson;
  /** Makes the service answer this status (404, 410, 500…) for a subscription from now on. */
  answer(endpoint: string, status: number): void;
  stop(): Promise<void>;
}

interface Browser {
  readonly ecdh: ECDH;
  readonly auth: Buffer;
  readonly applicationServerKey: string;
  answer?: number;
}

function selfSignedCertificate(dir: string): { key: string; cert: string; file: string } {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=127.0.0.1'],
      ...['-addext', 'subjectAltName=IP:127.0.0.1'],
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), file: certFile };
}

/** Checks `Authorization: vapid t=…, k=…` (RFC 8292 §3); answers the claims or why not. */
function checkVapid(
  header: string | undefined,
  expected: { origin: string; key: string },
): { ok: true; claims: ReceivedPush['claims'] } | { ok: false; status: number; reason: string } {
  const match = /^vapid\s+t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!match) return { ok: false, status: 401, reason: `no vapid authorization: ${header}` };
  const token = match[1] as string;
  const key = match[2] as string;
  if (key !== expected.key) return { ok: false, status: 403, reason: 'k is not the subscription key' };
  const [head, body, signature] = token.split('.');
  if (!head || !body || !signature) return { ok: false, status: 401, reason: 'not a JWT' };
  const header64 = JSON.parse(Buffer.from(head, 'base64url').toString()) as { alg?: string; typ?: string };
  if (header64.alg !== 'ES256') return { ok: false, status: 401, reason: `alg ${header64.alg}` };
  const point = Buffer.from(key, 'base64url');
  const publicKey = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
  // JWS ES256 signatures are r||s (64 bytes), not DER (RFC 7518 §3.4).
  const signed = verify(
    'sha256',
    Buffer.from(`${head}.${body}`),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) return { ok: false, status: 401, reason: 'bad signature' };
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as ReceivedPush['claims'];
  const now = Date.now() / 1000;
  if (claims.aud !== expected.origin) return { ok: false, status: 401, reason: `aud ${claims.aud}` };
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600))
    return { ok: false, status: 401, reason: `exp ${claims.exp} not within 24 h` };
  if (!/^(mailto:|https:)/.test(claims.sub ?? '')) return { ok: false, status: 401, reason: 'sub' };
  return { ok: true, claims };
}

/** Decrypts an aes128gcm body (RFC 8188 §2) with the keys of RFC 8291 §3.4, as the browser would. */
function decrypt(body: Buffer, browser: Browser): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body.readUInt8(20);
  const senderKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  if (idLength !== 65 || record.length > recordSize) throw new Error('one record with a 65-byte key id');
  const secret = browser.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), browser.ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', secret, browser.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The plaintext ends with the delimiter 0x02 (last record), then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (padded[end] !== 2) throw new Error('no last-record delimiter');
  return padded.subarray(0, end);
}

/** Starts the double on a random loopback port. */
export async function startPushServiceDouble(): Promise<PushServiceDouble> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-push-double-'));
  const certificate = selfSignedCertificate(dir);
  const browsers = new Map<string, Browser>();
  const received: ReceivedPush[] = [];
  const refused: RefusedPush[] = [];
  let origin = '';

  const server: Server = createServer(
    { key: certificate.key, cert: certificate.cert },
    (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const endpoint = `${origin}${request.url}`;
        const refuse = (status: number, reason: string) => {
          refused.push({ endpoint, status, reason });
          response.writeHead(status, { 'content-type': 'text/plain' }).end(reason);
        };
        const browser = browsers.get(endpoint);
        if (request.method !== 'POST' || !browser) return refuse(404, 'no such subscription');
        if (browser.answer) {
          response.writeHead(browser.answer, { 'content-type': 'text/plain' }).end('answered by the test');
          return;
        }
        const ttl = Number(request.headers.ttl);
        if (request.headers.ttl === undefined || !Number.isInteger(ttl) || ttl < 0)
          return refuse(400, 'TTL header missing (RFC 8030 §5.2)');
        if (request.headers['content-encoding'] !== 'aes128gcm')
          return refuse(415, `content-encoding ${request.headers['content-encoding']}`);
        const vapid = checkVapid(request.headers.authorization, {
          origin,
          key: browser.applicationServerKey,
        });
        if (!vapid.ok) return refuse(vapid.status, vapid.reason);
        let message: Record<string, unknown>;
        try {
          message = JSON.parse(decrypt(Buffer.concat(chunks), browser).toString('utf8'));
        } catch (error) {
          return refuse(400, `cannot decrypt: ${(error as Error).message}`);
        }
        received.push({
          endpoint,
          message,
          ttl,
          urgency: request.headers.urgency as string | undefined,
          claims: vapid.claims,
          receivedAt: Date.now(),
        });
        response.writeHead(201, { location: `/message/${randomUUID()}` }).end();
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    caFile: certificate.file,
    received,
    refused,
    subscribe(applicationServerKey) {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const endpoint = `${origin}/push/${randomUUID()}`;
      browsers.set(endpoint, { ecdh, auth, applicationServerKey });
      return {
        endpoint,
        expirationTime: null,
        keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
      };
    },
    answer(endpoint, status) {
      const browser = browsers.get(endpoint);
      if (!browser) throw new Error(`no subscription ${endpoint}`);
      browser.answer = status;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
