import { describe, expect, it } from 'vitest';
import { ServerMetrics } from './metrics.js';

async function lines(metrics: ServerMetrics): Promise<string[]> {
  return (await metrics.render()).body.split('\n').filter((line) => line.includes('app_id='));
}

describe('ServerMetrics.forApp', () => {
  it('shows each app’s counts under its app_id when scraped', async () => {
    const metrics = new ServerMetrics({ processMetrics: false });
    const shop = metrics.forApp('shop');
    shop.connections.inc();
    shop.connections.inc();
    shop.connections.dec();
    shop.sent.inc(5);
    shop.bytesOut.inc(120);
    metrics.forApp('blog').subscriptions.inc();
    const scraped = await lines(metrics);
    expect(scraped).toContain('herald_connected{app_id="shop"} 1');
    expect(scraped).toContain('herald_ws_messages_sent_total{app_id="shop"} 5');
    expect(scraped).toContain('herald_socket_transmitted_bytes{app_id="shop"} 120');
    expect(scraped).toContain('herald_subscriptions{app_id="blog"} 1');
  });

  it('keeps counters growing across scrapes and gauges at their current value', async () => {
    const metrics = new ServerMetrics({ processMetrics: false });
    const app = metrics.forApp('shop');
    app.received.inc(3);
    app.subscriptions.inc();
    await lines(metrics);
    app.received.inc(2);
    app.subscriptions.dec();
    const scraped = await lines(metrics);
    expect(scraped).toContain('herald_ws_messages_received_total{app_id="shop"} 5');
    expect(scraped).toContain('herald_subscriptions{app_id="shop"} 0');
  });

  it('hands out the same counts for the same app id, so a replaced app keeps counting', () => {
    const metrics = new ServerMetrics({ processMetrics: false });
    expect(metrics.forApp('shop')).toBe(metrics.forApp('shop'));
    expect(metrics.forApp('shop')).not.toBe(metrics.forApp('blog'));
  });
});

describe('ServerMetrics.forHttp', () => {
  it('counts HTTP calls and bytes per app id, read into the labelled counters when scraped', async () => {
    const metrics = new ServerMetrics({ processMetrics: false });
    const shop = metrics.forHttp('shop');
    shop.calls.inc();
    shop.calls.inc();
    shop.bytesIn.inc(300);
    shop.bytesOut.inc(2);
    metrics.forHttp('').calls.inc();
    const scraped = await lines(metrics);
    expect(scraped).toContain('herald_http_calls_received_total{app_id="shop"} 2');
    expect(scraped).toContain('herald_http_received_bytes{app_id="shop"} 300');
    expect(scraped).toContain('herald_http_transmitted_bytes{app_id="shop"} 2');
    expect(scraped).toContain('herald_http_calls_received_total{app_id=""} 1');
    shop.calls.inc();
    expect(await lines(metrics)).toContain('herald_http_calls_received_total{app_id="shop"} 3');
  });
});

describe('ServerMetrics history counts', () => {
  it('counts replays, replayed events and recovery failures by reason, only for apps that had any', async () => {
    const metrics = new ServerMetrics({ processMetrics: false });
    const shop = metrics.forApp('shop');
    metrics.forApp('blog').connections.inc();
    shop.replays.inc();
    shop.replayedEvents.inc(4);
    shop.recoveryFailures.trimmed.inc();
    shop.recoveryFailures.trimmed.inc();
    shop.recoveryFailures.restarted.inc();
    const scraped = await lines(metrics);
    expect(scraped).toContain('herald_history_replays_total{app_id="shop"} 1');
    expect(scraped).toContain('herald_history_replayed_events_total{app_id="shop"} 4');
    expect(scraped).toContain('herald_recovery_failures_total{app_id="shop",reason="trimmed"} 2');
    expect(scraped).toContain('herald_recovery_failures_total{app_id="shop",reason="restarted"} 1');
    expect(scraped.filter((line) => line.includes('reason="expired"'))).toEqual([]);
    expect(scraped.filter((line) => line.startsWith('herald_history') && line.includes('"blog"'))).toEqual(
      [],
    );
  });

  it('reads history size per app from its source at scrape time, and drops apps no longer listed', async () => {
    const metrics = new ServerMetrics({ processMetrics: false });
    let apps = ['shop', 'blog'];
    const sizes: Record<string, { events: number; bytes: number }> = {
      shop: { events: 3, bytes: 120 },
      blog: { events: 0, bytes: 0 },
    };
    metrics.watchHistorySize({ apps: () => apps, size: async (appId) => sizes[appId] });
    expect(await lines(metrics)).toEqual(
      expect.arrayContaining([
        'herald_history_events{app_id="shop"} 3',
        'herald_history_bytes{app_id="shop"} 120',
        'herald_history_events{app_id="blog"} 0',
      ]),
    );
    apps = ['shop'];
    sizes.shop = { events: 5, bytes: 200 };
    const scraped = await lines(metrics);
    expect(scraped).toContain('herald_history_events{app_id="shop"} 5');
    expect(scraped.filter((line) => line.includes('"blog"'))).toEqual([]);
  });
});
