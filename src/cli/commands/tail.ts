import { parseArgs } from 'node:util';
import { serializePosition } from '../../events/store/position.js';
import { categoryPrefixes, openLog, positionArg } from '../open-log.js';
import type { Command } from '../run-cli.js';
import { eventLine } from '../event-line.js';

export const tail: Command = {
  summary:
    'tail [--from start|end|POS] [--stream-prefix P]… [--category C]… [--type T]… [--json]  print events live',
  async run(args) {
    const { values } = parseArgs({
      args,
      strict: true,
      options: {
        from: { type: 'string', default: 'end' },
        'stream-prefix': { type: 'string', multiple: true },
        category: { type: 'string', multiple: true },
        type: { type: 'string', multiple: true },
        json: { type: 'boolean', default: false },
      },
    });
    const from = values.from === 'start' || values.from === 'end' ? values.from : positionArg('--from', values.from);
    const prefixes = [...(values['stream-prefix'] ?? []), ...(categoryPrefixes(values.category) ?? [])];
    const { log, close } = await openLog();
    const subscription = log.subscribeAll({
      from,
      filter: {
        ...(prefixes.length ? { streamPrefixes: prefixes } : {}),
        ...(values.type?.length ? { eventTypes: values.type } : {}),
      },
    });
    const stop = () => void subscription.close();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      for await (const message of subscription) {
        if (message.kind === 'caughtUp') {
          if (!values.json) {
            const at = message.position ? serializePosition(message.position) : 'the start';
            process.stderr.write(`— caught up at ${at}; following live (Ctrl-C to stop) —\n`);
          }
          continue;
        }
        process.stdout.write(`${eventLine(message.event, values.json ? 'json' : 'text')}\n`);
      }
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await close();
    }
    return 0;
  },
};
