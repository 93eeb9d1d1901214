import type { RealtimeConfigInput } from './config-schema.js';

/** The demo app's placeholder secret: fine on a laptop, refused when NODE_ENV=production. */
export const DEMO_SECRET = 'herald-demo-secret';

/** The configuration used when no file is found: one demo app, no Redis. */
export const DEFAULT_CONFIG: RealtimeConfigInput = {
  default: 'herald',
  servers: { herald: {} },
  applications: [
    {
      id: 'herald-demo',
      key: 'herald-demo-key',
      secret: DEMO_SECRET,
      name: 'Herald demo',
    },
  ],
  // The token is made at start (see loadConfig) and printed with the console's URL.
  console: { enabled: true },
};
