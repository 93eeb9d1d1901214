// The console's HTTP side, mounted under `{path}/console`: the front end's files, the token sign-in, and the JSON
// and server-sent-event routes it reads. Every data route needs a session (401 without), and every state-changing
// one also its CSRF token and a same-origin request. Wrong tokens are limited per client address (429 past it).

import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import { addAppRoutes, fail } from './app-routes.js';
import { CSRF_HEADER, SESSION_COOKIE } from './auth.js';
import { createSignInLimit } from './sign-in-limit.js';
import { signInPage } from './sign-in-page.js';
import type { ConsoleEnv, ConsoleRoutesOptions } from './types.js';

const signInBody = z.object({ token: z.string().min(1).max(1000) });

/** The console's hono app, answering every request under `{path}/console`. */
export function createConsoleRoutes(options: ConsoleRoutesOptions): Hono<ConsoleEnv> {
  const { auth, assets } = options;
  const base = `${options.path}/console`;
  const app = new Hono<ConsoleEnv>({ strict: false }).basePath(base);
  const secure = (c: Context) =>
    new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';

  const signIns = createSignInLimit();
  // A request whose address the server cannot tell (neither transport fails to) shares one budget with all such.
  const clientOf = (c: Context<ConsoleEnv>) => c.env.clientAddress ?? '';
  /** The 429 answer to an address with no sign-in attempt left, else undefined. */
  const overLimit = (c: Context<ConsoleEnv>) => {
    const wait = signIns.wait(clientOf(c));
    if (wait === 0) return undefined;
    c.header('retry-after', String(wait));
    return fail(
      c,
      429,
      'too_many_attempts',
      `Too many wrong tokens from this address; try again in ${wait} s`,
    );
  };

  const startSession = (c: Context) => {
    setCookie(c, SESSION_COOKIE, auth.issue(), {
      httpOnly: true,
      sameSite: 'Strict',
      secure: secure(c),
      path: base,
      maxAge: Math.floor(auth.sessionMs / 1000),
    });
  };

  /** Same-origin check for state-changing requests: a browser always sends Origin on them. */
  const sameOrigin = (c: Context) => {
    const origin = c.req.header('origin');
    if (origin === undefined) return true;
    const host = c.req.header('host');
    return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
  };

  const serveFile = (c: Context, name: string) => {
    const asset = assets.get(name);
    if (!asset) return fail(c, 404, 'not_found', 'No such file');
    return c.body(asset.body as Uint8Array<ArrayBuffer>, 200, {
      'content-type': asset.type,
      'cache-control': name === 'index.html' ? 'no-store' : 'public, max-age=3600',
      'x-content-type-options': 'nosniff',
      ...(name === 'index.html' ? { 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' } : {}),
    });
  };

  app.get('/', (c) => {
    const token = c.req.query('token');
    if (token !== undefined) {
      const refused = overLimit(c);
      if (refused) return refused;
      if (!auth.checkToken(token)) {
        signIns.failed(clientOf(c));
        return c.html(signInPage(base, 'That token is not this server’s console token.'), 401, {
          'referrer-policy': 'no-referrer',
        });
      }
      startSession(c);
      // Away from the address bar and the history: the token is not left in a URL.
      c.header('referrer-policy', 'no-referrer');
      return c.redirect(`${base}/`, 303);
    }
    if (!new URL(c.req.url).pathname.endsWith('/')) return c.redirect(`${base}/`, 301);
    return serveFile(c, 'index.html');
  });
  app.get('/assets/*', (c) => serveFile(c, c.req.path.slice(base.length + 1)));

  app.post('/api/session', async (c) => {
    if (!sameOrigin(c)) return fail(c, 403, 'cross_origin', 'Sign in from the console’s own page');
    const refused = overLimit(c);
    if (refused) return refused;
    const type = c.req.header('content-type') ?? '';
    const raw = type.includes('json')
      ? await c.req.json().catch(() => undefined)
      : Object.fromEntries(Object.entries(await c.req.parseBody().catch(() => ({}))));
    const body = signInBody.safeParse(raw);
    if (!body.success || !auth.checkToken(body.data.token)) {
      signIns.failed(clientOf(c));
      return fail(c, 401, 'bad_token', 'That token is not this server’s console token');
    }
    startSession(c);
    if (!type.includes('json')) return c.redirect(`${base}/`, 303);
    return c.json({ ok: true });
  });

  const requireSession: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
    const session = auth.verify(getCookie(c, SESSION_COOKIE));
    if (!session) return fail(c, 401, 'unauthorized', 'Sign in to the console first');
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      if (!sameOrigin(c)) return fail(c, 403, 'cross_origin', 'Cross-origin requests are refused');
      if (!auth.checkCsrf(session, c.req.header(CSRF_HEADER))) {
        return fail(c, 403, 'csrf', `Missing or wrong ${CSRF_HEADER} header`);
      }
    }
    c.set('session', session);
    await next();
    return undefined;
  };
  app.use('/api/*', requireSession);

  app.get('/api/session', (c) => c.json({ csrf: auth.csrfOf(c.get('session')), csrfHeader: CSRF_HEADER }));
  app.delete('/api/session', (c) => {
    setCookie(c, SESSION_COOKIE, '', { httpOnly: true, sameSite: 'Strict', path: base, maxAge: 0 });
    return c.json({ ok: true });
  });

  addAppRoutes(app, options);

  app.notFound((c) => fail(c, 404, 'not_found', 'No such console route'));
  app.onError((error, c) => fail(c, 503, 'failed', error instanceof Error ? error.message : 'failed'));
  return app;
}
