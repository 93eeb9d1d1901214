import { parseArgs } from 'node:util';
import { describeCLibrary, diagnoseNativeUws, type UwsDiagnosis } from '@herald/realtime-server';

/** The default base of Herald's own container image (deploy/Dockerfile's NODE_IMAGE; a deploy test keeps them equal). */
export const DEFAULT_IMAGE = 'node:22-trixie-slim';

const IMAGE_NOTE =
  `Herald's container image (deploy/Dockerfile) is built on ${DEFAULT_IMAGE} by default, where the bundled ` +
  'build loads for Node 22 and 24.';

/** The check as a person reads it: this runtime, each candidate with its verdict, the outcome, the advice. */
export function formatDiagnosis(diagnosis: UwsDiagnosis): string {
  const { node } = diagnosis;
  const lines = [
    `Native transport check: Node ${node.version} (ABI ${node.abi}) on ${node.platform}-${node.arch}, ${describeCLibrary(diagnosis.libc)}`,
    '',
    'Native uWebSockets.js builds, in the order the server tries them:',
  ];
  for (const [index, candidate] of diagnosis.candidates.entries()) {
    const mark = candidate.verdict === 'loads' ? 'yes' : 'no ';
    lines.push(`  ${index + 1}. [${mark}] ${candidate.source ?? candidate.name}: ${candidate.reason}`);
  }
  lines.push('');
  if (diagnosis.loaded) {
    lines.push(
      `Result: \`realtime server\` runs the uws transport (native, from ${diagnosis.loaded}) here, ` +
        'unless the config sets "transport": "portable".',
    );
    return lines.join('\n');
  }
  lines.push(
    'Result: no native build loads here; `realtime server` runs the portable transport (node:http): ' +
      'every feature works, with less fan-out per core and more memory per connection.',
    '',
    'For native speed:',
    ...diagnosis.advice.map((line) => `  - ${line}`),
    `  ${IMAGE_NOTE}`,
  );
  return lines.join('\n');
}

/**
 * `realtime transport [--json] [--expect uws|portable]`: prints which native uWebSockets.js build loads on this
 * machine and why the others do not. With `--expect`, exits 1 when the server would run another transport, so an
 * image build can stop on a base where the native build does not load.
 */
export function transportCommand(
  argv: string[],
  fail: (lines: readonly string[], source: string) => never,
): void {
  const { values } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean' }, expect: { type: 'string' } },
    strict: true,
  });
  const expected = values.expect;
  if (expected !== undefined && expected !== 'uws' && expected !== 'portable')
    fail([`--expect: "${expected}" is not a transport (uws or portable)`], 'command line');
  const diagnosis = diagnoseNativeUws();
  console.log(values.json ? JSON.stringify(diagnosis, null, 2) : formatDiagnosis(diagnosis));
  const actual = diagnosis.loaded ? 'uws' : 'portable';
  if (expected && expected !== actual) {
    console.error(`realtime: expected the ${expected} transport, but this machine runs ${actual}`);
    process.exitCode = 1;
  }
}
