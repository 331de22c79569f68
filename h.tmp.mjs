import { generateKeyPairSync, sign as cryptoSign } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { encode } from '@ipld/dag-cbor';
import { createServer } from '/work/main/dist/src/server.js';
import { loadConfig } from '/work/main/dist/src/config/config.js';
import { MessageService } from '/work/main/dist/src/gateway/message.service.js';
const app = await createServer(loadConfig({ SEED_AGENTS_DATA_DIR: mkdtempSync('/tmp/h-'), SEED_AGENTS_LOG_LEVEL: 'warn' }));
await app.init();
const svc = app.get(MessageService);
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url');
const principal = Uint8Array.from([0xed, 0x01, ...raw]);
const N = 5000;
const bodies = Array.from({ length: N }, () => { const e = { type: 'AgentsAction', signer: principal, sig: new Uint8Array(64), account: principal, action: { _: 'ListSigners', ts: Date.now() } }; e.sig = cryptoSign(null, encode(e), privateKey); return encode(e); });
for (let r = 0; r < 2; r++) {
  const t = performance.now();
  for (const b of bodies) { const o = await svc.handle(b); if (o.status !== 200) throw new Error(o.status); }
  console.log('handle µs/req', ((performance.now() - t) * 1000 / N).toFixed(1));
}
await app.close();
