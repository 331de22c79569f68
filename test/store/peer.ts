import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const PEER_SCRIPT = fileURLToPath(new URL('../../dist/test/store/fixtures/store-peer.js', import.meta.url));

export interface Peer {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  /** Resolves with the first line that satisfies `match` (already seen or still to come). */
  waitFor(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

export function startPeer(args: string[]): Peer {
  const child = spawn(process.execPath, [PEER_SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  const listeners = new Set<() => void>();
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    // A SIGKILL can cut the last line short; a partial line is an unreported ack, not a test failure.
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      return;
    }
    for (const listener of listeners) listener();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    // 'close' waits for stdout to end, so every printed line has been parsed by then.
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  const waitFor: Peer['waitFor'] = (match, timeoutMs = 15_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = lines.find(match);
        if (!found) return false;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`peer ${args.join(' ')} did not print the awaited line in ${timeoutMs} ms; stderr: ${stderr}`));
      }, timeoutMs);
      if (check()) return;
      listeners.add(check);
      void exited.then(() => {
        if (!listeners.has(check)) return;
        listeners.delete(check);
        clearTimeout(timer);
        reject(new Error(`peer ${args.join(' ')} exited before printing the awaited line; stderr: ${stderr}`));
      });
    });
  return { child, lines, waitFor, exited };
}
