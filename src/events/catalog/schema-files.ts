import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, found from this file whether it runs from src/ (tests) or dist/src/ (built). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('Cannot find the package root (no package.json above this file)');
    dir = parent;
  }
  return dir;
}

export const PACKAGE_ROOT = packageRoot();
export const EVENT_SCHEMA_DIR = join(PACKAGE_ROOT, 'schemas', 'events');

export function loadEventSchemas(): Record<string, unknown>[] {
  return readdirSync(EVENT_SCHEMA_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(join(EVENT_SCHEMA_DIR, file), 'utf8')) as Record<string, unknown>);
}
