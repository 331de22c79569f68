/** `npm run docs:events`: regenerates docs/events.md from the event catalog. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_CATALOG } from './catalog.js';
import { renderCatalogDoc } from './catalog-doc.js';
import { PACKAGE_ROOT } from '../../package-root.js';

const target = join(PACKAGE_ROOT, 'docs', 'events.md');
writeFileSync(target, renderCatalogDoc(EVENT_CATALOG));
process.stdout.write(`wrote ${target}\n`);
