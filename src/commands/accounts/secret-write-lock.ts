import { Injectable } from '@nestjs/common';
import { KeyedQueue } from '../keyed-queue.js';

/**
 * Serializes, per account, the actions that write the secret store (SetSecret, DeleteModelProvider).
 * Each writes the store and the log in two steps and then prunes the store to what the log names;
 * run concurrently, one could prune the row the other has stored but not yet recorded. The store
 * belongs to this process (the data directory is locked), so an in-process lock suffices.
 */
@Injectable()
export class SecretWriteLock extends KeyedQueue {}
