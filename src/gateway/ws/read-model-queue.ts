/**
 * Frames built from read models (an AgentInfo, a SessionInfo, account change rows, a RunInfo) must
 * wait until the projections have applied the event that prompted them. One queue, in log order, so
 * such frames leave in the order their events were written.
 */
import { Injectable, Logger } from '@nestjs/common';
import type { Position } from '../../events/store/position.js';
import { ProjectionService, ProjectionTimeoutError } from '../../projections/projection-service.js';

@Injectable()
export class ReadModelQueue {
  private readonly logger = new Logger('agents/ws');
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly projections: ProjectionService) {}

  /**
   * Runs `work` once every projection handling `eventTypes` has passed `position`. `position` is read
   * when the wait begins, so a caller may keep moving it forward while the item waits its turn.
   */
  after(position: () => Position, eventTypes: readonly string[], work: () => void): void {
    this.tail = this.tail.then(async () => {
      try {
        await this.projections.waitFor(position(), { eventTypes });
      } catch (error) {
        // A lagging read model still answers, only later than it should: send what it has rather
        // than nothing. A failed or stopped one is reported by /api/health; nothing to send then.
        if (!(error instanceof ProjectionTimeoutError)) return;
        this.logger.warn(`Live frames may be stale: ${error.message}`);
      }
      try {
        work();
      } catch (error) {
        this.logger.error(`A live frame could not be built: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
    });
  }
}
