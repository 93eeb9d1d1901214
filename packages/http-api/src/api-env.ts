import type { ApiApp } from './api-app.js';

/** The variables the API's handlers share on the hono context. */
export interface HttpApiEnv {
  Variables: {
    app: ApiApp;
    body: Uint8Array;
    /** Headers to add to the response, such as the rate-limit ones. */
    responseHeaders: Readonly<Record<string, string>>;
  };
}
