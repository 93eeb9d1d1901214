import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { type CLibrary, describeCLibrary, runtimeCLibrary } from './c-library.js';
import { compareVersions, type GlibcNeed, readGlibcNeeds } from './elf-glibc-needs.js';
import { describeAbi, isSupportedAbi } from './node-abi.js';
import { adviseNativeUws } from './uws-advice.js';
import {
  isNativeModule,
  type LocatedCandidate,
  loadBinary,
  locateCandidate,
  runtimeTarget,
  UWS_CANDIDATES,
} from './uws-loader.js';
import type { OtherNodeLine, UwsCandidateReport, UwsDiagnosis } from './uws-report.js';

/** The glibc versions a binary needs that this system's glibc is older than. */
function missingGlibc(binary: string, libc: CLibrary): GlibcNeed[] | undefined {
  if (libc.family !== 'glibc' || !libc.version) return undefined;
  const current = libc.version;
  const missing = readGlibcNeeds(binary)?.filter((need) => compareVersions(need.version, current) > 0);
  return missing && missing.length > 0 ? missing : undefined;
}

function listSymbols(needs: readonly GlibcNeed[]): string {
  const symbols = needs.flatMap((need) => need.symbols);
  const shown = symbols.slice(0, 5).join(', ');
  return symbols.length > 5 ? `${shown} and ${symbols.length - 5} more` : shown;
}

/** "uws_linux_x64_127.node needs glibc 2.38 (for …), and this system has glibc 2.36". */
function glibcShortfall(binary: string, missing: readonly GlibcNeed[], libc: CLibrary): string {
  const newest = missing[0]?.version ?? '?';
  return (
    `${basename(binary)} needs glibc ${newest} (for ${listSymbols(missing)}), ` +
    `and this system has ${describeCLibrary(libc)}`
  );
}

/** Why a build that exists for this Node did not load, told from the file and the loader's message. */
function explainFailure(binary: string, error: string, libc: CLibrary): Omit<UwsCandidateReport, 'name'> {
  const file = basename(binary);
  const missing = missingGlibc(binary, libc);
  if (missing) {
    return {
      verdict: 'libc_too_old',
      reason: `does not load: ${glibcShortfall(binary, missing, libc)}`,
      missing,
    };
  }
  if (libc.family === 'musl' && (readGlibcNeeds(binary)?.length ?? 0) > 0) {
    return {
      verdict: 'wrong_libc',
      reason: `does not load: ${file} is built for glibc, and this system's C library is musl (as on Alpine)`,
    };
  }
  // The dynamic loader usually names the file itself.
  const said = error.includes(file) ? error : `${file}: ${error}`;
  return { verdict: 'load_error', reason: `does not load: ${said}` };
}

function checkCandidate(
  located: LocatedCandidate,
  requireFrom: NodeJS.Require,
  context: { readonly libc: CLibrary; readonly earlier?: string },
): UwsCandidateReport {
  const { name } = located;
  if (!located.installed) return { name, verdict: 'not_installed', reason: 'not installed' };
  if ('problem' in located) return { name, verdict: 'load_error', reason: located.problem };
  const { source, abis, binary } = located;
  const { abi, platform, arch } = runtimeTarget();
  if (!binary) {
    const has = abis.length > 0 ? `; it has builds for ${abis.map(describeAbi).join(', ')}` : '';
    const reason = `has no build for ${describeAbi(abi)} on ${platform}-${arch}${has}`;
    return { name, source, verdict: 'no_build', reason, abis };
  }
  if (context.earlier) {
    // Loading a second uWebSockets.js build into one process is asking for trouble; the file still tells its needs.
    const missing = missingGlibc(binary, context.libc);
    const fits = missing ? `; ${glibcShortfall(binary, missing, context.libc)}` : '';
    const reason = `not tried: the server takes ${context.earlier} first${fits}`;
    return { name, source, verdict: 'not_tried', reason, abis };
  }
  const loaded = loadBinary(binary, requireFrom);
  if ('error' in loaded) return { name, source, abis, ...explainFailure(binary, loaded.error, context.libc) };
  if (!isNativeModule(loaded.module))
    return { name, source, abis, verdict: 'not_native', reason: `${basename(binary)} is not a native build` };
  return { name, source, abis, verdict: 'loads', reason: 'loads: the server runs this build (uws)' };
}

/** Builds for other Node lines that this machine's C library can run, read from the files (none is loaded). */
function otherNodeLines(located: readonly LocatedCandidate[], libc: CLibrary): OtherNodeLine[] {
  const { abi: current } = runtimeTarget();
  const lines = new Map<string, OtherNodeLine>();
  for (const candidate of located) {
    if (!candidate.installed || !('abis' in candidate)) continue;
    for (const abi of candidate.abis) {
      const binary = candidate.binaryFor(abi);
      if (abi === current || lines.has(abi) || !binary || !isSupportedAbi(abi)) continue;
      if (libc.family === 'musl' && (readGlibcNeeds(binary)?.length ?? 0) > 0) continue;
      if (missingGlibc(binary, libc) === undefined) lines.set(abi, { abi, source: candidate.source });
    }
  }
  return [...lines.values()].sort((a, b) => Number(a.abi) - Number(b.abi));
}

/**
 * Checks every native uWebSockets.js build the loader knows, in its order, on this Node, platform and C library:
 * which one the server runs, why each other one does not load (Node ABI, C library and version, the missing symbols
 * or file), and what to install or run for native speed. Loads at most one build, the one the server would.
 */
export function diagnoseNativeUws(
  candidates: readonly string[] = UWS_CANDIDATES,
  from: string = import.meta.url,
): UwsDiagnosis {
  const requireFrom = createRequire(from);
  const libc = runtimeCLibrary();
  const located = candidates.map((name) => locateCandidate(name, requireFrom));
  const reports: UwsCandidateReport[] = [];
  let loaded: string | undefined;
  for (const candidate of located) {
    const report = checkCandidate(candidate, requireFrom, { libc, earlier: loaded });
    if (report.verdict === 'loads') loaded = report.source;
    reports.push(report);
  }
  const { version } = process;
  const node = { version: version.replace(/^v/, ''), ...runtimeTarget() };
  const otherLines = loaded ? [] : otherNodeLines(located, libc);
  const advice = loaded ? [] : adviseNativeUws({ node, libc, candidates: reports, otherLines });
  return { node, libc, candidates: reports, loaded, otherLines, advice };
}
