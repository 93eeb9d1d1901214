import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AwayDelivery,
  createAwayDelivery,
  createDatabaseChannel,
  createNotifier,
  type Delivery,
  type Notification,
  type NotificationChannel,
  type Notifier,
} from '../src/index.js';
import { STORES, type TestStore } from './stores.js';

// Away delivery over a real store, without presence (every recipient counts as away, as documented), driven by
// `runDue` with a clock the test sets, so no test waits for time to pass. The channels are the test's own, as
// any host's would be: they record what they are asked to send.

class CommentReplied implements Notification {
  constructor(
    private readonly title: string,
    readonly awayAfterSeconds = 0,
    readonly digestWindowSeconds = 0,
  ) {}
  via() {
    return ['database'];
  }
  toDatabase() {
    return { title: this.title, message: `About ${this.title}` };
  }
}

/** A comment on one post: later ones replace the unread earlier one (collapse key) and count it. */
class Commented implements Notification {
  readonly collapseKey = 'post-7-comments';
  constructor(
    private readonly actor: string,
    readonly awayAfterSeconds: number,
  ) {}
  via() {
    return ['database'];
  }
  toDatabase() {
    return { title: `${this.actor} commented`, message: 'on post 7', actor: this.actor };
  }
}

interface Recorder extends NotificationChannel {
  readonly singles: Delivery[];
  readonly digests: Delivery[][];
}

/** The title a delivery would show, from its stored data. */
function titleOf(delivery: Delivery): string | undefined {
  return (delivery.notification.toDatabase?.(delivery.notifiable) as { title?: string } | undefined)?.title;
}

function recorder(): Recorder {
  const singles: Delivery[] = [];
  const digests: Delivery[][] = [];
  return {
    singles,
    digests,
    async send(delivery) {
      singles.push(delivery);
    },
    async sendDigest(deliveries) {
      digests.push([...deliveries]);
    },
  };
}

describe.each(STORES)('away delivery on $driver', ({ open }) => {
  let opened: TestStore;
  let email: Recorder;
  let chat: Recorder;
  let away: AwayDelivery;
  let notifier: Notifier;
  let clock = new Date();
  const later = (seconds: number) => new Date(Date.now() + seconds * 1000);

  beforeAll(async () => {
    opened = await open();
    email = recorder();
    chat = recorder();
    away = createAwayDelivery({ store: opened.store, channels: { email, chat }, now: () => clock });
    notifier = createNotifier({
      channels: { database: createDatabaseChannel({ store: opened.store }) },
      preferences: opened.store,
      away,
    });
  });

  afterAll(async () => {
    await away?.stop();
    await opened?.dispose();
  });

  function reset() {
    for (const channel of [email, chat]) {
      channel.singles.length = 0;
      channel.digests.length = 0;
    }
  }

  it('sends a due delivery on every away channel the recipient’s preferences accept', async () => {
    reset();
    const ada = {
      type: 'User',
      id: 'ada',
      routeNotificationFor: (c: string) => (c === 'email' ? 'ada@x.test' : undefined),
    };
    await opened.store.setPreferences({ type: 'User', id: 'ada' }, { CommentReplied: { chat: false } });
    const report = await notifier.send(ada, new CommentReplied('Hello'));
    expect(report.delivered).toEqual({ database: 1, away: 1 });
    clock = later(1);
    expect(await away.runDue()).toBe(1);
    expect(chat.singles).toHaveLength(0);
    expect(
      email.singles.map((d) => [d.id, d.type, d.notifiable.routeNotificationFor?.('email', d.notification)]),
    ).toEqual([[report.ids[0], 'CommentReplied', 'ada@x.test']]);
    expect(email.singles[0]?.notification.toDatabase?.(email.singles[0].notifiable)).toEqual({
      title: 'Hello',
      message: 'About Hello',
    });
    expect(await away.runDue()).toBe(0);
  });

  it('keeps a delivery until its delay ends', async () => {
    reset();
    await notifier.send({ type: 'User', id: 'bea' }, new CommentReplied('Later', 60));
    clock = later(30);
    expect(await away.runDue()).toBe(0);
    clock = later(61);
    expect(await away.runDue()).toBe(1);
    expect(email.singles.map((d) => d.notifiable.id)).toEqual(['bea']);
  });

  it('drops a delivery the recipient read before its time', async () => {
    reset();
    const report = await notifier.send({ type: 'User', id: 'cid' }, new CommentReplied('Read it', 10));
    await opened.store.markRead({ type: 'User', id: 'cid' }, report.ids[0] as string);
    clock = later(11);
    expect(await away.runDue()).toBe(1);
    expect(email.singles).toHaveLength(0);
    expect(chat.singles).toHaveLength(0);
  });

  it('sends deliveries due within the window as one digest, and opens a new one after it', async () => {
    reset();
    const dan = { type: 'User', id: 'dan' };
    await notifier.send(dan, new CommentReplied('One', 0, 60));
    await notifier.send(dan, new CommentReplied('Two', 30, 60));
    await notifier.send(dan, new CommentReplied('Three', 120, 60));
    clock = later(50);
    expect(await away.runDue()).toBe(0);
    clock = later(61);
    expect(await away.runDue()).toBe(1);
    expect(email.digests.map((digest) => digest.map((d) => titleOf(d)))).toEqual([['One', 'Two']]);
    expect(email.singles).toHaveLength(0);
    clock = later(181);
    expect(await away.runDue()).toBe(1);
    expect(email.singles.map((d) => titleOf(d))).toEqual(['Three']);
  });

  it('keeps a digest whole when it holds more deliveries than one look at the store takes (500)', async () => {
    reset();
    const awayOnly = createNotifier({ channels: {}, away });
    const gus = { type: 'User', id: 'gus' };
    for (let index = 0; index < 501; index += 1) {
      await awayOnly.send(gus, Object.assign(new CommentReplied(`Item ${index}`, 0, 60), { via: () => [] }));
    }
    clock = later(61);
    expect(await away.runDue()).toBe(1);
    expect(email.digests.map((digest) => digest.length)).toEqual([501]);
  });

  it('sends concurrent deliveries to one recipient as one digest, never one per send', async () => {
    reset();
    const hal = { type: 'User', id: 'hal' };
    // Eight sends at once, straight to the queue so they meet in the store: on PostgreSQL each runs in its own
    // transaction on its own connection of the pool, and without a lock each would open a digest of its own.
    const ids = Array.from({ length: 8 }, () => randomUUID());
    await Promise.all(
      ids.map((id, index) =>
        away.schedule([
          {
            id,
            type: 'CommentReplied',
            owner: hal,
            data: { title: `At once ${index}`, message: 'concurrent' },
            channels: ['email', 'chat'],
            routes: {},
            dueAt: new Date(Date.now() + index),
            digestWindowSeconds: 60,
          },
        ]),
      ),
    );
    clock = later(61);
    expect(await away.runDue()).toBe(1);
    expect(email.singles).toHaveLength(0);
    expect(email.digests).toHaveLength(1);
    expect(chat.digests).toHaveLength(1);
    expect(new Set(email.digests[0]?.map((d) => d.id))).toEqual(new Set(ids));
    expect(await away.runDue()).toBe(0);
  });

  it('replaces a collapsed notification’s away delivery with the newest one, sent with its count', async () => {
    reset();
    const ivy = { type: 'User', id: 'ivy' };
    const first = await notifier.send(ivy, new Commented('Bo', 10));
    const second = await notifier.send(ivy, new Commented('Ada', 10));
    clock = later(11);
    expect(await away.runDue()).toBe(1);
    expect(email.singles.map((d) => d.id)).toEqual([second.ids[0]]);
    expect(email.singles.map((d) => d.id)).not.toContain(first.ids[0]);
    expect(titleOf(email.singles[0] as Delivery)).toBe('Ada commented');
    expect(email.singles[0]?.collapse).toEqual({ count: 2, actors: ['Ada', 'Bo'] });
    expect(await away.runDue()).toBe(0);
  });

  it('cancels the collapsed notification’s away delivery when it is read in the bell', async () => {
    reset();
    const jo = { type: 'User', id: 'jo' };
    await notifier.send(jo, new Commented('Bo', 10));
    const second = await notifier.send(jo, new Commented('Ada', 10));
    await opened.store.markRead({ type: 'User', id: 'jo' }, second.ids[0] as string);
    clock = later(11);
    await away.runDue();
    expect(email.singles).toHaveLength(0);
    expect(chat.singles).toHaveLength(0);
  });

  it('emails the address kept for the recipient when the send names none', async () => {
    reset();
    await away.rememberAddress({ type: 'User', id: 'eve' }, 'email', 'eve@x.test');
    await notifier.send({ type: 'User', id: 'eve' }, new CommentReplied('Kept address'));
    clock = later(1);
    await away.runDue();
    expect(email.singles.map((d) => d.notifiable.routeNotificationFor?.('email', d.notification))).toEqual([
      'eve@x.test',
    ]);
  });
});
