/**
 * Turn overhead: MessageSession → the durable assistant message, with a model that answers at once,
 * against that model's own latency measured in the same run. The server (`seed-agents serve`,
 * dispatching) and the scripted model (bench/turn-model.ts) each run in a process of their own; this
 * process signs, sends, and watches each session over `/agents/ws`, timing the assistant message's
 * `append` frame.
 *
 *   npm run bench:turn
 *
 * Scenarios, in order:
 * - baselines: the model called directly with the `openai` client (streamed, as the runtime calls it),
 *   and a signed GetSession round trip;
 * - one session, TURNS (200) turns one after the other, each sent once the previous answer arrived;
 * - SESSIONS (100) sessions, ROUNDS (5) rounds of one message to each at once;
 * - the automatic title's cost: sessions created untitled titled by one extra model call after their
 *   first exchange, which the session's next turn waits behind (measured apart: the main scenarios
 *   use sessions created with a title, which are never titled automatically).
 *
 * MAX_RUNS sets SEED_AGENTS_MAX_RUNS (default: the server's own, 8). Afterwards the store is read back
 * to split the turns into stages (bench/turn-breakdown.ts). The last line is one JSON object.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { generateSigner } from '../src/client/ed25519-signer.js';
import { percentile, round, sortedCopy } from './lib/stats.js';
import { breakdown, STAGES, type Breakdown } from './turn-breakdown.js';
import { Client, now, sendTimed, startModel, startServer, timedTurn, WatchedSession, type TurnSample } from './turn-client.js';
import type { ModelRequestRecord } from './turn-protocol.js';

const TURNS = Number(process.env.TURNS ?? 200);
const SESSIONS = Number(process.env.SESSIONS ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const UNTITLED = Number(process.env.UNTITLED ?? 20);
const WARMUP = 20;
const DIRECT_CALLS = 200;

interface Stats {
  n: number;
  p50: number;
  p99: number;
}

const stats = (values: readonly number[]): Stats => {
  const sorted = sortedCopy(values);
  return { n: values.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
};
const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)} ms` : '—');
const line = (name: string, text: string) => console.log(`${name.padEnd(48)} ${text}`);

async function directModelCalls(baseURL: string): Promise<Stats> {
  const client = new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0 });
  const times: number[] = [];
  for (let i = 0; i < WARMUP + DIRECT_CALLS; i++) {
    const started = now();
    const stream = await client.chat.completions.create({
      model: 'scripted-model',
      messages: [
        { role: 'system', content: 'You are a benchmark agent.' },
        { role: 'user', content: `direct ${i}` },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) void chunk;
    if (i >= WARMUP) times.push(now() - started);
  }
  return stats(times);
}

/** The model's own latency (`servedMs`) over the turn requests answering these samples. */
function modelServed(requests: readonly ModelRequestRecord[], samples: readonly TurnSample[]): Stats {
  const texts = new Set(samples.map((s) => s.text));
  return stats(requests.filter((r) => !r.title && r.lastUserText !== null && texts.has(r.lastUserText) && r.servedMs !== null).map((r) => r.servedMs!));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'turn-bench-'));
  const model = await startModel();
  const server = await startServer(dir, process.env.MAX_RUNS ? { SEED_AGENTS_MAX_RUNS: process.env.MAX_RUNS } : {});
  const sockets: WatchedSession[] = [];
  try {
    const client = new Client(server.base, await generateSigner());
    await client.call({ _: 'SetModelProvider', name: 'bench', provider: { type: 'custom', baseUrl: model.baseUrl } });
    const definition = { name: 'Bench', systemPrompt: 'You are a benchmark agent.', modelProvider: 'bench', model: 'scripted-model' };
    const { agentId } = await client.call<{ agentId: string }>({ _: 'CreateAgent', definition });
    const newSession = async (title?: string) => {
      const { sessionId } = await client.call<{ sessionId: string }>({ _: 'CreateSession', agentId, ...(title ? { title } : {}) });
      const watched = await WatchedSession.open(client, sessionId);
      sockets.push(watched);
      return watched;
    };

    // Baselines.
    const direct = await directModelCalls(model.baseUrl);
    const probe = await newSession('Probe');
    const reads: number[] = [];
    for (let i = 0; i < WARMUP + DIRECT_CALLS; i++) {
      const bytes = await client.sign({ _: 'GetSession', sessionId: probe.id });
      const started = now();
      await client.send(bytes);
      if (i >= WARMUP) reads.push(now() - started);
    }
    const signedRead = stats(reads);

    // One session, turn after turn.
    const single = await newSession('One session');
    for (let i = 0; i < WARMUP; i++) await timedTurn(client, single, `warm-up ${i}`);
    const singleSamples: TurnSample[] = [];
    for (let i = 0; i < TURNS; i++) singleSamples.push(await timedTurn(client, single, `single ${i}`));

    // Many sessions at once, in rounds.
    const many = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => newSession(`Concurrent ${i}`)));
    const concurrentSamples: TurnSample[] = [];
    const roundP50: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const signed = await Promise.all(
        many.map(async (session, i) => {
          const text = `concurrent ${round}.${i}`;
          return { session, text, bytes: await client.sign({ _: 'MessageSession', sessionId: session.id, content: [{ type: 'text', text }] }) };
        }),
      );
      const samples = await Promise.all(signed.map(({ session, text, bytes }) => sendTimed(client, session, text, bytes)));
      concurrentSamples.push(...samples);
      roundP50.push(stats(samples.map((s) => s.latencyMs)).p50);
    }

    // What the automatic title costs: sessions created untitled.
    const secondTurns: TurnSample[] = [];
    for (let i = 0; i < UNTITLED; i++) {
      const session = await newSession();
      await timedTurn(client, session, `untitled ${i} first`);
      // Sent as soon as the first answer arrives: its run waits while the first run asks for the title.
      secondTurns.push(await timedTurn(client, session, `untitled ${i} second`));
    }
    const fresh = await Promise.all(Array.from({ length: SESSIONS }, () => newSession()));
    const firstExchanges = await Promise.all(fresh.map((session, i) => timedTurn(client, session, `untitled-concurrent ${i}`)));

    const { requests, failures } = await model.requests(0);
    if (failures) throw new Error(`the model failed ${failures} requests`);
    for (const socket of sockets) socket.close();
    await server.stop();
    const singleStages = await breakdown(join(dir, 'events.db'), singleSamples, requests);
    const concurrentStages = await breakdown(join(dir, 'events.db'), concurrentSamples, requests);

    // Report.
    const turn = stats(singleSamples.map((s) => s.latencyMs));
    const concurrent = stats(concurrentSamples.map((s) => s.latencyMs));
    const served = modelServed(requests, singleSamples);
    const servedConcurrent = modelServed(requests, concurrentSamples);
    const untitledSecond = stats(secondTurns.map((s) => s.latencyMs));
    const untitledFirst = stats(firstExchanges.map((s) => s.latencyMs));
    const titleRequests = requests.filter((r) => r.title).length;

    console.log(`turn bench: ${TURNS} sequential turns in one session; ${SESSIONS} sessions × ${ROUNDS} rounds at once; max runs ${process.env.MAX_RUNS ?? 'default (8)'}`);
    console.log('');
    line('baseline: model servedMs (one session) p50/p99', `${ms(served.p50)} / ${ms(served.p99)}`);
    line('baseline: model servedMs (concurrent) p50/p99', `${ms(servedConcurrent.p50)} / ${ms(servedConcurrent.p99)}`);
    line('baseline: model called directly (openai) p50/p99', `${ms(direct.p50)} / ${ms(direct.p99)}`);
    line('baseline: signed GetSession round trip p50/p99', `${ms(signedRead.p50)} / ${ms(signedRead.p99)}`);
    console.log('');
    line('one session: turn p50/p99', `${ms(turn.p50)} / ${ms(turn.p99)}`);
    const quarter = Math.max(1, Math.floor(TURNS / 4));
    const early = stats(singleSamples.slice(0, quarter).map((s) => s.latencyMs));
    const late = stats(singleSamples.slice(-quarter).map((s) => s.latencyMs));
    line(`  first ${quarter} turns p50 / last ${quarter} turns p50`, `${ms(early.p50)} / ${ms(late.p50)} (the Log grows by 2 events a turn)`);
    line('  overhead p50 (turn − model servedMs)', `${ms(turn.p50 - served.p50)}`);
    line('  ratio p50 turn / model servedMs', `${(turn.p50 / served.p50).toFixed(1)}`);
    line('  ratio p50 turn / model called directly', `${(turn.p50 / direct.p50).toFixed(2)}`);
    line('  ratio p50 turn / signed GetSession', `${(turn.p50 / signedRead.p50).toFixed(2)}`);
    line(`${SESSIONS} sessions at once: turn p50/p99`, `${ms(concurrent.p50)} / ${ms(concurrent.p99)}`);
    line('  per-round p50', roundP50.map((v) => v.toFixed(1)).join(', ') + ' ms');
    line('  overhead p50 (turn − model servedMs)', `${ms(concurrent.p50 - servedConcurrent.p50)}`);
    line('  ratio p50 concurrent / one session', `${(concurrent.p50 / turn.p50).toFixed(2)}`);
    console.log('');
    line('untitled: first turn p50 (title asked after it)', `${ms(untitledFirst.p50)} (${SESSIONS} new sessions at once)`);
    line('untitled: second turn right after, p50/p99', `${ms(untitledSecond.p50)} / ${ms(untitledSecond.p99)} (behind the title call; ${UNTITLED} sessions)`);
    line('  ratio p50 second turn / titled turn', `${(untitledSecond.p50 / turn.p50).toFixed(2)}`);
    line('title requests the model received', `${titleRequests} (one per untitled session: ${UNTITLED + SESSIONS})`);
    console.log('');
    printStages('stages, p50 (ms)', singleStages, concurrentStages);

    console.log(
      JSON.stringify({
        p50Ms: round(turn.p50, 2),
        p99Ms: round(turn.p99, 2),
        concurrentSessions: SESSIONS,
        concurrentP50Ms: round(concurrent.p50, 2),
        concurrentP99Ms: round(concurrent.p99, 2),
        modelP50Ms: round(served.p50, 3),
        modelConcurrentP50Ms: round(servedConcurrent.p50, 3),
        directModelP50Ms: round(direct.p50, 2),
        signedReadP50Ms: round(signedRead.p50, 2),
        overheadP50Ms: round(turn.p50 - served.p50, 2),
        ratioTurnToModel: round(turn.p50 / served.p50, 1),
        ratioTurnToDirectModel: round(turn.p50 / direct.p50, 2),
        concurrentOverheadP50Ms: round(concurrent.p50 - servedConcurrent.p50, 2),
        firstQuarterP50Ms: round(early.p50, 2),
        lastQuarterP50Ms: round(late.p50, 2),
        untitledSecondTurnP50Ms: round(untitledSecond.p50, 2),
        untitledConcurrentFirstP50Ms: round(untitledFirst.p50, 2),
        turns: TURNS,
        rounds: ROUNDS,
      }),
    );
  } finally {
    for (const socket of sockets) socket.close();
    if (server.child.exitCode === null && server.child.signalCode === null) await server.stop();
    model.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function printStages(title: string, single: Breakdown, concurrent: Breakdown): void {
  console.log(`${title.padEnd(40)} ${'one session'.padStart(12)} ${'concurrent'.padStart(12)}`);
  for (const [name, what] of STAGES) {
    const cell = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '—').padStart(12);
    console.log(`${name.padEnd(40)} ${cell(single[name])} ${cell(concurrent[name])}  ${what}`);
  }
}

await main();
