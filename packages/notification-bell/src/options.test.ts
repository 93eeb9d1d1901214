import { describe, expect, it } from 'vitest';
import { shouldPoll } from './live/connection.js';
import { liveChannelName, resolveBellOptions, updateMode } from './options.js';

describe('resolveBellOptions', () => {
  it('fills the defaults the spec gives', () => {
    const options = resolveBellOptions();
    expect(options).toMatchObject({
      mode: 'dropdown',
      position: 'right',
      theme: null,
      pollInterval: 30_000,
      enablePolling: true,
      perPage: 10,
      unreadCount: null,
      markReadOnClick: true,
      broadcasting: false,
      apiUrl: '/notification/notifications/unread.json',
    });
    expect(options.labels.unread(3)).toBe('3 unread');
  });

  it('treats auto as following the page, and drops values of the wrong kind', () => {
    const options = resolveBellOptions({
      theme: 'auto',
      perPage: -1,
      mode: 'sideways' as 'panel',
      labels: { title: 'Benachrichtigungen' },
    });
    expect(options).toMatchObject({ theme: null, perPage: 10, mode: 'dropdown' });
    expect(options.labels).toMatchObject({ title: 'Benachrichtigungen', loadMore: 'Load more' });
  });
});

describe('updateMode and shouldPoll', () => {
  const wsproto = { broadcaster: 'wsproto' as const, wsprotoKey: 'k' };

  it('is push-only with broadcasting and no polling: it polls only while the connection is not up', () => {
    const options = resolveBellOptions({ broadcasting: wsproto, enablePolling: false, userId: 7 });
    expect(updateMode(options)).toBe('push');
    expect(shouldPoll('push', 'live')).toBe(false);
    expect(shouldPoll('push', 'down')).toBe(true);
    expect(shouldPoll('push', 'connecting')).toBe(true);
    expect(liveChannelName(options)).toBe('private-User.7');
  });

  it('combines both when polling stays on, polls alone without broadcasting, and can do neither', () => {
    expect(updateMode(resolveBellOptions({ broadcasting: wsproto }))).toBe('combined');
    expect(shouldPoll('combined', 'live')).toBe(true);
    expect(updateMode(resolveBellOptions())).toBe('poll');
    expect(updateMode(resolveBellOptions({ enablePolling: false }))).toBe('none');
    expect(shouldPoll('none', 'off')).toBe(false);
  });

  it('listens on the channel the server named', () => {
    const options = resolveBellOptions({
      broadcasting: { ...wsproto, channel: 'private-Admin.1' },
      userId: 7,
    });
    expect(liveChannelName(options)).toBe('private-Admin.1');
  });
});
