import { describe, expect, it } from 'vitest';
import { shouldPrompt } from './main.js';

const ask = (terminal: boolean, env: Record<string, string> = {}, noInteraction = false) =>
  shouldPrompt({ terminal, noInteraction, env });

describe('shouldPrompt', () => {
  it('prompts whenever stdin is a terminal, npx and npm run included', () => {
    expect(ask(true)).toBe(true);
    expect(ask(true, { npm_lifecycle_event: 'npx' })).toBe(true);
    expect(ask(true, { npm_lifecycle_event: 'setup-agents' })).toBe(true);
    expect(ask(true, { CI: 'false' })).toBe(true);
  });

  it('never prompts without a terminal, under CI, in install scripts or with --no-interaction', () => {
    expect(ask(false, { npm_lifecycle_event: 'npx' })).toBe(false);
    expect(ask(true, { CI: 'true' })).toBe(false);
    expect(ask(true, { CI: '1' })).toBe(false);
    expect(ask(true, { npm_lifecycle_event: 'postinstall' })).toBe(false);
    expect(ask(true, { npm_lifecycle_event: 'prepare' })).toBe(false);
    expect(ask(true, {}, true)).toBe(false);
  });
});
