import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

/**
 * The app's environment as it would see it: `.env`, `.env.local`, `.env.{mode}`, `.env.{mode}.local`
 * (later files win), then the variables already set in `base`, which win as dotenv lets them.
 */
export function readAppEnv(
  root: string,
  base: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const mode = base.NODE_ENV ?? 'development';
  const merged: Record<string, string> = {};
  for (const name of ['.env', '.env.local', `.env.${mode}`, `.env.${mode}.local`]) {
    const path = join(root, name);
    if (!existsSync(path)) continue;
    for (const [key, value] of Object.entries(parseEnv(readFileSync(path, 'utf8')))) {
      if (value !== undefined) merged[key] = value;
    }
  }
  for (const [key, value] of Object.entries(base)) if (value !== undefined) merged[key] = value;
  return merged;
}

/** The names of the variables the app's `.env` files define (not the inherited process ones). */
export function envFileKeys(root: string): Set<string> {
  return new Set(Object.keys(readAppEnv(root, {})));
}
