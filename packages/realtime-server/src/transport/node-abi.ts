/**
 * Node's module ABI versions (`process.versions.modules`) and the release lines that use them, for messages a
 * person reads: "a build for Node 22" says more than "ABI 127". An ABI missing here is shown as a number.
 */
const NODE_LINES: Readonly<Record<string, string>> = {
  '93': '16',
  '108': '18',
  '115': '20',
  '120': '21',
  '127': '22',
  '131': '23',
  '137': '24',
  '141': '25',
};

/** `Node 22 (ABI 127)`, or `Node ABI 999` for an ABI this table does not know. */
export function describeAbi(abi: string): string {
  const line = NODE_LINES[abi];
  return line ? `Node ${line} (ABI ${abi})` : `Node ABI ${abi}`;
}

/** The Node release line (`22`) of an ABI, when known. */
export function nodeLineOfAbi(abi: string): string | undefined {
  return NODE_LINES[abi];
}

/** The oldest Node line Herald runs on (its `engines`): builds for older lines are not worth suggesting. */
const OLDEST_SUPPORTED_LINE = 20;

/** True when the ABI belongs to a Node line Herald supports. */
export function isSupportedAbi(abi: string): boolean {
  return Number(NODE_LINES[abi] ?? 0) >= OLDEST_SUPPORTED_LINE;
}
