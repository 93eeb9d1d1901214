import { type NotificationUser, signUserToken } from '@herald/notifications';
import type { UserTokenConfig } from './config.js';

/** How long the token the demo page gets lives; the page asks `/demo/token.json` for a fresh one. */
export const DEMO_TOKEN_SECONDS = 15 * 60;

/** Signs a user token for a signed-in demo user. */
export type DemoTokenSigner = (user: NotificationUser) => Promise<string>;

/**
 * The demo page is a client of the user-token scheme: the service signs a token for the signed-in demo user,
 * as a host app's backend would.
 */
export function createDemoTokenSigner(config: UserTokenConfig): DemoTokenSigner {
  return (user) =>
    signUserToken({
      secret: config.secret,
      userId: user.id,
      userType: user.type,
      name: user.name,
      audience: config.audience,
      issuer: config.issuer,
      expiresIn: DEMO_TOKEN_SECONDS,
    });
}
