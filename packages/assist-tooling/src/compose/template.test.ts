import { describe, expect, it } from 'vitest';
import { renderTemplate, type TemplateHelper } from './template.js';

const helper = {
  versions: { hono: '4.6.2' },
  uses: (name: string, range?: string) => name === 'hono' && (range === undefined || range === '>=4.6'),
  run: (script: string) => `pnpm run ${script}`,
} as unknown as TemplateHelper;

describe('renderTemplate', () => {
  it('renders Twig conditions and helpers in .twig files', () => {
    const text =
      "{% if assist.uses('hono', '>=4.6') %}new{% endif %} {{ assist.run('test') }} {{ assist.versions.hono }}";
    expect(renderTemplate(text, 'core.twig', helper)).toEqual({ ok: true, value: 'new pnpm run test 4.6.2' });
  });

  it('keeps snippet bodies verbatim, even Twig-looking code', () => {
    const text = "@assistsnippet('Greeting', 'vue')\n  <p>{{ name }}</p>\n@endassistsnippet";
    expect(renderTemplate(text, 'core.twig', helper)).toEqual({
      ok: true,
      value: '```vue title="Greeting"\n<p>{{ name }}</p>\n```',
    });
  });

  it('leaves .md files unrendered', () => {
    expect(renderTemplate('{{ x }}', 'core.md', helper)).toEqual({ ok: true, value: '{{ x }}' });
  });

  it('reports a broken template with its file name', () => {
    const result = renderTemplate('{% if %}', 'hono/4/core.twig', helper);
    expect(result.ok || result.error.message).toMatch(/^hono\/4\/core\.twig could not be rendered/);
  });
});
