import { type AuthToken, authHeaders } from './auth.js';
import { BellError, type BellErrorCode, type BellOperation, isBellError } from './errors.js';
import type { BellFilter } from './options.js';

/** One page of the JSON API's list: the records, whether there is a next page, and the unread count. */
export interface NotificationPage {
  readonly records: readonly unknown[];
  readonly hasNextPage: boolean;
  readonly unreadCount: number | undefined;
}

/** What a write answered: the new unread count when the server said it. */
export interface WriteResult {
  readonly unreadCount: number | undefined;
}

/** How many notifications each tab holds, as `GET …/counts.json` answers. */
export interface InboxCounts {
  readonly inbox: number;
  readonly unread: number;
  readonly archived: number;
  readonly snoozed: number;
  readonly unseen: number;
}

/** Talks to the notifications JSON API with a host-signed user token, or the page's session cookie and CSRF token. */
export interface NotificationClient {
  /** One page of the list: of `filter` (`….json` or `…/unread.json`), or of `apiUrl` itself when not given. */
  list(page: number, limit: number, filter?: BellFilter): Promise<NotificationPage>;
  markRead(id: string): Promise<WriteResult>;
  markAllRead(): Promise<WriteResult>;
  remove(id: string): Promise<WriteResult>;
  /** The counts of every tab, in one request. */
  counts(): Promise<InboxCounts>;
  /** Marks notifications seen (not read), in one request. */
  markSeen(ids: readonly string[]): Promise<WriteResult>;
  archive(id: string): Promise<WriteResult>;
  unarchive(id: string): Promise<WriteResult>;
  /** Archives every read notification in the inbox. */
  archiveAllRead(): Promise<WriteResult>;
  /** Hides one from the inbox until `until`, when it comes back unread. */
  snooze(id: string, until: Date): Promise<WriteResult>;
}

/** Options of {@link createNotificationClient}. */
export interface NotificationClientOptions {
  /**
   * The list URL, e.g. `/notification/notifications/unread.json` or `https://notify.example.com/notification/notifications.json`;
   * the other routes sit beside it.
   */
  readonly apiUrl: string;
  readonly fetch?: typeof fetch | undefined;
  /** Sent as `Authorization: Bearer <token>` on every request; with it, no CSRF token is sent. */
  readonly authToken?: AuthToken | undefined;
  /** Reads the CSRF token sent on writes without `authToken` (default: the `csrfToken` meta tag, then `csrf-token`). */
  readonly csrfToken?: (() => string | undefined) | undefined;
  /** Whether requests carry cookies (default `same-origin`; `include` for a cookie session on another origin). */
  readonly credentials?: RequestCredentials | undefined;
}

/** Reads the page's CSRF token from `<meta name="csrfToken">` (or `csrf-token`, as some frameworks name it). */
export function readCsrfToken(doc: Document | undefined = globalThis.document): string | undefined {
  const meta = doc?.querySelector<HTMLMetaElement>('meta[name="csrfToken"], meta[name="csrf-token"]');
  return meta?.content || undefined;
}

type Loose = Record<string, unknown>;

/** Each request's part of the (English) error message; the store words it in the page's language. */
const OPERATIONS: Record<BellOperation, string> = {
  load: 'load notifications',
  markRead: 'mark it as read',
  markAllRead: 'mark all as read',
  delete: 'delete it',
  archive: 'archive',
  snooze: 'snooze it',
  markSeen: 'mark them seen',
};

/** The reason given when the request never got an answer. */
export const UNREACHABLE = 'the server could not be reached';

function unreadOf(body: Loose): number | undefined {
  const meta = (body.meta ?? {}) as Loose;
  const count = meta.unread_count ?? meta.count ?? body.unreadCount;
  return typeof count === 'number' ? count : undefined;
}

/** Derives the routes from the list URL: `…/notifications/unread.json` → `…/notifications`. */
export function apiBase(apiUrl: string): string {
  // The tab query (`….json?tab=archived`) is the list's own; the routes sit beside the path.
  return apiUrl.replace(/(\/unread)?\.json(\?.*)?$/, '');
}

/**
 * Creates the JSON API client. Every failure becomes a {@link BellError} whose message can be shown as is.
 *
 * @example
 * const client = createNotificationClient({ apiUrl: '/notification/notifications/unread.json' });
 * const { records } = await client.list(1, 10);
 */
export function createNotificationClient(options: NotificationClientOptions): NotificationClient {
  const base = apiBase(options.apiUrl);
  const auth = { authToken: options.authToken, csrfToken: options.csrfToken ?? readCsrfToken };
  const credentials = options.credentials ?? 'same-origin';
  const doFetch = (input: string, init: RequestInit) => (options.fetch ?? globalThis.fetch)(input, init);

  const request = async (
    method: string,
    url: string,
    operation: BellOperation,
    body?: unknown,
  ): Promise<Loose> => {
    const what = OPERATIONS[operation];
    const fail = (code: BellErrorCode, detail: string, extra: { cause?: unknown; status?: number } = {}) =>
      new BellError(code, `Could not ${what}: ${detail}.`, { ...extra, operation, detail });
    let headers: Record<string, string>;
    try {
      headers = {
        accept: 'application/json',
        'x-requested-with': 'XMLHttpRequest',
        ...(await authHeaders(auth, method !== 'GET')),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      };
    } catch (error) {
      throw fail('unauthenticated', isBellError(error) ? error.message : 'no sign-in token', {
        cause: error,
      });
    }
    let response: Response;
    try {
      response = await doFetch(url, {
        method,
        headers,
        credentials,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (cause) {
      throw fail('request_failed', UNREACHABLE, { cause });
    }
    let answer: Loose = {};
    try {
      answer = (await response.json()) as Loose;
    } catch (cause) {
      if (response.ok) throw fail('bad_response', 'the answer was not JSON', { cause });
    }
    if (!response.ok) {
      const error = (answer.error ?? {}) as Loose;
      const detail = typeof error.message === 'string' ? error.message : `HTTP ${response.status}`;
      const code =
        response.status === 401
          ? 'unauthenticated'
          : response.status === 403
            ? 'forbidden'
            : 'request_failed';
      throw fail(code, detail, { status: response.status });
    }
    return answer;
  };
  const write = async (path: string, operation: BellOperation, body?: unknown): Promise<WriteResult> => {
    const answer = await request('PATCH', `${base}${path}`, operation, body);
    return { unreadCount: unreadOf(answer) };
  };
  const one = (id: string) => `/${encodeURIComponent(id)}`;

  return {
    async list(page, limit, filter) {
      const url = new URL(options.apiUrl, 'http://placeholder');
      if (filter) {
        url.pathname = `${apiBase(url.pathname)}${filter === 'unread' ? '/unread.json' : '.json'}`;
        if (filter === 'archived' || filter === 'snoozed') url.searchParams.set('tab', filter);
        else url.searchParams.delete('tab');
      }
      url.searchParams.set('page', String(page));
      url.searchParams.set('limit', String(limit));
      const target = /^https?:/.test(options.apiUrl) ? url.href : `${url.pathname}${url.search}`;
      const body = await request('GET', target, 'load');
      if (!Array.isArray(body.data)) {
        throw new BellError('bad_response', 'Could not load notifications: no data.', {
          operation: 'load',
          detail: 'no data',
        });
      }
      const pagination = (body.pagination ?? {}) as Loose;
      return {
        records: body.data,
        hasNextPage: pagination.has_next_page === true,
        unreadCount: unreadOf(body),
      };
    },
    async markRead(id) {
      const body = await request('PATCH', `${base}/${encodeURIComponent(id)}/read.json`, 'markRead');
      return { unreadCount: unreadOf(body) };
    },
    async markAllRead() {
      const body = await request('PATCH', `${base}/mark-all-read.json`, 'markAllRead');
      return { unreadCount: unreadOf(body) };
    },
    async remove(id) {
      const body = await request('DELETE', `${base}/${encodeURIComponent(id)}.json`, 'delete');
      return { unreadCount: unreadOf(body) };
    },
    async counts() {
      const body = await request('GET', `${base}/counts.json`, 'load');
      const data = (body.data ?? {}) as Loose;
      const count = (name: string) => (typeof data[name] === 'number' ? (data[name] as number) : 0);
      return {
        inbox: count('inbox'),
        unread: count('unread'),
        archived: count('archived'),
        snoozed: count('snoozed'),
        unseen: count('unseen'),
      };
    },
    markSeen: (ids) => write('/seen.json', 'markSeen', { ids }),
    archive: (id) => write(`${one(id)}/archive.json`, 'archive'),
    unarchive: (id) => write(`${one(id)}/unarchive.json`, 'archive'),
    archiveAllRead: () => write('/archive-read.json', 'archive'),
    snooze: (id, until) => write(`${one(id)}/snooze.json`, 'snooze', { until: until.toISOString() }),
  };
}
