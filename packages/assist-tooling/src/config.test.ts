import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';

describe('parseConfig', () => {
  it('fills every default from an empty file', () => {
    const parsed = parseConfig({});
    expect(parsed.ok && parsed.value).toMatchObject({
      enabled: true,
      force_enable: false,
      rules: { enabled: true, scoped_guidelines: false },
      guidelines: { dependencies: 'direct', exclude: [] },
      mcp: { enabled: true, server_name: 'assist' },
      execute: { enabled: false, timeout: 30 },
    });
  });

  it('names the path of an unknown key', () => {
    const parsed = parseConfig({ Assist: { rules: { scoped: true } } }, 'assist.config.json');
    expect(parsed.ok || parsed.error.message).toMatch(
      /assist\.config\.json is invalid:\n {2}Assist\.rules: /,
    );
  });
});
