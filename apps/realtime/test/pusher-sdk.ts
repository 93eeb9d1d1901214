import Pusher from 'pusher';

/** The official `pusher` SDK pointed at a server started by a test, for REST calls and webhook checks. */
export function pusherSdk(app: { id: string; key: string; secret: string }, port: number): Pusher {
  return new Pusher({
    appId: app.id,
    key: app.key,
    secret: app.secret,
    host: '127.0.0.1',
    port: String(port),
    useTLS: false,
  });
}
