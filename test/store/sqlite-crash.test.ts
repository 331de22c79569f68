/**
 * Nothing acknowledged is ever lost: a writer process is SIGKILLed at a random moment while it
 * appends from several concurrent loops (so group commits are in flight); after reopening the file,
 * every append it reported as acknowledged is present, in order, and the store keeps working.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/events/store/sqlite/sqlite-event-store.js';
import { collect, events } from './helpers.js';
import { startPeer } from './peer.js';

const ROUNDS = 20;

describe('sqlite store survives SIGKILL', () => {
  it(`keeps every acknowledged append across ${ROUNDS} random kills`, { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seed-crash-'));
    const db = join(dir, 'events.db');
    let totalAcked = 0;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const peer = startPeer(['crash-writer', db, '8']);
        await peer.waitFor((line) => 'ack' in line);
        await new Promise((r) => setTimeout(r, 20 + Math.random() * 300));
        peer.child.kill('SIGKILL');
        const exit = await peer.exited;
        expect(exit.signal).toBe('SIGKILL');

        const acked = peer.lines.filter((l) => 'ack' in l) as { ack: string; ids: string[]; last: string }[];
        totalAcked += acked.length;
        const store = new SqliteEventStore(db);
        try {
          const byStream = new Map<string, { ids: string[]; last: string }[]>();
          for (const a of acked) byStream.set(a.ack, [...(byStream.get(a.ack) ?? []), a]);
          for (const [stream, acks] of byStream) {
            const stored = await collect(store.readStream(stream));
            // Revisions are contiguous from 0: nothing half-written, no holes.
            expect(stored.map((e) => e.revision)).toEqual(stored.map((_, i) => BigInt(i)));
            const storedIds = stored.map((e) => e.id);
            const ackedIds = acks.flatMap((a) => a.ids);
            // Every acknowledged id is there, in acknowledgement order, at the acknowledged revision.
            expect(storedIds.slice(0, ackedIds.length)).toEqual(ackedIds);
            expect(BigInt(stored.length - 1)).toBeGreaterThanOrEqual(BigInt(acks[acks.length - 1]!.last));
          }
          const all = await collect(store.readAll());
          for (let i = 1; i < all.length; i++) expect(all[i]!.position.commit > all[i - 1]!.position.commit).toBe(true);
          // Still usable: a fresh append lands after everything else.
          const after = await store.append(`after-${round}`, events(2), { expected: 'no_stream' });
          expect(after.position.commit > all[all.length - 1]!.position.commit).toBe(true);
        } finally {
          await store.close();
        }
      }
      expect(totalAcked).toBeGreaterThan(ROUNDS);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
