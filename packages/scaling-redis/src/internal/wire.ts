import type { ClusterMessage } from '@herald/protocol-core';

// A broadcast is a small JSON header, a newline, then the frame exactly as the server encoded it: the frame is
// never parsed or re-encoded on the way. The header's JSON escapes any newline, so the first one ends it.
//   [1, "d", nodeId, appId, channel, excludeSocketId]\n<frame>
//   [1, "t", nodeId, appId, userId]\n
//   [1, "r", nodeId]\n
//   [1, "c", nodeId, appId, channel]\n
//   [1, "u", nodeId, appId, userId, "1" | "0"]\n
//   [1, "w", nodeId, appId]\n                      (a console watches the app: send its debug records)
//   [1, "g", nodeId, appId]\n<debug record JSON>
const VERSION = 1;

/** A message from another node, with the id of the node that sent it. */
export interface WireMessage {
  readonly nodeId: string;
  readonly message: ClusterMessage;
}

/** Encodes a cluster message for the broadcast channel. */
export function encodeWireMessage(nodeId: string, message: ClusterMessage): string {
  switch (message.type) {
    case 'deliver': {
      const { appId, channel, frame, excludeSocketId } = message.delivery;
      return `${JSON.stringify([VERSION, 'd', nodeId, appId, channel, excludeSocketId ?? ''])}\n${frame}`;
    }
    case 'terminate':
      return `${JSON.stringify([VERSION, 't', nodeId, message.appId, message.userId])}\n`;
    case 'restart':
      return `${JSON.stringify([VERSION, 'r', nodeId])}\n`;
    case 'count':
      return `${JSON.stringify([VERSION, 'c', nodeId, message.appId, message.channel])}\n`;
    case 'user':
      return `${JSON.stringify([VERSION, 'u', nodeId, message.appId, message.userId, message.online ? '1' : '0'])}\n`;
    case 'debug_watch':
      return `${JSON.stringify([VERSION, 'w', nodeId, message.appId])}\n`;
    case 'debug':
      return `${JSON.stringify([VERSION, 'g', nodeId, message.appId])}\n${message.record}`;
  }
}

const isStrings = (values: unknown[]): values is string[] =>
  values.every((value) => typeof value === 'string');

/** Decodes a message of the broadcast channel; undefined when it is not one (another version, another sender). */
export function decodeWireMessage(raw: string): WireMessage | undefined {
  const end = raw.indexOf('\n');
  if (end < 0) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(raw.slice(0, end));
  } catch {
    return undefined; // Not ours: a foreign publisher on the same channel; the caller counts and logs it.
  }
  if (!Array.isArray(header) || header[0] !== VERSION) return undefined;
  const fields = header.slice(1);
  if (!isStrings(fields)) return undefined;
  const [type, nodeId, a, b, c] = fields;
  if (nodeId === undefined) return undefined;
  if (type === 'd' && a !== undefined && b !== undefined && c !== undefined) {
    const delivery = { appId: a, channel: b, frame: raw.slice(end + 1) };
    return {
      nodeId,
      message: { type: 'deliver', delivery: c === '' ? delivery : { ...delivery, excludeSocketId: c } },
    };
  }
  if (type === 't' && a !== undefined && b !== undefined) {
    return { nodeId, message: { type: 'terminate', appId: a, userId: b } };
  }
  if (type === 'r') return { nodeId, message: { type: 'restart' } };
  if (type === 'u' && a !== undefined && b !== undefined && (c === '1' || c === '0')) {
    return { nodeId, message: { type: 'user', appId: a, userId: b, online: c === '1' } };
  }
  if (type === 'w' && a !== undefined) return { nodeId, message: { type: 'debug_watch', appId: a } };
  if (type === 'g' && a !== undefined) {
    return { nodeId, message: { type: 'debug', appId: a, record: raw.slice(end + 1) } };
  }
  if (type === 'c' && a !== undefined && b !== undefined) {
    return { nodeId, message: { type: 'count', appId: a, channel: b } };
  }
  return undefined;
}
