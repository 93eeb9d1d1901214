import { describe, expect, it } from 'vitest';
import { compareVersions, glibcNeedsOf } from './elf-glibc-needs.js';

interface Symbol {
  readonly name: string;
  /** A version this binary needs from libc.so.6, or undefined for a symbol it defines itself. */
  readonly needs?: string;
}

/**
 * A minimal 64-bit little-endian ELF with just what the reader walks: a section table holding a string table, a
 * dynamic symbol table, its version indexes and one version-needed record for libc.so.6.
 */
function elf(symbols: readonly Symbol[]): Buffer {
  const versions = [...new Set(symbols.flatMap((symbol) => (symbol.needs ? [symbol.needs] : [])))];
  let strings = '\0';
  const offsetOf = (text: string) => {
    const at = strings.length;
    strings += `${text}\0`;
    return at;
  };
  const library = offsetOf('libc.so.6');
  const versionNames = versions.map((version) => offsetOf(version));
  const symbolNames = symbols.map((symbol) => offsetOf(symbol.name));
  const dynstr = Buffer.from(strings, 'latin1');
  const dynsym = Buffer.alloc(24 * (symbols.length + 1));
  const versym = Buffer.alloc(2 * (symbols.length + 1));
  symbols.forEach((symbol, index) => {
    const at = 24 * (index + 1);
    dynsym.writeUInt32LE(symbolNames[index] as number, at);
    // Defined symbols carry a section index; undefined ones 0.
    dynsym.writeUInt16LE(symbol.needs ? 0 : 9, at + 6);
    versym.writeUInt16LE(symbol.needs ? versions.indexOf(symbol.needs) + 2 : 1, 2 * (index + 1));
  });
  const verneed = Buffer.alloc(16 + 16 * versions.length);
  verneed.writeUInt16LE(1, 0);
  verneed.writeUInt16LE(versions.length, 2);
  verneed.writeUInt32LE(library, 4);
  verneed.writeUInt32LE(16, 8);
  versions.forEach((_, index) => {
    const at = 16 + 16 * index;
    verneed.writeUInt16LE(index + 2, at + 6);
    verneed.writeUInt32LE(versionNames[index] as number, at + 8);
    verneed.writeUInt32LE(index + 1 < versions.length ? 16 : 0, at + 12);
  });
  // Sections: 0 null, 1 .dynstr, 2 .dynsym (link 1), 3 .gnu.version, 4 .gnu.version_r (link 1, one record).
  const bodies = [dynstr, dynsym, versym, verneed];
  const header = Buffer.alloc(64);
  let offset = 64;
  const placed = bodies.map((body) => {
    const at = offset;
    offset += body.length;
    return at;
  });
  const table = Buffer.alloc(64 * 5);
  const section = (index: number, type: number, link: number, info: number) => {
    const at = 64 * index;
    table.writeUInt32LE(type, at + 4);
    table.writeBigUInt64LE(BigInt(placed[index - 1] as number), at + 24);
    table.writeBigUInt64LE(BigInt((bodies[index - 1] as Buffer).length), at + 32);
    table.writeUInt32LE(link, at + 40);
    table.writeUInt32LE(info, at + 44);
  };
  section(1, 3, 0, 0);
  section(2, 11, 1, 1);
  section(3, 0x6fffffff, 2, 0);
  section(4, 0x6ffffffe, 1, 1);
  header.writeUInt32BE(0x7f454c46, 0);
  header[4] = 2;
  header[5] = 1;
  header.writeBigUInt64LE(BigInt(offset), 0x28);
  header.writeUInt16LE(64, 0x3a);
  header.writeUInt16LE(5, 0x3c);
  return Buffer.concat([header, ...bodies, table]);
}

describe('glibcNeedsOf', () => {
  it('groups the undefined symbols by the glibc version they need, newest first', () => {
    const binary = elf([
      { name: '__isoc23_strtol', needs: 'GLIBC_2.38' },
      { name: 'memcpy', needs: 'GLIBC_2.14' },
      { name: '__isoc23_sscanf', needs: 'GLIBC_2.38' },
      { name: 'arc4random', needs: 'GLIBC_2.36' },
      { name: 'us_create_loop' },
    ]);
    expect(glibcNeedsOf(binary)).toEqual([
      { version: '2.38', symbols: ['__isoc23_sscanf', '__isoc23_strtol'] },
      { version: '2.36', symbols: ['arc4random'] },
      { version: '2.14', symbols: ['memcpy'] },
    ]);
  });

  it('answers nothing for a file that is not a 64-bit little-endian ELF', () => {
    expect(glibcNeedsOf(Buffer.from('not a shared object\n'))).toBeUndefined();
    const thirtyTwoBit = elf([]);
    thirtyTwoBit[4] = 1;
    expect(glibcNeedsOf(thirtyTwoBit)).toBeUndefined();
  });

  it('answers nothing rather than a wrong list for a truncated file', () => {
    const binary = elf([{ name: 'memcpy', needs: 'GLIBC_2.14' }]);
    expect(glibcNeedsOf(binary.subarray(0, 80))).toBeUndefined();
  });
});

describe('compareVersions', () => {
  it('compares dotted versions as numbers', () => {
    expect(compareVersions('2.38', '2.4')).toBeGreaterThan(0);
    expect(compareVersions('2.36', '2.38')).toBeLessThan(0);
    expect(compareVersions('2.3.4', '2.3')).toBeGreaterThan(0);
    expect(compareVersions('2.38', '2.38')).toBe(0);
  });
});
