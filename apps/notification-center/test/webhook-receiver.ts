import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback stand-in for Rocket.Chat incoming webhooks, and what each hook was sent. */
export interface WebhookReceiver {
  readonly server: Server;
  /** The receiver's URL for a hook path such as `/hooks/general/token-1`. */
  url(hook: string): string;
  /** The JSON bodies posted to each hook path, in order. */
  readonly bodies: Map<string, unknown[]>;
  close(): Promise<void>;
}

// No Rocket.Chat server can run here. This double follows the documented incoming-webhook contract for the
// parts used: a JSON POST to /hooks/{id}/{token}, answered 200 {"success":true}.
export function webhookReceiver(): Promise<WebhookReceiver> {
  const bodies = new Map<string, unknown[]>();
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      const hook = request.url ?? '';
      bodies.set(hook, [...(bodies.get(hook) ?? []), JSON.parse(text)]);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        server,
        bodies,
        url: (hook) => `http://127.0.0.1:${port}${hook}`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    }),
  );
}
