/**
 * Where a turn's time goes, read back from the store once the server has stopped: each message the
 * bench sent is found in its session's Log, its run's lifecycle on `run-<id>`, the model request that
 * answered it in the model's records, and its answer's commit — and the gaps between them are the
 * stages of the turn. Commit times are the store's (ms); client times are this process's.
 */
import { SqliteEventStore } from '../src/events/store/sqlite/sqlite-event-store.js';
import type { RecordedEvent } from '../src/events/store/types.js';
import { percentile, sortedCopy } from './lib/stats.js';
import type { TurnSample } from './turn-client.js';
import type { ModelRequestRecord } from './turn-protocol.js';

export const STAGES = [
  ['send → user message committed', 'MessageSession: verify, decide, append the message'],
  ['user message → RunQueued committed', 'MessageSession: queue the run'],
  ['send → MessageSession answered', 'the HTTP answer (waits for the read models)'],
  ['RunQueued → RunClaimed', 'dispatcher: notice the run, wait for the runs read model, scan, claim'],
  ['RunClaimed → RunStarted', 'dispatcher: start'],
  ['RunStarted → model request arrived', 'executor: read the Log, load agent and provider, build the prompt, connect'],
  ['model request → answer committed', 'model serving + stream parsing + the assistant append'],
  ['answer committed → client received', '/agents/ws fan-out'],
  ['answer committed → RunSucceeded', 'after the answer: title (if any), outcome; the next turn of the session waits for it'],
] as const;

export type StageName = (typeof STAGES)[number][0];
export type Breakdown = Record<StageName, number>;

interface Found {
  user: RecordedEvent;
  queued: RecordedEvent;
  claimed: RecordedEvent;
  started: RecordedEvent;
  succeeded: RecordedEvent | undefined;
  answer: RecordedEvent;
}

/** Median of every stage over `samples`; NaN for a stage no sample could be matched for. */
export async function breakdown(storePath: string, samples: readonly TurnSample[], requests: readonly ModelRequestRecord[]): Promise<Breakdown> {
  const store = new SqliteEventStore(storePath);
  try {
    const userByText = new Map<string, RecordedEvent>();
    const queuedByMessage = new Map<string, RecordedEvent>();
    const runEvents = new Map<string, RecordedEvent[]>();
    const answerByRun = new Map<string, RecordedEvent>();
    for await (const event of store.readAll()) {
      const data = event.data as Record<string, unknown>;
      if (event.stream.startsWith('session-') && event.type === 'message') {
        if (data.role === 'user') userByText.set(String(data.content), event);
        else if (data.role === 'assistant') answerByRun.set(String((event.metadata as { causationId?: string }).causationId), event);
      } else if (event.stream.startsWith('run-')) {
        const runId = event.stream.slice('run-'.length);
        runEvents.set(runId, [...(runEvents.get(runId) ?? []), event]);
        if (event.type === 'RunQueued') for (const id of data.messageEventIds as string[]) queuedByMessage.set(id, event);
      }
    }
    const modelAt = new Map(requests.filter((r) => !r.title && r.lastUserText !== null).map((r) => [r.lastUserText!, r.at]));

    const stages = new Map<StageName, number[]>(STAGES.map(([name]) => [name, []]));
    const add = (name: StageName, value: number | undefined) => {
      if (value !== undefined && Number.isFinite(value)) stages.get(name)!.push(value);
    };
    for (const sample of samples) {
      const found = find(sample.text);
      if (!found) continue;
      const { user, queued, claimed, started, succeeded, answer } = found;
      add('send → user message committed', user.created - sample.sentAt);
      add('user message → RunQueued committed', queued.created - user.created);
      add('send → MessageSession answered', sample.acceptedMs);
      add('RunQueued → RunClaimed', claimed.created - queued.created);
      add('RunClaimed → RunStarted', started.created - claimed.created);
      const arrived = modelAt.get(sample.text);
      add('RunStarted → model request arrived', arrived === undefined ? undefined : arrived - started.created);
      add('model request → answer committed', arrived === undefined ? undefined : answer.created - arrived);
      add('answer committed → client received', sample.answeredAt - answer.created);
      add('answer committed → RunSucceeded', succeeded ? succeeded.created - answer.created : undefined);
    }
    return Object.fromEntries(STAGES.map(([name]) => [name, percentile(sortedCopy(stages.get(name)!), 50)])) as Breakdown;

    function find(text: string): Found | undefined {
      const user = userByText.get(text);
      const queued = user && queuedByMessage.get(user.id);
      if (!user || !queued) return undefined;
      const runId = queued.stream.slice('run-'.length);
      const events = runEvents.get(runId) ?? [];
      const claimed = events.find((e) => e.type === 'RunClaimed');
      const started = events.find((e) => e.type === 'RunStarted');
      const answer = answerByRun.get(runId);
      if (!claimed || !started || !answer) return undefined;
      return { user, queued, claimed, started, succeeded: events.find((e) => e.type === 'RunSucceeded'), answer };
    }
  } finally {
    await store.close();
  }
}
