import { describe, expect, it } from 'vitest';
import { adviseNativeUws } from './uws-advice.js';
import type { UwsCandidateReport } from './uws-report.js';

const node = { version: '22.23.3', abi: '127', platform: 'linux', arch: 'x64' };
const official: UwsCandidateReport = {
  name: 'uWebSockets.js',
  verdict: 'not_installed',
  reason: 'not installed',
};
const bundled = (report: Omit<UwsCandidateReport, 'name' | 'source'>): UwsCandidateReport => ({
  name: '@btc-vision/uwebsockets.js',
  source: '@btc-vision/uwebsockets.js@20.57.0',
  ...report,
});

describe('adviseNativeUws', () => {
  it('names the glibc a bundled build needs, with distributions and an image that have it', () => {
    const advice = adviseNativeUws({
      node,
      libc: { family: 'glibc', version: '2.36' },
      candidates: [
        official,
        bundled({
          verdict: 'libc_too_old',
          reason: '…',
          missing: [{ version: '2.38', symbols: ['__isoc23_sscanf'] }],
        }),
      ],
      otherLines: [{ abi: '115', source: '@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0' }],
    });
    expect(advice).toEqual([
      'Run on glibc ≥ 2.38 (Debian 13 "trixie", Ubuntu 24.04, Fedora 39 or newer; as a container, ' +
        '`node:22-trixie-slim`), which the bundled @btc-vision/uwebsockets.js@20.57.0 build for Node 22 needs; ' +
        'this system has glibc 2.36.',
      'Or run Node 20 (ABI 115) here: @trufflesuite/uws-js-unofficial@20.30.0-unofficial.0 has a build for it ' +
        'whose glibc needs this system meets.',
      expect.stringContaining('Or install an official uWebSockets.js build for Node 22'),
    ]);
  });

  it('names no distribution for a glibc newer than Debian 13 has', () => {
    const [first] = adviseNativeUws({
      node,
      libc: { family: 'glibc', version: '2.36' },
      candidates: [
        bundled({ verdict: 'libc_too_old', reason: '…', missing: [{ version: '2.45', symbols: ['x'] }] }),
      ],
      otherLines: [],
    });
    expect(first).toMatch(/^Run on glibc ≥ 2\.45, which the bundled/);
  });

  it('sends musl systems to a glibc image rather than Alpine', () => {
    const advice = adviseNativeUws({
      node,
      libc: { family: 'musl' },
      candidates: [official, bundled({ verdict: 'wrong_libc', reason: '…' })],
      otherLines: [],
    });
    expect(advice[0]).toBe(
      'Run on a glibc system instead of musl: as a container, `node:22-trixie-slim` rather than ' +
        '`node:22-alpine`; the bundled builds are built for glibc.',
    );
    expect(advice).toHaveLength(2);
  });

  it('always ends with the official build to install under its own name', () => {
    const advice = adviseNativeUws({
      node: { ...node, arch: 'riscv64' },
      libc: { family: 'glibc', version: '2.41' },
      candidates: [official, bundled({ verdict: 'no_build', reason: '…' })],
      otherLines: [],
    });
    expect(advice).toEqual([
      'Or install an official uWebSockets.js build for Node 22 under the name `uWebSockets.js` next to Herald ' +
        '(`npm install uWebSockets.js@github:uNetworking/uWebSockets.js#v20.57.0`); the loader tries it first, ' +
        'and this check tells whether it loads.',
    ]);
  });
});
