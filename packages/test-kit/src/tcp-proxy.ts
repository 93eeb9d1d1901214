import { connect, createServer, type Socket } from 'node:net';

/** Where a {@link TcpProxy} forwards to. */
export interface TcpTarget {
  readonly host: string;
  readonly port: number;
}

/**
 * A TCP proxy on loopback in front of a server (PostgreSQL, Redis, a real-time node), so a test can take the
 * server away from a client (and give it back) without stopping a server others use. Point the client at
 * `127.0.0.1:{port}`.
 */
export interface TcpProxy {
  readonly port: number;
  /** Drops every open connection and refuses new ones (accepts and closes them at once) until `restore`. */
  cut(): void;
  /**
   * Stops forwarding without closing anything, as a network partition does: open connections go silent (a side that
   * closes meanwhile is not told to the other, as no packet crosses) and new ones are accepted but never answered,
   * until `restore`, which then drops them all, as a connection that did not survive the outage is found dead.
   */
  freeze(): void;
  restore(): void;
  /** Sends the connections opened from now on to another server (a reconnect that lands on another node). */
  retarget(target: TcpTarget): void;
  close(): Promise<void>;
}

/**
 * Starts a {@link TcpProxy} on a free loopback port, forwarding to `target`.
 *
 * @example
 * const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
 * const store = createPostgresAppStore({ url: `postgres://postgres@127.0.0.1:${proxy.port}/test` });
 * proxy.cut(); // the store's connection drops; known apps stay in memory
 */
export async function startTcpProxy(target: TcpTarget): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let mode: 'forward' | 'refuse' | 'freeze' = 'forward';
  let to = target;
  const server = createServer((incoming) => {
    if (mode === 'refuse') {
      incoming.destroy();
      return;
    }
    if (mode === 'freeze') {
      open.add(incoming);
      incoming.on('error', () => incoming.destroy());
      incoming.on('close', () => open.delete(incoming));
      return;
    }
    const outgoing = connect(to.port, to.host);
    for (const [from, other] of [
      [incoming, outgoing],
      [outgoing, incoming],
    ] as const) {
      open.add(from);
      from.pipe(other);
      // While frozen nothing crosses, a close neither: `restore` drops the other side.
      from.on('error', () => {
        if (mode !== 'freeze') other.destroy();
      });
      from.on('close', () => {
        open.delete(from);
        if (mode !== 'freeze') other.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('proxy has no port');
  return {
    port: address.port,
    cut() {
      mode = 'refuse';
      for (const socket of open) socket.destroy();
    },
    freeze() {
      mode = 'freeze';
      for (const socket of open) {
        socket.unpipe();
        socket.pause();
      }
    },
    restore() {
      if (mode === 'freeze') for (const socket of open) socket.destroy();
      mode = 'forward';
    },
    retarget(next) {
      to = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
