// Loads A2A cards with @a2a-js/sdk's own readers, for bench/interop's
// test of migrated cards: a card the SDK's resolver takes for 0.3
// (isLegacyAgentCard) goes through its 0.3 translation
// (parseLegacyAgentCard, what DefaultAgentCardResolver does with
// legacyCompat), any other through the 1.0 parser (AgentCard.fromJSON).
// Reads one card per line on stdin and writes one JSON line per card:
// what the SDK read, or the error it threw.
import { createInterface } from "node:readline";
import { AgentCard } from "@a2a-js/sdk";
import { isLegacyAgentCard, parseLegacyAgentCard } from "@a2a-js/sdk/compat/v0_3/client";

const out = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim() === "") continue;
  try {
    const raw = JSON.parse(line);
    const legacy = isLegacyAgentCard(raw);
    const card = legacy ? parseLegacyAgentCard(raw) : AgentCard.fromJSON(raw);
    out.push(JSON.stringify({
      ok: true,
      legacy,
      name: card.name,
      interfaces: card.supportedInterfaces.map((i) => ({ url: i.url, protocolBinding: i.protocolBinding, protocolVersion: i.protocolVersion })),
      schemes: Object.fromEntries(Object.entries(card.securitySchemes ?? {}).map(([k, s]) => [k, s.scheme?.$case ?? ""])),
      requirements: card.securityRequirements.map((r) => Object.keys(r.schemes ?? {}).sort()),
      skills: card.skills.length,
      extendedAgentCard: card.capabilities?.extendedAgentCard ?? false,
    }));
  } catch (e) {
    out.push(JSON.stringify({ ok: false, error: String(e) }));
  }
}
process.stdout.write(out.join("\n") + "\n");
