import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_CATALOG } from './catalog.js';
import { renderCatalogDoc } from './catalog-doc.js';
import { PACKAGE_ROOT } from '../../package-root.js';

describe('docs/events.md', () => {
  it('is exactly what the catalog generates (run `npm run docs:events` after changing an event)', () => {
    const committed = readFileSync(join(PACKAGE_ROOT, 'docs', 'events.md'), 'utf8');
    expect(committed).toBe(renderCatalogDoc(EVENT_CATALOG));
  });

  it('documents every event type with its fields', () => {
    const doc = renderCatalogDoc(EVENT_CATALOG);
    for (const type of EVENT_CATALOG.types()) expect(doc).toContain(`### ${type}`);
    expect(doc).toContain('| `toolCallId` | string | yes |');
    expect(doc).toContain('| `actor` | `"user"` \\| `"agent"` \\| `"system"` \\| `"trigger"` | yes | Who performed the action |');
  });
});
