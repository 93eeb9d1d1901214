import { describe, expect, it } from 'vitest';
import { pushRoutes } from './push-routes.js';

describe('pushRoutes', () => {
  it('puts the push routes and the worker beside the JSON API the bell is given', () => {
    expect(pushRoutes({ apiUrl: '/notification/notifications/unread.json', push: {} })).toEqual({
      key: '/notification/push/key.json',
      subscriptions: '/notification/push/subscriptions.json',
      serviceWorker: '/notification/sw.js',
    });
  });

  it('keeps the origin of a service elsewhere, and a worker URL the page gives', () => {
    expect(
      pushRoutes({
        apiUrl: 'https://notify.example/notification/notifications.json',
        push: { serviceWorkerUrl: '/herald-sw.js' },
      }),
    ).toEqual({
      key: 'https://notify.example/notification/push/key.json',
      subscriptions: 'https://notify.example/notification/push/subscriptions.json',
      serviceWorker: '/herald-sw.js',
    });
  });
});
