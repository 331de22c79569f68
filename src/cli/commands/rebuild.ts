import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureDataDir } from '../../config/config.js';
import { lockDataDir } from '../../projections/data-dir-lock.js';
import { ProjectionService } from '../../projections/projection-service.js';
import { READ_MODELS_FILE, ReadModelDb } from '../../projections/read-model-db.js';
import { PROJECTIONS } from '../../projections/registry.js';
import { openLog } from '../open-log.js';
import { ProgressBar } from '../progress-bar.js';
import { CliError, type Command } from '../run-cli.js';

export const rebuild: Command = {
  summary: 'rebuild [name…]  rebuild projections from the start of the log (all when none named; server stopped)',
  async run(args) {
    const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
    const known = PROJECTIONS.map((p) => p.name);
    const names = positionals.length ? positionals : known;
    const unknown = names.filter((n) => !known.includes(n));
    if (unknown.length) throw new CliError(`unknown projection ${unknown.join(', ')}; projections are: ${known.join(', ')}`);

    const { config, log, close } = await openLog();
    const lock = lockDataDir(ensureDataDir(config), 'seed-agents rebuild');
    const readModels = new ReadModelDb(join(config.dataDir, READ_MODELS_FILE));
    const service = new ProjectionService(log, readModels, PROJECTIONS, { log: () => {}, error: console.error });
    try {
      const head = await log.store.headPosition();
      for (const name of names) {
        const bar = new ProgressBar(name);
        let processed = 0;
        const stop = service.onProgress((p) => {
          if (p.name !== name) return;
          processed = p.processed;
          const done = head && p.checkpoint ? Number(p.checkpoint.commit) / Number(head.commit) : 0;
          bar.update(processed, done);
        });
        await service.rebuild(name);
        stop();
        const { seconds, rate } = bar.finish(processed);
        process.stdout.write(
          `${name}: rebuilt from ${processed.toLocaleString('en-US')} events in ${seconds.toFixed(1)} s ` +
            `(${Math.round(rate).toLocaleString('en-US')} events/s)\n`,
        );
      }
    } finally {
      await service.stop();
      readModels.close();
      await close();
      lock.release();
    }
    return 0;
  },
};
