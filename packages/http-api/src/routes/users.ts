import type { Handler } from 'hono';
import type { HttpApiEnv } from '../api-env.js';
import type { RealtimeBackend } from '../backend.js';
import { sendJson } from '../internal/respond.js';
import type { Logger } from '../logger.js';

/** Creates `POST /apps/{id}/users/{user}/terminate_connections`: closes every connection of a signed-in user. */
export function terminateUserConnections(
  backend: RealtimeBackend,
  logger: Logger,
): Handler<HttpApiEnv, '/apps/:appId/users/:userId/terminate_connections'> {
  return async (c) => {
    const app = c.get('app');
    const userId = c.req.param('userId');
    await backend.terminateUser(app.id, userId);
    logger.info('user connections terminated', { appId: app.id, userId });
    return sendJson(c, {});
  };
}
