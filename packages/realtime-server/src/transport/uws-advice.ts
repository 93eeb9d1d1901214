import { describeCLibrary } from './c-library.js';
import { compareVersions } from './elf-glibc-needs.js';
import { describeAbi } from './node-abi.js';
import type { UwsDiagnosis } from './uws-report.js';

/** The glibc of Debian 13 "trixie", the base the official Node images call `-trixie`. */
const TRIXIE_GLIBC = '2.41';

/** The official uWebSockets.js build to install under its own name (the loader tries it first). */
export const OFFICIAL_UWS_INSTALL = 'npm install uWebSockets.js@github:uNetworking/uWebSockets.js#v20.57.0';

/**
 * What to install or run for native speed, derived from what failed: a newer glibc (with an image that has it),
 * a glibc image instead of musl, another Node line whose bundled build suits this machine, an official build.
 */
export function adviseNativeUws(diagnosis: Omit<UwsDiagnosis, 'advice' | 'loaded'>): string[] {
  const { node, libc, candidates, otherLines } = diagnosis;
  const major = node.version.split('.')[0] ?? node.version;
  const advice: string[] = [];
  const tooOld = candidates.filter((candidate) => candidate.verdict === 'libc_too_old');
  const wanted = tooOld
    .flatMap((candidate) => candidate.missing ?? [])
    .map((need) => need.version)
    .sort(compareVersions)
    .at(-1);
  if (wanted) {
    const where =
      compareVersions(wanted, TRIXIE_GLIBC) <= 0
        ? ` (Debian 13 "trixie", Ubuntu 24.04, Fedora 39 or newer; as a container, \`node:${major}-trixie-slim\`)`
        : '';
    const builds = tooOld.map((candidate) => candidate.source ?? candidate.name).join(' and ');
    advice.push(
      `Run on glibc ≥ ${wanted}${where}, which the bundled ${builds} build for Node ${major} needs; ` +
        `this system has ${describeCLibrary(libc)}.`,
    );
  }
  if (candidates.some((candidate) => candidate.verdict === 'wrong_libc')) {
    advice.push(
      `Run on a glibc system instead of musl: as a container, \`node:${major}-trixie-slim\` rather than ` +
        `\`node:${major}-alpine\`; the bundled builds are built for glibc.`,
    );
  }
  for (const line of otherLines) {
    advice.push(
      `Or run ${describeAbi(line.abi)} here: ${line.source} has a build for it whose glibc needs this system meets.`,
    );
  }
  advice.push(
    `Or install an official uWebSockets.js build for Node ${major} under the name \`uWebSockets.js\` next to ` +
      `Herald (\`${OFFICIAL_UWS_INSTALL}\`); the loader tries it first, and this check tells whether it loads.`,
  );
  return advice;
}
