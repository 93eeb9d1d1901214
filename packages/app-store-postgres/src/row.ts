// Kept apart from connection.ts so the public declarations (queries, rotation results) never import pg's types: a
// consumer of this package needs no @types/pg.

/** A table row as `pg` returns it. */
export type Row = Record<string, unknown>;
