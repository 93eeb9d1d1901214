import { describe, expect, it } from 'vitest';
import { DefaultLimits } from './limits.js';

describe('DefaultLimits', () => {
  it.each([
    ['an event payload of 10 KB', 'maxEventPayloadInKb', 10],
    ['100 channels per trigger', 'maxEventChannelsAtOnce', 100],
    ['10 events per batch', 'maxEventBatchSize', 10],
    ['event names of 200 characters', 'maxEventNameLength', 200],
    ['channel names of 164 characters', 'maxChannelNameLength', 164],
    ['100 members per presence channel', 'maxPresenceMembersPerChannel', 100],
    ['presence user ids of 128 characters', 'maxPresenceUserIdLength', 128],
    ['REST timestamps within 600 seconds', 'requestTimestampGraceSeconds', 600],
  ] as const)('allows %s, as Pusher documents', (_name, key, value) => {
    expect(DefaultLimits[key]).toBe(value);
  });
});
