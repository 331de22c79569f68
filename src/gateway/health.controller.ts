import { Controller, Get, Inject } from '@nestjs/common';
import { CONFIG } from '../config/config.module.js';
import type { Config } from '../config/config.js';
import { EVENT_STORE } from '../events/events.module.js';
import { serializePosition } from '../events/store/position.js';
import type { EventStore } from '../events/store/types.js';
import { ProjectionService } from '../projections/projection-service.js';

const startedAt = Date.now();

@Controller()
export class HealthController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CONFIG) private readonly config: Config,
    private readonly projections: ProjectionService,
  ) {}

  /** Answers only once the store answers: a health check that cannot reach the log is not healthy. */
  @Get(['api/health', 'agents/api/health'])
  async health() {
    const head = await this.store.headPosition();
    return {
      status: 'ok',
      uptime: Math.round((Date.now() - startedAt) / 1000),
      store: { kind: this.config.store, head: head ? serializePosition(head) : null },
      projections: this.projections.status(),
      // What this server offers today; the apps hide what a server reports false.
      codeExec: false,
      webTools: false,
      subscriptionAuth: false,
      mcp: false,
      triggers: false,
      memory: false,
      uploads: false,
    };
  }
}
