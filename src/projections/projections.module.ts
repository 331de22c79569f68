import { Global, Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { join } from 'node:path';
import { CONFIG } from '../config/config.module.js';
import { ensureDataDir, type Config } from '../config/config.js';
import { EVENT_LOG } from '../events/events.module.js';
import type { EventLog } from '../events/event-log.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { ProjectionService } from './projection-service.js';
import { READ_MODELS_FILE, ReadModelDb } from './read-model-db.js';
import { PROJECTIONS } from './registry.js';

@Global()
@Module({
  providers: [
    {
      provide: ReadModelDb,
      inject: [CONFIG],
      useFactory: (config: Config) => new ReadModelDb(join(ensureDataDir(config), READ_MODELS_FILE)),
    },
    {
      provide: ProjectionService,
      inject: [EVENT_LOG, ReadModelDb],
      useFactory: (log: EventLog, readModels: ReadModelDb) => new ProjectionService(log, readModels, PROJECTIONS),
    },
  ],
  exports: [ProjectionService, ReadModelDb],
})
export class ProjectionsModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private lock: DataDirLock | null = null;

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly service: ProjectionService,
    private readonly readModels: ReadModelDb,
  ) {}

  onApplicationBootstrap(): void {
    this.lock = lockDataDir(this.config.dataDir, 'seed-agents serve');
    this.service.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.service.stop();
    this.readModels.close();
    this.lock?.release();
  }
}
