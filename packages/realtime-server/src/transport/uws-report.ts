import type { CLibrary } from './c-library.js';
import type { GlibcNeed } from './elf-glibc-needs.js';

/** What became of one candidate on this machine. */
export type UwsVerdict =
  | 'loads'
  | 'not_installed'
  | 'no_build'
  | 'libc_too_old'
  | 'wrong_libc'
  | 'load_error'
  | 'not_native'
  | 'not_tried';

/** One candidate build, checked on this machine, with its reason in plain words. */
export interface UwsCandidateReport {
  readonly name: string;
  /** `name@version` when installed. */
  readonly source?: string;
  readonly verdict: UwsVerdict;
  /** Why, for a person: "uws_linux_x64_127.node needs glibc 2.38 (for …), and this system has glibc 2.36". */
  readonly reason: string;
  /** The glibc versions this system lacks, with the symbols that need them (`libc_too_old` only). */
  readonly missing?: readonly GlibcNeed[];
  /** The Node ABIs the package has builds for on this platform and CPU. */
  readonly abis?: readonly string[];
}

/** Another Node line on which an installed build's glibc needs are met here (read from the file, not loaded). */
export interface OtherNodeLine {
  readonly abi: string;
  readonly source: string;
}

/** The whole check: this runtime, every candidate in the loader's order, and what to do for native speed. */
export interface UwsDiagnosis {
  readonly node: {
    readonly version: string;
    readonly abi: string;
    readonly platform: string;
    readonly arch: string;
  };
  readonly libc: CLibrary;
  readonly candidates: readonly UwsCandidateReport[];
  /** The build the server runs (`name@version`), when one loads. */
  readonly loaded?: string;
  /** Other Node lines whose bundled build would suit this machine's C library. */
  readonly otherLines: readonly OtherNodeLine[];
  /** What to install or run for native speed; empty when a build loads. */
  readonly advice: readonly string[];
}
