import type { MiddlewareHandler } from 'hono';
import type { AppLookup } from '../api-app.js';
import type { HttpApiEnv } from '../api-env.js';
import { HttpApiError } from '../errors.js';

/** Creates the middleware that finds the app named in the path and puts it on the context, or answers 404. */
export function resolveApp(findApp: AppLookup): MiddlewareHandler<HttpApiEnv, '/apps/:appId/*'> {
  return async (c, next) => {
    const appId = c.req.param('appId');
    const app = await findApp(appId);
    if (app === undefined) throw new HttpApiError('app_not_found', `Unknown app ${appId}`);
    c.set('app', app);
    await next();
  };
}
