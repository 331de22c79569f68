import { parseArgs } from 'node:util';
import { generateSigner } from '../../client/ed25519-signer.js';
import { principalToString } from '../../protocol/principal.js';
import { keyFilePath, readKeyFile, writeKeyFile } from '../key-file.js';
import { CliError, type Command } from '../run-cli.js';

export const keys: Command = {
  summary: 'keys new [--key-file F] [--force] | keys show [--key-file F]  create or show the key `call` signs with',
  async run(args) {
    const [sub, ...rest] = args;
    if (sub === 'new') {
      const { values } = parseArgs({
        args: rest,
        strict: true,
        options: { 'key-file': { type: 'string' }, force: { type: 'boolean', default: false } },
      });
      const path = keyFilePath(values['key-file']);
      const signer = await generateSigner();
      writeKeyFile(path, signer, { force: values.force });
      process.stderr.write(`wrote a new key to ${path}\n`);
      process.stdout.write(`${principalToString(signer.principal)}\n`);
      return 0;
    }
    if (sub === 'show') {
      const { values } = parseArgs({ args: rest, strict: true, options: { 'key-file': { type: 'string' } } });
      const signer = await readKeyFile(keyFilePath(values['key-file']));
      process.stdout.write(`${principalToString(signer.principal)}\n`);
      return 0;
    }
    throw new CliError(`keys: expected "new" or "show", got ${sub === undefined ? 'nothing' : `"${sub}"`}`);
  },
};
