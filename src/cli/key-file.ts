/**
 * The signing key the CLI uses for `call`: a JSON file `{ "seed": "<base64>", "principal": "z6Mk…" }`.
 * The principal is stored beside the seed so `keys show` and a reader of the file can tell which key it
 * is; on load it must match the seed, which catches a file edited by hand.
 */
import { closeSync, fchmodSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ed25519Signer, type Ed25519Signer } from '../client/ed25519-signer.js';
import { principalToString } from '../protocol/principal.js';
import { CliError } from './run-cli.js';

interface KeyFileContents {
  seed: string;
  principal: string;
}

export function keyFilePath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag ?? (env.SEED_AGENTS_KEY_FILE?.trim() || join(homedir(), '.config', 'seed-agents', 'key.json')));
}

/** Writes the key owner-only; refuses to replace an existing file unless `force`, since that loses a key. */
export function writeKeyFile(path: string, signer: Ed25519Signer, { force }: { force: boolean }): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const contents: KeyFileContents = {
    seed: Buffer.from(signer.seed).toString('base64'),
    principal: principalToString(signer.principal),
  };
  let fd: number;
  try {
    fd = openSync(path, force ? 'w' : 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new CliError(`key file ${path} already exists; pass --force to replace it (the old key is lost)`);
    }
    throw error;
  }
  try {
    // The open mode applies only to a new file and is narrowed by the umask: set it on the one being replaced too.
    fchmodSync(fd, 0o600);
    writeSync(fd, `${JSON.stringify(contents, null, 2)}\n`);
  } finally {
    closeSync(fd);
  }
}

export async function readKeyFile(path: string): Promise<Ed25519Signer> {
  let text: string;
  try {
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o077) {
      throw new CliError(
        `key file ${path} is readable by others (mode ${mode.toString(8)}); make it owner-only: chmod 600 ${path}`,
      );
    }
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new CliError(`no key file at ${path}; create one with: seed-agents keys new`);
    }
    throw error;
  }
  const contents = parse(path, text);
  const seed = Buffer.from(contents.seed, 'base64');
  if (seed.length !== 32 || seed.toString('base64') !== contents.seed) {
    throw new CliError(`key file ${path}: "seed" must be 32 bytes in padded base64`);
  }
  const signer = await ed25519Signer(seed);
  const principal = principalToString(signer.principal);
  if (principal !== contents.principal) {
    throw new CliError(`key file ${path}: its seed is the key of ${principal}, not of the "principal" ${contents.principal}`);
  }
  return signer;
}

function parse(path: string, text: string): KeyFileContents {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Not the parser's message: it quotes the text around the error, which is the seed.
    const at = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new CliError(`key file ${path} is not JSON${at === undefined ? '' : ` (error at character ${at})`}`);
  }
  const { seed, principal } = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof seed !== 'string' || typeof principal !== 'string') {
    throw new CliError(`key file ${path} must be {"seed": "<base64>", "principal": "z6Mk…"}`);
  }
  return { seed, principal };
}
