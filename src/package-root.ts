import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root, found from this file whether it runs from src/ (tests) or dist/src/ (built). */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('Cannot find the package root (no package.json above this file)');
    dir = parent;
  }
  return dir;
}

export const PACKAGE_ROOT = findPackageRoot();

/**
 * The compiled JavaScript beside a module, for code that must start a worker thread: a worker runs
 * plain JavaScript, so when the caller itself runs from TypeScript sources (the tests), this points
 * into dist/ (which the test setup builds).
 */
export function compiledModule(callerUrl: string, file: string): URL {
  const callerPath = fileURLToPath(callerUrl);
  const beside = join(dirname(callerPath), file);
  // pathToFileURL, not `file://${path}`: an install path with `#` or `%` must still resolve.
  if (!callerPath.endsWith('.ts')) return pathToFileURL(beside);
  return pathToFileURL(join(PACKAGE_ROOT, 'dist', relative(PACKAGE_ROOT, beside)));
}
