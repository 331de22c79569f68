import { Injectable } from '@nestjs/common';

/**
 * Serializes, per account, the actions that write the secret store (SetSecret, DeleteModelProvider).
 * Each writes the store and the log in two steps and then prunes the store to what the log names;
 * run concurrently, one could prune the row the other has stored but not yet recorded. The store
 * belongs to this process (the data directory is locked), so an in-process lock suffices.
 */
@Injectable()
export class SecretWriteLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(account: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(account) ?? Promise.resolve();
    const result = previous.then(work);
    // The queue only orders the work; each caller gets its own outcome from `result`.
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(account, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(account) === tail) this.tails.delete(account);
    }
  }
}
