import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A TEST DOUBLE of a Mercure hub, on loopback, for the bell's `hub` broadcaster. It is not a hub to deploy.
// It follows the deployed Mercure protocol's rules that the bell depends on:
// - subscribe: GET /.well-known/mercure with repeated `topic` parameters, answered as text/event-stream;
// - auth: an HS256 JWS whose `mercure.subscribe` claim lists the topic selectors (exact topics or `*`), taken
//   from the `authorization` query parameter, the `mercureAuthorization` cookie or an `Authorization: Bearer`
//   header; a missing token may only see public updates, a bad or expired one gets 401;
// - private updates go only to subscribers whose claim matches one of the update's topics;
// - publish: POST of form fields `topic` (repeatable), `data`, `private=on`, `id`, `type` with a publisher JWS
//   whose `mercure.publish` claim matches the topic, answered 200 text/plain with the update id (401/403 else);
// - events carry `id:` (and `event:` when the update had a type) and `data:` lines; reconnecting with
//   `Last-Event-ID` (header) or `lastEventID` (query) replays what came after that id;
// - CORS for the page's origin, as a hub's cors_origins does.

function base64url(input: Buffer | string): string {
  return Buffer.from(input).toString('base64url');
}

/** Signs a JWS with HS256. */
export function signJwt(payload: Record<string, unknown>, secret: string): string {
  const head = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = base64url(JSON.stringify(payload));
  const mac = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${mac}`;
}

function verifyJwt(token: string, secret: string): Record<string, unknown> | undefined {
  const [head, body, mac] = token.split('.');
  if (!head || !body || !mac) return undefined;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url'));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const header = JSON.parse(Buffer.from(head, 'base64url').toString()) as { alg?: string };
    if (header.alg !== 'HS256') return undefined;
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    if (typeof claims.exp === 'number' && claims.exp * 1000 < Date.now()) return undefined;
    return claims;
  } catch {
    return undefined;
  }
}

interface Update {
  id: string;
  topics: string[];
  data: string;
  private: boolean;
  type: string | undefined;
}

interface Subscriber {
  topics: string[];
  allowed: string[];
  res: ServerResponse;
}

const matches = (selectors: string[], topic: string) => selectors.some((s) => s === '*' || s === topic);

/** The hub double, its URL and what it saw. */
export interface MercureHubDouble {
  readonly url: string;
  /** Every subscribe request: the topics, where the token came from, and the answer's status. */
  readonly subscriptions: Array<{ topics: string[]; tokenFrom: string | undefined; status: number }>;
  /** Ends every open stream and, while `refusing`, answers new subscriptions with 503. */
  dropAll(refusing: boolean): void;
  readonly connected: number;
  close(): Promise<void>;
}

/** Starts the double on 127.0.0.1 with its subscriber and publisher keys and the page origin it allows. */
export async function startMercureHubDouble(keys: {
  subscriberKey: string;
  publisherKey: string;
  allowOrigin: () => string;
}): Promise<MercureHubDouble> {
  const history: Update[] = [];
  const subscribers = new Set<Subscriber>();
  const subscriptions: MercureHubDouble['subscriptions'] = [];
  let refusing = false;
  let sequence = 0;

  const cors = (res: ServerResponse) => {
    res.setHeader('access-control-allow-origin', keys.allowOrigin());
    res.setHeader('access-control-allow-credentials', 'true');
    res.setHeader('access-control-allow-headers', 'authorization, last-event-id');
  };

  const write = (sub: Subscriber, update: Update) => {
    const lines = [`id: ${update.id}`];
    if (update.type) lines.push(`event: ${update.type}`);
    for (const line of update.data.split('\n')) lines.push(`data: ${line}`);
    sub.res.write(`${lines.join('\n')}\n\n`);
  };

  const visible = (sub: Subscriber, update: Update) =>
    update.topics.some((topic) => matches(sub.topics, topic)) &&
    (!update.private || update.topics.some((topic) => matches(sub.allowed, topic)));

  const tokenOf = (req: IncomingMessage, url: URL): [string | undefined, string | undefined] => {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (bearer) return [bearer, 'header'];
    const query = url.searchParams.get('authorization');
    if (query) return [query, 'query'];
    const cookie = /(?:^|;\s*)mercureAuthorization=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    return cookie ? [cookie, 'cookie'] : [undefined, undefined];
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://hub');
    cors(res);
    if (url.pathname !== '/.well-known/mercure') return void res.writeHead(404).end();
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    const [token, tokenFrom] = tokenOf(req, url);

    if (req.method === 'GET') {
      const topics = url.searchParams.getAll('topic');
      const refuse = (status: number, text: string) => {
        subscriptions.push({ topics, tokenFrom, status });
        res.writeHead(status).end(text);
      };
      if (topics.length === 0) return refuse(400, 'Missing "topic" parameter');
      if (refusing) return refuse(503, 'Unavailable');
      let allowed: string[] = [];
      if (token !== undefined) {
        const claims = verifyJwt(token, keys.subscriberKey);
        const claim = (claims?.mercure as { subscribe?: unknown } | undefined)?.subscribe;
        if (!claims) return refuse(401, 'Unauthorized');
        allowed = Array.isArray(claim) ? claim.map(String) : [];
      }
      subscriptions.push({ topics, tokenFrom, status: 200 });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(':\n\n');
      const sub: Subscriber = { topics, allowed, res };
      const last = req.headers['last-event-id'] ?? url.searchParams.get('lastEventID') ?? undefined;
      if (last !== undefined) {
        const at = history.findIndex((update) => update.id === last);
        for (const update of history.slice(at + 1)) if (visible(sub, update)) write(sub, update);
      }
      subscribers.add(sub);
      req.on('close', () => subscribers.delete(sub));
      return;
    }

    if (req.method === 'POST') {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        const claims = token === undefined ? undefined : verifyJwt(token, keys.publisherKey);
        if (!claims) return void res.writeHead(401).end('Unauthorized');
        const form = new URLSearchParams(body);
        const topics = form.getAll('topic');
        const publish = (claims.mercure as { publish?: unknown } | undefined)?.publish;
        const may = Array.isArray(publish) ? publish.map(String) : [];
        if (topics.length === 0) return void res.writeHead(400).end('Missing "topic" parameter');
        if (!topics.every((topic) => matches(may, topic))) return void res.writeHead(403).end('Forbidden');
        sequence += 1;
        const update: Update = {
          id: form.get('id') ?? `urn:uuid:hub-double-${sequence}`,
          topics,
          data: form.get('data') ?? '',
          private: form.get('private') === 'on',
          type: form.get('type') ?? undefined,
        };
        history.push(update);
        for (const sub of subscribers) if (visible(sub, update)) write(sub, update);
        res.writeHead(200, { 'content-type': 'text/plain' }).end(update.id);
      });
      return;
    }
    res.writeHead(405).end();
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/mercure`,
    subscriptions,
    get connected() {
      return subscribers.size;
    },
    dropAll(refuse) {
      refusing = refuse;
      for (const sub of subscribers) sub.res.destroy();
      subscribers.clear();
    },
    async close() {
      for (const sub of subscribers) sub.res.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
