import { describe, expect, it } from 'vitest';
import { readDeclarationDocs } from './dts-docs.js';

describe('readDeclarationDocs', () => {
  it('reads documented functions, interfaces and members, named after their container', () => {
    const docs = readDeclarationDocs(`
import type { Base } from '../../internal/base.js';
/** A widget's options. */
export interface Options extends Base {
  /** Pixels; "auto" when left out. */
  width?: number | 'auto';
  height: number;
  /**
   * Called once mounted.
   * @param el - The element.
   */
  onMount(el: { id: string }): void;
}
/**
 * Creates a widget.
 * @example
 * create({ width: 2 })
 */
export declare function create(
  options: Options,
): () => void;
// not documented
export declare const version: string;
export declare namespace util {
  /** Joins two sizes. */
  function join(a: number, b: number): number;
}
`);
    expect(docs).toEqual([
      { name: 'Options', signature: 'interface Options extends Base', doc: "A widget's options." },
      {
        name: 'Options.width',
        signature: "Options.width?: number | 'auto'",
        doc: 'Pixels; "auto" when left out.',
      },
      {
        name: 'Options.onMount',
        signature: 'Options.onMount(el: { id: string }): void',
        doc: 'Called once mounted.\n@param el - The element.',
      },
      {
        name: 'create',
        signature: 'function create(options: Options): () => void',
        doc: 'Creates a widget.\n@example\ncreate({ width: 2 })',
      },
      {
        name: 'util.join',
        signature: 'function join(a: number, b: number): number',
        doc: 'Joins two sizes.',
      },
    ]);
  });

  it('skips comments that document nothing and braces inside strings', () => {
    const docs = readDeclarationDocs(
      `/** @packageDocumentation */\n/** lone */\n// x\nexport type Brace = '{';\n/** After. */\nexport type After = 1;`,
    );
    expect(docs.map((doc) => doc.name)).toEqual(['After']);
  });
});
