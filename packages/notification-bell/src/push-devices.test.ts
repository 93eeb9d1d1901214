import { describe, expect, it } from 'vitest';
import { pushDeviceName } from './push-devices.js';

const agent = (text: string) => pushDeviceName({ user_agent: text }, 'Unknown browser');

describe('pushDeviceName', () => {
  it('names the browser and system of common user agents', () => {
    expect(
      agent(
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36',
      ),
    ).toBe('Chrome · Linux');
    expect(
      agent(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36 Edg/140.0.0.0',
      ),
    ).toBe('Edge · Windows');
    expect(agent('Mozilla/5.0 (Android 15; Mobile; rv:140.0) Gecko/140.0 Firefox/140.0')).toBe(
      'Firefox · Android',
    );
    expect(
      agent(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('Safari · iOS');
  });

  it('prefers the label it was saved with, and says when it knows nothing', () => {
    expect(pushDeviceName({ label: 'Work laptop', user_agent: 'Firefox/1' }, 'Unknown browser')).toBe(
      'Work laptop',
    );
    expect(pushDeviceName({ user_agent: null }, 'Unknown browser')).toBe('Unknown browser');
    expect(agent('curl/8.0 (Linux)')).toBe('Unknown browser · Linux');
  });
});
