import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';

export const EVENT_SCHEMA_DIR = join(PACKAGE_ROOT, 'schemas', 'events');

export function loadEventSchemas(): Record<string, unknown>[] {
  return readdirSync(EVENT_SCHEMA_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(join(EVENT_SCHEMA_DIR, file), 'utf8')) as Record<string, unknown>);
}
