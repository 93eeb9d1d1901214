import { describe, expect, it } from 'vitest';
import { isPushEndpointPattern, KNOWN_PUSH_SERVICES, pushEndpointsAllowed } from './push-endpoints.js';

const allowed = (patterns: readonly string[], url: string) => pushEndpointsAllowed(patterns)(new URL(url));

describe('pushEndpointsAllowed', () => {
  it('takes the known push services’ endpoints', () => {
    for (const url of [
      'https://fcm.googleapis.com/fcm/send/abc:APA91b',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAAA',
      'https://web.push.apple.com/QGq5',
      'https://wns2-par02p.notify.windows.com/w/?token=AwY',
    ]) {
      expect(allowed(KNOWN_PUSH_SERVICES, url), url).toBe(true);
    }
  });

  it('refuses other hosts, look-alikes included', () => {
    for (const url of [
      'https://169.254.169.254/latest/meta-data',
      'https://localhost/admin',
      'https://push.apple.com/x',
      'https://evilpush.apple.com.attacker.example/x',
      'https://fcm.googleapis.com.attacker.example/x',
      'https://attacker.example/fcm.googleapis.com',
    ]) {
      expect(allowed(KNOWN_PUSH_SERVICES, url), url).toBe(false);
    }
  });

  it('matches a port only when the pattern names one, and takes any host with `*`', () => {
    expect(allowed(['127.0.0.1'], 'https://127.0.0.1:8443/push/1')).toBe(true);
    expect(allowed(['127.0.0.1:8443'], 'https://127.0.0.1:8443/push/1')).toBe(true);
    expect(allowed(['127.0.0.1:9443'], 'https://127.0.0.1:8443/push/1')).toBe(false);
    expect(allowed(['push.example:443'], 'https://PUSH.example/x')).toBe(true);
    expect(allowed(['*'], 'https://anywhere.example/x')).toBe(true);
  });
});

describe('isPushEndpointPattern', () => {
  it('takes host names, IPv4 addresses, wildcards and ports, and nothing with a scheme or path', () => {
    for (const pattern of ['fcm.googleapis.com', '*.push.apple.com', '127.0.0.1:8443', '*']) {
      expect(isPushEndpointPattern(pattern), pattern).toBe(true);
    }
    for (const pattern of ['https://fcm.googleapis.com', 'push.example/x', '*push.example', 'a.*.b', '']) {
      expect(isPushEndpointPattern(pattern), pattern).toBe(false);
    }
  });
});
