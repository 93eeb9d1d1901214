// The hash slot of a key or sharded channel, as a Redis Cluster computes it: CRC16 (XMODEM) of the hash tag (the
// text between the first '{' and the next '}', when not empty) or of the whole name, modulo 16384. Used to group
// channels into commands a cluster accepts (every channel of an SSUBSCRIBE/SUNSUBSCRIBE in one slot).

const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ (TABLE[((crc >> 8) ^ byte) & 0xff] ?? 0);
  return crc;
}

/** The cluster slot (0–16383) of a key or sharded channel name. */
export function hashSlot(name: string): number {
  const open = name.indexOf('{');
  if (open >= 0) {
    const close = name.indexOf('}', open + 1);
    if (close > open + 1) name = name.slice(open + 1, close);
  }
  return crc16(Buffer.from(name)) % 16384;
}
