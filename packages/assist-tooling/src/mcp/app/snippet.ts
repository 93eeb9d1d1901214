// Turns an `execute` snippet into a module: its imports hoisted, the rest wrapped in an async function that
// returns the value of the last expression. A TypeScript parser (acorn with the plugin Svelte maintains)
// finds the statements, so `const a = 2; a * 21` on one line returns 42.
import { tsPlugin } from '@sveltejs/acorn-typescript';
import { Parser, type Program } from 'acorn';

const TypeScriptParser = Parser.extend(tsPlugin());

/** The module text a snippet runs as, or the parser's message (with line and column) when it does not parse. */
export function snippetModule(code: string): { ok: true; source: string } | { ok: false; error: string } {
  let program: Program;
  try {
    program = TypeScriptParser.parse(code, {
      ecmaVersion: 'latest',
      sourceType: 'module',
      allowAwaitOutsideFunction: true,
      allowReturnOutsideFunction: true,
    });
  } catch (error) {
    return { ok: false, error: `The code does not parse as TypeScript: ${(error as Error).message}` };
  }
  const imports = program.body.filter((node) => node.type === 'ImportDeclaration');
  const last = program.body.at(-1);
  const edits: { start: number; end: number; text: string }[] = [];
  if (last?.type === 'ExpressionStatement') {
    const { start, end } = last.expression;
    edits.push({ start: last.start, end: last.end, text: `return (${code.slice(start, end)});` });
  }
  for (const node of imports) edits.push({ start: node.start, end: node.end, text: '' });
  let body = code;
  // Applied from the end backwards, so earlier offsets stay right.
  for (const edit of edits.sort((a, b) => b.start - a.start))
    body = body.slice(0, edit.start) + edit.text + body.slice(edit.end);
  const head = imports.map((node) => code.slice(node.start, node.end));
  return {
    ok: true,
    source: `${head.join('\n')}\nexport default async function run() {\n${body}\n}\n`,
  };
}
