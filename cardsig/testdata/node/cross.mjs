// Signs and verifies A2A card signatures with panva's jose and the
// canonicalize package (RFC 8785), independently of cardscan. Reads one
// JSON request on stdin:
//   {"sign":   [{"jwk": PRIVATE_JWK, "alg": ALG, "card": CARD_TEXT}],
//    "verify": [{"jwk": PUBLIC_JWK,  "alg": ALG, "card": CARD_TEXT}]}
// and writes {"signed": [CARD_TEXT], "verified": [{"ok": BOOL, "error": TEXT}]}.
import { readFileSync } from 'node:fs';
import { FlattenedSign, flattenedVerify, importJWK, base64url } from 'jose';
import canonicalize from 'canonicalize';

const req = JSON.parse(readFileSync(0, 'utf8'));

function payload(card) {
  const { signatures, ...rest } = card;
  return new TextEncoder().encode(canonicalize(rest));
}

const signed = [];
for (const { jwk, alg, card } of req.sign ?? []) {
  const obj = JSON.parse(card);
  const key = await importJWK(jwk, alg);
  const jws = await new FlattenedSign(payload(obj))
    .setProtectedHeader({ alg, kid: jwk.kid, typ: 'JOSE' })
    .sign(key);
  obj.signatures = [...(obj.signatures ?? []), { protected: jws.protected, signature: jws.signature }];
  signed.push(JSON.stringify(obj, null, 2));
}

const verified = [];
for (const { jwk, alg, card } of req.verify ?? []) {
  const obj = JSON.parse(card);
  const key = await importJWK(jwk, alg);
  const errors = [];
  let ok = false;
  for (const s of obj.signatures ?? []) {
    try {
      await flattenedVerify(
        { protected: s.protected, signature: s.signature, payload: base64url.encode(payload(obj)) },
        key,
        { algorithms: [alg] },
      );
      ok = true;
    } catch (e) {
      errors.push(String(e.message));
    }
  }
  verified.push({ ok, error: errors.join('; ') });
}

process.stdout.write(JSON.stringify({ signed, verified }));
