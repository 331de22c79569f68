import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { CONFIG } from '../config/config.module.js';
import type { Config } from '../config/config.js';
import { EventLog } from './event-log.js';
import { openEventStore } from './store/open-event-store.js';
import type { EventStore } from './store/types.js';

export const EVENT_STORE = Symbol('EventStore');
export const EVENT_LOG = Symbol('EventLog');

@Global()
@Module({
  providers: [
    { provide: EVENT_STORE, inject: [CONFIG], useFactory: (config: Config) => openEventStore(config) },
    { provide: EVENT_LOG, inject: [EVENT_STORE], useFactory: (store: EventStore) => new EventLog(store) },
  ],
  exports: [EVENT_STORE, EVENT_LOG],
})
export class EventsModule implements OnApplicationShutdown {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
