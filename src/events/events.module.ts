import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { CONFIG } from '../config/config.module.js';
import type { Config } from '../config/config.js';
import { openEventStore } from './store/open-event-store.js';
import type { EventStore } from './store/types.js';

export const EVENT_STORE = Symbol('EventStore');

@Global()
@Module({
  providers: [{ provide: EVENT_STORE, inject: [CONFIG], useFactory: (config: Config) => openEventStore(config) }],
  exports: [EVENT_STORE],
})
export class EventsModule implements OnApplicationShutdown {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
