/**
 * A count kept per node together with its total across the cluster (connections of an app, subscribers of a
 * channel): each node writes only its own share, and the total is kept as the shares change instead of summed on
 * every read.
 */
export class NodeTally {
  #total = 0;
  readonly #byNode = new Map<string, number>();

  /** The count across every node. */
  get total(): number {
    return this.#total;
  }

  /** Whether no node holds a share. */
  get empty(): boolean {
    return this.#byNode.size === 0;
  }

  /** One node's share. */
  of(nodeId: string): number {
    return this.#byNode.get(nodeId) ?? 0;
  }

  /** Sets one node's share (0 removes it); returns the total before. */
  set(nodeId: string, count: number): number {
    const before = this.#total;
    this.#total += count - (this.#byNode.get(nodeId) ?? 0);
    if (count > 0) this.#byNode.set(nodeId, count);
    else this.#byNode.delete(nodeId);
    return before;
  }
}
