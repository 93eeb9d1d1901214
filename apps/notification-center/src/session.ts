import type { NotificationUser } from '@herald/notifications';
import { hmacHex } from '@herald/protocol-core';
import type { Context } from 'hono';
import { deleteCookie, getSignedCookie, setSignedCookie } from 'hono/cookie';

/** The demo's users: sign in as any of them, no password (this is a demo login, not an identity provider). */
export const DEMO_USERS: readonly NotificationUser[] = [
  { id: 'alice', name: 'Alice' },
  { id: 'bob', name: 'Bob' },
];

const COOKIE = 'herald_nc_session';

/** The demo session: a signed cookie holding the user id, and a CSRF token derived from it. */
export function createSessions(secret: string) {
  return {
    async user(c: Context): Promise<NotificationUser | undefined> {
      const id = await getSignedCookie(c, secret, COOKIE);
      return typeof id === 'string' ? DEMO_USERS.find((user) => user.id === id) : undefined;
    },
    async signIn(c: Context, id: string): Promise<boolean> {
      if (!DEMO_USERS.some((user) => user.id === id)) return false;
      await setSignedCookie(c, COOKIE, id, secret, { httpOnly: true, sameSite: 'Lax', path: '/' });
      return true;
    },
    signOut(c: Context): void {
      deleteCookie(c, COOKIE, { path: '/' });
    },
    csrfToken(user: NotificationUser): string {
      return hmacHex(secret, `csrf:${user.type ?? 'User'}:${user.id}`);
    },
  };
}

/** The demo session helpers. */
export type Sessions = ReturnType<typeof createSessions>;
