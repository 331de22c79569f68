import { loadConfig, type Config } from '../config/config.js';
import { EventLog } from '../events/event-log.js';
import { openEventStore } from '../events/store/open-event-store.js';
import { parsePosition, type Position } from '../events/store/position.js';
import { CliError } from './run-cli.js';

/** The configured store, wrapped for catalog-aware reads, for commands that run beside a server. */
export async function openLog(config: Config = loadConfig()): Promise<{ config: Config; log: EventLog; close(): Promise<void> }> {
  const store = await openEventStore(config);
  return { config, log: new EventLog(store), close: () => store.close() };
}

export function positionArg(flag: string, value: string): Position {
  try {
    return parsePosition(value);
  } catch (error) {
    throw new CliError(`${flag}: ${(error as Error).message}`);
  }
}

/** `--category session` means streams named `session-…`. */
export function categoryPrefixes(categories: string[] | undefined): string[] | undefined {
  return categories?.length ? categories.map((c) => (c.endsWith('-') ? c : `${c}-`)) : undefined;
}
