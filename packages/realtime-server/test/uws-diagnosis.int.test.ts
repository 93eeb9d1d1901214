import { describe, expect, it } from 'vitest';
import { diagnoseNativeUws, loadNativeUws } from '../src/index.js';

// The check behind `realtime transport`, against the builds installed here: it must name the same build the loader
// picks, and never load a second one.

const TRUFFLE = '@trufflesuite/uws-js-unofficial';
const BTC = '@btc-vision/uwebsockets.js';
const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header
  ?.glibcVersionRuntime;
const node20OnOldGlibc =
  process.versions.modules === '115' && glibc !== undefined && Number(glibc.split('.')[1]) < 38;

describe('diagnoseNativeUws', () => {
  it('says the build loads that the loader picks, and fails the ones the loader passed over', () => {
    const load = loadNativeUws();
    const diagnosis = diagnoseNativeUws();
    expect(diagnosis.loaded).toBe(load.ok ? load.uws.source : undefined);
    // The loader stops at the build that loads: the ones before it are its failed attempts. A later candidate may
    // still be reported as having no build for this Node (as @trufflesuite is for Node 22 where @btc-vision loads,
    // on glibc ≥ 2.38), which the loader never got to.
    const loadsAt = diagnosis.candidates.findIndex((candidate) => candidate.verdict === 'loads');
    const failed = loadsAt === -1 ? diagnosis.candidates : diagnosis.candidates.slice(0, loadsAt);
    expect(failed.map((candidate) => candidate.name)).toEqual(load.attempts.map((attempt) => attempt.name));
    expect(diagnosis.advice.length > 0).toBe(!load.ok);
  });

  it.runIf(node20OnOldGlibc)(
    'does not load a build after the one that loads, and still reads what that one needs',
    () => {
      const diagnosis = diagnoseNativeUws([TRUFFLE, BTC]);
      expect(diagnosis.candidates.map((candidate) => candidate.verdict)).toEqual(['loads', 'not_tried']);
      expect(diagnosis.candidates[1]?.reason).toBe(
        `not tried: the server takes ${TRUFFLE}@20.30.0-unofficial.0 first; uws_linux_x64_115.node needs ` +
          `glibc 2.38 (for __isoc23_sscanf, __isoc23_strtol, __isoc23_strtoul), and this system has glibc ${glibc}`,
      );
    },
  );

  it('reports a package that is not installed, and advises an official build when nothing loads', () => {
    const diagnosis = diagnoseNativeUws(['uWebSockets.js-not-a-package']);
    expect(diagnosis.candidates).toEqual([
      { name: 'uWebSockets.js-not-a-package', verdict: 'not_installed', reason: 'not installed' },
    ]);
    expect(diagnosis.loaded).toBeUndefined();
    expect(diagnosis.advice.at(-1)).toContain('Or install an official uWebSockets.js build');
  });
});
