import { parseArgs } from 'node:util';
import { CID } from 'multiformats/cid';
import { AgentsClientError, AgentsTransportError, call as callServer } from '../../client/send-action.js';
import { principalFromString } from '../../protocol/principal.js';
import { keyFilePath, readKeyFile } from '../key-file.js';
import { CliError, type Command } from '../run-cli.js';

/**
 * `seed-agents call <Action> '<json>'`: signs the action with the key file and prints the server's
 * answer as one line of JSON. JSON has no bytes, so a field written `{"$bytes": "<base64>"}` is sent
 * as a byte string, and byte strings in the answer are printed the same way; CIDs print as strings.
 */
export const call: Command = {
  summary:
    'call <Action> [JSON] [--server URL] [--key-file F] [--account z6Mk…]  sign and send an action, print the answer ({"$bytes": "<base64>"} is bytes)',
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: { server: { type: 'string' }, 'key-file': { type: 'string' }, account: { type: 'string' } },
    });
    const [name, json = '{}', ...extra] = positionals;
    if (name === undefined || extra.length > 0) {
      throw new CliError(`call: expected <Action> and at most one JSON argument, got ${positionals.length} arguments`);
    }
    const action = { ...parseFields(json, name), _: name };
    const signer = await readKeyFile(keyFilePath(values['key-file']));
    const account = values.account === undefined ? signer.principal : accountArg(values.account);
    try {
      const answer = await callServer(serverUrl(values.server), { action, account, signer });
      process.stdout.write(`${JSON.stringify(printable(answer))}\n`);
      return 0;
    } catch (error) {
      if (error instanceof AgentsTransportError) {
        process.stderr.write(`seed-agents call ${name}: ${error.message}\n`);
        return 1;
      }
      if (!(error instanceof AgentsClientError)) throw error;
      const detail = error.code === undefined ? `HTTP ${error.status}` : `HTTP ${error.status}, ${error.code}`;
      process.stderr.write(`seed-agents call ${name}: ${error.message} (${detail})\n`);
      return 1;
    }
  },
};

export function serverUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag ?? (env.SEED_AGENTS_URL?.trim() || `http://127.0.0.1:${env.SEED_AGENTS_PORT?.trim() || '3050'}`);
}

function accountArg(text: string): Uint8Array {
  try {
    return principalFromString(text);
  } catch (error) {
    throw new CliError(`call: --account: ${(error as Error).message}`);
  }
}

function parseFields(json: string, name: string): Record<string, unknown> {
  let fields: unknown;
  try {
    fields = JSON.parse(json, reviveBytes);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new CliError(`call: the action fields are not valid JSON: ${error.message}`);
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    throw new CliError(`call: the action fields must be a JSON object, e.g. '{"agent": "…"}'`);
  }
  const given = (fields as Record<string, unknown>)._;
  if (given !== undefined && given !== name) {
    throw new CliError(`call: the JSON names the action "${String(given)}" but the first argument is "${name}"`);
  }
  return fields as Record<string, unknown>;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function reviveBytes(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== '$bytes') return value;
  const text = (value as { $bytes: unknown }).$bytes;
  if (typeof text !== 'string' || !BASE64.test(text)) {
    throw new CliError(`call: {"$bytes": …} needs a padded base64 string, got ${JSON.stringify(text)}`);
  }
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/** Walked before JSON.stringify because a CID's own toJSON would print it as {"/": …}. */
function printable(value: unknown): unknown {
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') };
  const cid = CID.asCID(value);
  if (cid) return cid.toString();
  if (Array.isArray(value)) return value.map(printable);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, printable(v)]));
  }
  return value;
}
