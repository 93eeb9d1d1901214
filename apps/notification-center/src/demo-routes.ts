import { escapeHtml, type Notifier } from '@herald/notifications';
import { safeEqual } from '@herald/protocol-core';
import type { Hono } from 'hono';
import { DemoNotification } from './demo-notification.js';
import { renderDemoPage } from './demo-page.js';
import { DEMO_TOKEN_SECONDS, type DemoTokenSigner } from './demo-token.js';
import { DEMO_USERS, type Sessions } from './session.js';

/** What the demo's sign-in, token and send routes use. */
export interface DemoRoutesOptions {
  readonly sessions: Sessions;
  readonly notifier: Notifier;
  readonly demoToken: DemoTokenSigner;
}

/** Mounts the demo's sign-in and sign-out, its fresh user token, and its form that sends through every channel. */
export function mountDemoRoutes(app: Hono, { sessions, notifier, demoToken }: DemoRoutesOptions): void {
  app.get('/demo/token.json', async (c) => {
    const user = await sessions.user(c);
    if (!user) return c.json({ error: { code: 'unauthenticated', message: 'sign in first' } }, 401);
    return c.json({ token: await demoToken(user), expires_in: DEMO_TOKEN_SECONDS });
  });

  app.get('/login', (c) => {
    const options = DEMO_USERS.map(
      (u) => `<option value="${escapeHtml(String(u.id))}">${escapeHtml(u.name ?? String(u.id))}</option>`,
    );
    return c.html(
      renderDemoPage(
        'Sign in',
        '',
        `<main><h1>Sign in (demo)</h1><form class="card" method="post" action="/login"><label>User <select name="user">${options.join('')}</select></label> <button class="primary">Sign in</button></form></main>`,
      ),
    );
  });
  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const ok = await sessions.signIn(c, String(form.user ?? ''));
    return ok ? c.redirect('/', 303) : c.text('unknown demo user', 422);
  });
  app.post('/logout', (c) => {
    sessions.signOut(c);
    return c.redirect('/login', 303);
  });

  app.post('/demo/send', async (c) => {
    const user = await sessions.user(c);
    if (!user) return c.redirect('/login', 303);
    const form = await c.req.parseBody();
    if (!safeEqual(String(form._csrf ?? ''), sessions.csrfToken(user)))
      return c.text('CSRF token mismatch', 403);
    const notification = new DemoNotification(
      notifier.channelNames,
      String(form.title ?? ''),
      String(form.message ?? ''),
    );
    const report = await notifier.send({ ...user, type: user.type ?? 'User' }, notification);
    if (!report.ok) {
      const lines = report.failures.map(
        (f) => `<li>${escapeHtml(f.channel)}: ${escapeHtml(f.error.message)}</li>`,
      );
      return c.html(
        renderDemoPage(
          'Not sent',
          '',
          `<h1>Some channels failed</h1><ul>${lines.join('')}</ul><a href="/">Back</a>`,
        ),
        422,
      );
    }
    return c.redirect('/', 303);
  });
}
