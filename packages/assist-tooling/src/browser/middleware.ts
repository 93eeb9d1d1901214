import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AssistConfig, defaultConfig, loadConfig } from '../config.js';
import { BROWSER_LOGS_PATH, browserLogsEnabled, handleBrowserLogs } from './log-store.js';
import { injectBrowserWatcher, nonceFromCsp } from './watcher.js';

/** Options of the browser-log middleware and Vite plugin. */
export interface BrowserLogsOptions {
  /** The project root, where `assist.config` is read and `.assist/logs/browser.log` written. */
  root: string;
  /** Whether the app runs in development (e.g. `process.env.NODE_ENV === 'development'`). */
  development: boolean;
  /** The assist config; read from `root` when left out. */
  config?: AssistConfig;
}

function configOnce(options: BrowserLogsOptions): () => Promise<AssistConfig> {
  let loading: Promise<AssistConfig> | undefined;
  return () => {
    if (options.config) return Promise.resolve(options.config);
    loading ??= loadConfig(options.root).then((result) => (result.ok ? result.value : defaultConfig()));
    return loading;
  };
}

/** The part of a hono `Context` the middleware uses. */
export interface HonoLikeContext {
  req: { method: string; path: string; raw: Request };
  res: Response;
  var?: object;
}

/**
 * hono middleware: serves `POST /_assist/browser-logs` and puts the watcher script into HTML responses (with
 * the CSP nonce of hono's secureHeaders or of the response's header). Does nothing when not enabled.
 * @example
 * app.use(assistHono({ root: process.cwd(), development: process.env.NODE_ENV === 'development' }));
 */
export function assistHono(
  options: BrowserLogsOptions,
): (c: HonoLikeContext, next: () => Promise<void>) => Promise<Response | undefined> {
  const config = configOnce(options);
  return async (c, next) => {
    if (!browserLogsEnabled(await config(), options.development)) {
      await next();
      return undefined;
    }
    if (c.req.path === BROWSER_LOGS_PATH && c.req.method === 'POST')
      return handleBrowserLogs(c.req.raw, options.root);
    await next();
    const res = c.res;
    if (!(res.headers.get('content-type') ?? '').includes('text/html') || res.body === null) return undefined;
    const nonce =
      ((c.var as Record<string, unknown> | undefined)?.secureHeadersNonce as string | undefined) ??
      nonceFromCsp(res.headers.get('content-security-policy'));
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    c.res = new Response(injectBrowserWatcher(await res.text(), nonce), {
      status: res.status,
      statusText: res.statusText,
      headers,
    });
    return undefined;
  };
}

type ExpressLikeResponse = ServerResponse & { locals?: Record<string, unknown> };
type NextFn = (error?: unknown) => void;

/**
 * Middleware for express, connect and other `(req, res, next)` servers: serves the browser-log route and
 * puts the watcher into HTML responses (nonce from `res.locals.cspNonce` or the CSP header).
 * @example
 * app.use(assistExpress({ root: process.cwd(), development: app.get('env') === 'development' }));
 */
export function assistExpress(
  options: BrowserLogsOptions,
): (req: IncomingMessage, res: ExpressLikeResponse, next: NextFn) => void {
  const config = configOnce(options);
  return (req, res, next) => {
    config().then((loaded) => {
      if (!browserLogsEnabled(loaded, options.development)) return next();
      if (req.method === 'POST' && (req.url ?? '').replace(/\?.*$/, '') === BROWSER_LOGS_PATH) {
        return void answerNode(req, res, options.root).catch(next);
      }
      injectIntoNodeResponse(res);
      next();
    }, next);
  };
}

/** Answers the browser-log route on a Node request, reading the body unless a body parser already did. */
export async function answerNode(req: IncomingMessage, res: ServerResponse, root: string): Promise<void> {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  let body: string;
  if (typeof parsed === 'string') body = parsed;
  else if (parsed !== undefined && parsed !== null && typeof parsed === 'object' && !Buffer.isBuffer(parsed))
    body = JSON.stringify(parsed);
  else {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    body = Buffer.concat(chunks).toString('utf8');
  }
  const headers = new Headers();
  if (req.headers['content-type']) headers.set('content-type', String(req.headers['content-type']));
  const response = await handleBrowserLogs(
    new Request(`http://localhost${BROWSER_LOGS_PATH}`, { method: 'POST', headers, body }),
    root,
  );
  res.statusCode = response.status;
  res.end(await response.text());
}

function injectIntoNodeResponse(res: ExpressLikeResponse): void {
  const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  const chunks: Buffer[] = [];
  const isHtml = () => !res.headersSent && String(res.getHeader('content-type') ?? '').includes('text/html');
  let buffering: boolean | undefined;
  const toBuffer = (chunk: unknown, encoding?: unknown) =>
    Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    buffering ??= isHtml();
    if (!buffering) return write(chunk, ...rest);
    chunks.push(toBuffer(chunk, rest[0]));
    const callback = rest.find((item) => typeof item === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof res.write;
  res.end = ((...args: unknown[]) => {
    buffering ??= isHtml();
    if (!buffering) return end(...args);
    const [chunk, encoding] = args;
    if (chunk !== undefined && typeof chunk !== 'function') chunks.push(toBuffer(chunk, encoding));
    const nonce =
      (res.locals?.cspNonce as string | undefined) ??
      nonceFromCsp(res.getHeader('content-security-policy') as string | undefined);
    const html = injectBrowserWatcher(Buffer.concat(chunks).toString('utf8'), nonce);
    if (!res.headersSent) res.setHeader('content-length', Buffer.byteLength(html));
    return end(html);
  }) as typeof res.end;
}

/** The part of Vite's plugin API the plugin uses. */
export interface VitePluginLike {
  name: string;
  apply: 'serve';
  configResolved(config: { root: string; html?: { cspNonce?: string } }): void;
  configureServer(server: {
    middlewares: { use(fn: (req: IncomingMessage, res: ServerResponse, next: NextFn) => void): void };
  }): Promise<void>;
  transformIndexHtml(html: string): string;
}

/**
 * A Vite plugin for the dev server: serves the browser-log route and puts the watcher into `index.html`
 * (with `html.cspNonce` when set). Off unless `browser_logs_watcher` is on.
 * @example
 * export default defineConfig({ plugins: [assistVite()] });
 */
export function assistVite(options: Partial<BrowserLogsOptions> = {}): VitePluginLike {
  let root = options.root ?? process.cwd();
  let nonce: string | undefined;
  let enabled = false;
  return {
    name: 'assist-browser-logs',
    apply: 'serve',
    configResolved(config) {
      root = options.root ?? config.root;
      nonce = config.html?.cspNonce;
    },
    async configureServer(server) {
      const config = await configOnce({
        root,
        development: true,
        ...(options.config ? { config: options.config } : {}),
      })();
      enabled = browserLogsEnabled(config, options.development ?? true);
      if (!enabled) return;
      server.middlewares.use((req, res, next) => {
        if (req.method === 'POST' && (req.url ?? '').replace(/\?.*$/, '') === BROWSER_LOGS_PATH) {
          answerNode(req, res, root).catch(next);
        } else next();
      });
    },
    transformIndexHtml(html) {
      return enabled ? injectBrowserWatcher(html, nonce) : html;
    },
  };
}
