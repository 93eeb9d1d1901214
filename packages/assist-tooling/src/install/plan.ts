import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createTwoFilesPatch } from 'diff';

/** One file `assist` would create, change or delete; `null` means absent. */
export interface FileChange {
  /** Path relative to the project root, with `/` separators. */
  path: string;
  before: string | null;
  after: string | null;
}

function readText(file: string): string | null {
  return existsSync(file) && statSync(file).isFile() ? readFileSync(file, 'utf8') : null;
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/**
 * The files a run wants, gathered before anything is written, so the same run can be shown as a diff
 * (`--dry-run`) or applied; reads see earlier planned writes, so agents sharing a file agree on it.
 */
export class Plan {
  readonly root: string;
  readonly #after = new Map<string, string | null>();

  constructor(root: string) {
    this.root = root;
  }

  /** The planned content of a file, else what is on disk, else null. */
  read(path: string): string | null {
    return this.#after.has(path) ? (this.#after.get(path) ?? null) : readText(join(this.root, path));
  }

  write(path: string, content: string): void {
    this.#after.set(path, content);
  }

  remove(path: string): void {
    this.#after.set(path, null);
  }

  /** Makes a folder hold exactly the given files: others already on disk there are deleted. */
  mirror(dir: string, files: ReadonlyMap<string, string>): void {
    for (const file of filesUnder(join(this.root, dir))) {
      const rel = relative(this.root, file).split('\\').join('/');
      if (!this.#after.has(rel)) this.remove(rel);
    }
    for (const [rel, content] of files) this.write(`${dir}/${rel}`, content);
  }

  /** Deletes every file under a folder (unless planned otherwise). */
  removeDir(dir: string): void {
    this.mirror(dir, new Map());
  }

  /** The planned changes that differ from the disk, sorted by path. */
  changes(): FileChange[] {
    const out: FileChange[] = [];
    for (const [path, after] of this.#after) {
      const before = readText(join(this.root, path));
      if (before !== after) out.push({ path, before, after });
    }
    return out.sort((a, b) => a.path.localeCompare(b.path));
  }
}

/** Renders changes as one unified diff, as `--dry-run` prints it. */
export function renderDiff(changes: readonly FileChange[]): string {
  return changes
    .map((change) =>
      createTwoFilesPatch(
        change.before === null ? '/dev/null' : `a/${change.path}`,
        change.after === null ? '/dev/null' : `b/${change.path}`,
        change.before ?? '',
        change.after ?? '',
        undefined,
        undefined,
        { context: 3 },
      ).replace(/^={10,}\n/, ''),
    )
    .join('');
}

/** Writes the changes to disk; deleting a file also removes the folders it leaves empty. */
export function applyChanges(root: string, changes: readonly FileChange[]): void {
  for (const change of changes) {
    const file = join(root, change.path);
    if (change.after === null) {
      rmSync(file, { force: true });
      let dir = dirname(file);
      while (dir !== root && dir.startsWith(root) && existsSync(dir) && readdirSync(dir).length === 0) {
        rmdirSync(dir);
        dir = dirname(dir);
      }
    } else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, change.after);
    }
  }
}
