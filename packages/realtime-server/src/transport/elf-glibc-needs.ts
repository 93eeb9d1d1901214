import { readFileSync } from 'node:fs';

/** One glibc symbol version a native binary asks for, and the symbols it asks for at that version. */
export interface GlibcNeed {
  /** `2.38` for `GLIBC_2.38`. */
  readonly version: string;
  readonly symbols: readonly string[];
}

const SHT_DYNSYM = 11;
const SHT_GNU_VERNEED = 0x6ffffffe;
const SHT_GNU_VERSYM = 0x6fffffff;

interface Section {
  readonly type: number;
  readonly offset: number;
  readonly size: number;
  readonly link: number;
  readonly info: number;
}

function cString(bytes: Buffer, at: number): string {
  const end = bytes.indexOf(0, at);
  return bytes.toString('latin1', at, end === -1 ? bytes.length : end);
}

function sections(bytes: Buffer): Section[] {
  const table = Number(bytes.readBigUInt64LE(0x28));
  const entrySize = bytes.readUInt16LE(0x3a);
  const count = bytes.readUInt16LE(0x3c);
  const found: Section[] = [];
  for (let index = 0; index < count; index++) {
    const at = table + index * entrySize;
    found.push({
      type: bytes.readUInt32LE(at + 4),
      offset: Number(bytes.readBigUInt64LE(at + 24)),
      size: Number(bytes.readBigUInt64LE(at + 32)),
      link: bytes.readUInt32LE(at + 40),
      info: bytes.readUInt32LE(at + 44),
    });
  }
  return found;
}

/** Version index → `GLIBC_x.y` name, from the binary's version-needed records (only glibc's are kept). */
function glibcVersionNames(bytes: Buffer, verneed: Section, strings: Section): Map<number, string> {
  const names = new Map<number, string>();
  let need = verneed.offset;
  for (let file = 0; file < verneed.info; file++) {
    const auxCount = bytes.readUInt16LE(need + 2);
    let aux = need + bytes.readUInt32LE(need + 8);
    for (let index = 0; index < auxCount; index++) {
      const name = cString(bytes, strings.offset + bytes.readUInt32LE(aux + 8));
      if (name.startsWith('GLIBC_2.')) names.set(bytes.readUInt16LE(aux + 6), name);
      aux += bytes.readUInt32LE(aux + 12);
    }
    const next = bytes.readUInt32LE(need + 12);
    if (next === 0) break;
    need += next;
  }
  return names;
}

/**
 * The glibc versions a 64-bit little-endian ELF binary (a Linux x64 or arm64 addon) needs, each with the undefined
 * symbols that need it, newest first. Read from the file itself, so a diagnosis can name the exact symbols a
 * system's glibc lacks without a dynamic loader's terse message. `undefined` for anything else (macOS, Windows,
 * 32-bit, unreadable).
 */
export function readGlibcNeeds(file: string): GlibcNeed[] | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  return glibcNeedsOf(bytes);
}

/** {@link readGlibcNeeds} on the bytes of a file. */
export function glibcNeedsOf(bytes: Buffer): GlibcNeed[] | undefined {
  // \x7fELF, 64-bit, little-endian: the only layout the bundled Linux builds use.
  if (bytes.length < 64 || bytes.readUInt32BE(0) !== 0x7f454c46 || bytes[4] !== 2 || bytes[5] !== 1)
    return undefined;
  try {
    const all = sections(bytes);
    const dynsym = all.find((section) => section.type === SHT_DYNSYM);
    const versym = all.find((section) => section.type === SHT_GNU_VERSYM);
    const verneed = all.find((section) => section.type === SHT_GNU_VERNEED);
    const strings = dynsym ? all[dynsym.link] : undefined;
    if (!dynsym || !versym || !verneed || !strings) return [];
    const names = glibcVersionNames(bytes, verneed, strings);
    const byVersion = new Map<string, string[]>();
    for (let index = 1; index < dynsym.size / 24; index++) {
      const symbol = dynsym.offset + index * 24;
      // Only undefined symbols (section index 0) are asked of the C library.
      if (bytes.readUInt16LE(symbol + 6) !== 0) continue;
      const name = names.get(bytes.readUInt16LE(versym.offset + index * 2) & 0x7fff);
      if (!name) continue;
      const version = name.slice('GLIBC_'.length);
      const symbols = byVersion.get(version) ?? [];
      symbols.push(cString(bytes, strings.offset + bytes.readUInt32LE(symbol)));
      byVersion.set(version, symbols);
    }
    return [...byVersion]
      .map(([version, symbols]) => ({ version, symbols: symbols.sort() }))
      .sort((a, b) => compareVersions(b.version, a.version));
  } catch {
    // A truncated or odd file: no answer rather than a wrong one.
    return undefined;
  }
}

/** Compares dotted versions numerically (`2.38` > `2.4`). */
export function compareVersions(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
