// Signs and verifies A2A cards with @a2a-js/sdk's own functions
// (generateAgentCardSignature, verifyAgentCardSignature), for cardsig's
// SDK interop test. Reads {"sign": [...], "verify": [...]} on stdin, each
// task {jwk, alg, card}, and writes {"signed": [...], "verified": [...]}.
import { generateAgentCardSignature, verifyAgentCardSignature } from "@a2a-js/sdk";
import { importJWK } from "jose";

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const req = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const signed = [];
for (const t of req.sign) {
  try {
    const key = await importJWK(t.jwk, t.alg);
    const card = await generateAgentCardSignature(key, { alg: t.alg, kid: t.jwk.kid, typ: "JOSE" })(JSON.parse(t.card));
    signed.push({ ok: true, card: JSON.stringify(card) });
  } catch (e) {
    signed.push({ ok: false, error: String(e) });
  }
}
const verified = [];
for (const t of req.verify) {
  try {
    const key = await importJWK(t.jwk, t.alg);
    // The SDK logs each failing entry with console.debug; keep stdout JSON.
    console.debug = () => {};
    await verifyAgentCardSignature(async (kid) => {
      if (kid !== t.jwk.kid) throw new Error("unknown kid " + kid);
      return key;
    })(JSON.parse(t.card));
    verified.push({ ok: true });
  } catch (e) {
    verified.push({ ok: false, error: String(e) });
  }
}
process.stdout.write(JSON.stringify({ signed, verified }));
