import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readKeyFile, writeKeyFile } from './key-file.js';
import { generateSigner } from '../client/ed25519-signer.js';

describe('key file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seed-keyfile-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a key file others can read, saying how to fix it', async () => {
    const path = join(dir, 'key.json');
    writeKeyFile(path, await generateSigner(), { force: false });
    chmodSync(path, 0o644);
    await expect(readKeyFile(path)).rejects.toThrow(/is readable by others \(mode 644\); make it owner-only: chmod 600/);
  });

  it('never quotes the file in a parse error, since the file is the seed', async () => {
    const path = join(dir, 'key.json');
    writeFileSync(path, '{ "seed": c2VjcmV0LXNlZWQtYnl0ZXM, "principal": "z6Mk" }', { mode: 0o600 });
    const error = (await readKeyFile(path).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/is not JSON( \(error at character \d+\))?$/);
    expect(error.message).not.toContain('c2VjcmV0');
  });

  it('keeps the seed out of a logged or serialized signer', async () => {
    const signer = await generateSigner();
    expect(signer.seed).toHaveLength(32);
    expect(JSON.stringify(signer)).not.toContain(Buffer.from(signer.seed).toString('base64'));
    expect(Object.keys(signer)).not.toContain('seed');
  });
});
