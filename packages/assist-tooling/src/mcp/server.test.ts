import { describe, expect, it } from 'vitest';
import { assistConfigSchema } from '../config.js';
import { enabledTools } from './enabled-tools.js';

const names = (raw: object) => enabledTools(assistConfigSchema.parse(raw)).map((tool) => tool.name);

describe('enabledTools', () => {
  it('offers every tool but execute by default', () => {
    expect(names({})).toHaveLength(14);
    expect(names({})).not.toContain('execute');
  });

  it('offers execute once the config enables it', () => {
    expect(names({ execute: { enabled: true } })).toContain('execute');
  });

  it('drops excluded tools and keeps only included ones', () => {
    expect(names({ mcp: { tools: { exclude: ['database-query', 'config-read'] } } })).not.toContain(
      'database-query',
    );
    expect(names({ mcp: { tools: { include: ['current-time', 'execute'] } } })).toEqual(['current-time']);
  });
});
