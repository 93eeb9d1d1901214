import { z } from 'zod';
import { TeamChatError } from './errors.js';
import { isHttpUrl } from './internal/url.js';

/** `teamchat`, or a named instance such as `teamchat-alerts`. */
const CHANNEL_NAME = /^teamchat(?:-[a-z0-9]+(?:[-_][a-z0-9]+)*)?$/;

/** One team-chat channel's options, as written in config (times in seconds, as fractions if needed). */
export const teamChatConfigSchema = z.strictObject({
  /** The incoming webhook's URL, `https://chat.example.com/hooks/<id>/<token>`: a secret. */
  webhook: z.string().refine(isHttpUrl, 'must be an absolute http(s) URL'),
  /** The whole request, connecting included, in seconds. */
  timeout: z.number().positive().default(10),
  /** Setting up the TCP (and TLS) connection, in seconds. */
  connect_timeout: z.number().positive().default(5),
  /** Verify the server's TLS certificate. */
  verify: z.boolean().default(true),
  /** Throw on a non-2xx answer; when false it is returned (and logged) instead. */
  http_errors: z.boolean().default(true),
  /** An http(s) proxy URL, `http://user:pass@proxy:3128`; requests tunnel through it with CONNECT. */
  proxy: z.string().refine(isHttpUrl, 'must be an absolute http(s) URL').optional(),
  /** Extra request headers. */
  headers: z.record(z.string(), z.string()).default({}),
  /** How many times to retry after a 429, waiting as Retry-After or X-RateLimit-Reset says. */
  retries: z.number().int().min(0).max(10).default(0),
  /** The longest wait for a retry, in seconds; a 429 asking for longer fails at once. */
  retry_max_wait: z.number().positive().default(60),
});

/** A channel's options as given: only `webhook` is required. */
export type TeamChatConfigInput = z.input<typeof teamChatConfigSchema>;
/** A channel's options with every default filled in. */
export type TeamChatConfig = z.output<typeof teamChatConfigSchema>;

/** Tells whether a name can name a team-chat channel: `teamchat` or `teamchat-<instance>`. */
export function isTeamChatChannelName(name: string): boolean {
  return CHANNEL_NAME.test(name);
}

/**
 * Checks a channel's config and fills in defaults; a string is taken as the webhook URL.
 *
 * @throws {TeamChatError} `invalid_config`, naming every key at fault (never the webhook's value).
 */
export function parseTeamChatConfig(name: string, input: TeamChatConfigInput | string): TeamChatConfig {
  if (!isTeamChatChannelName(name)) {
    throw new TeamChatError(
      'invalid_config',
      `"${name}" cannot name a team-chat channel: use teamchat or teamchat-<name> (lower case, digits, - or _)`,
    );
  }
  const parsed = teamChatConfigSchema.safeParse(typeof input === 'string' ? { webhook: input } : input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(config)'}: ${issue.message}`,
    );
    throw new TeamChatError('invalid_config', `${name}: ${problems.join('; ')}`);
  }
  return parsed.data;
}
