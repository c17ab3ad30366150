// Judges cards with ajv 8 and ajv-formats against one definition of a
// published JSON Schema, for fastvalidate's differential test.
//
//   node judge.mjs SCHEMA POINTER DRAFT < cards.ndjson
//
// POINTER names the card's definition ("" for the root, "#/definitions/
// AgentCard"); DRAFT is 07 or 2020. Each line of standard input is one
// card; each line of output is "valid", or "invalid" and ajv's first
// errors. A schema whose $refs name other files by their definitions'
// names (the A2A 1.0 bundle generated from the proto, whose
// "lf.a2a.v1.AgentSkill.jsonschema.json" is its "Agent Skill") has them
// pointed at its own definitions first.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const [schemaFile, pointer, draft] = process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaFile, "utf8"));
const defs = schema.definitions ?? schema.$defs ?? {};
const defsKey = schema.definitions ? "definitions" : "$defs";
const byName = new Map(Object.keys(defs).map((k) => [k.replaceAll(" ", ""), k]));

// localRefs rewrites a $ref to another file into one to the definition of
// the same name, or leaves it.
function localRefs(node) {
  if (Array.isArray(node)) {
    node.forEach(localRefs);
  } else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string" && !v.startsWith("#")) {
        const name = v.replace(/\.jsonschema\.json$/, "").replace(/^(lf\.a2a\.v1|google\.protobuf)\./, "");
        const key = byName.get(name);
        if (key === undefined) throw new Error("no definition for " + v);
        node[k] = `#/${defsKey}/${encodeURIComponent(key).replaceAll("%20", " ")}`;
      } else {
        localRefs(v);
      }
    }
  }
}
localRefs(schema);
for (const d of Object.values(defs)) delete d.$schema;

const A = draft === "2020" ? Ajv2020 : Ajv;
const ajv = new A({ strict: false, allErrors: true });
addFormats(ajv);
schema.$id = "https://cardscan.invalid/judged.json";
delete schema.$schema;
ajv.addSchema(schema);
const validate = ajv.compile({ $ref: schema.$id + (pointer || "#") });

const out = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line === "") continue;
  if (validate(JSON.parse(line))) {
    out.push("valid");
  } else {
    out.push("invalid " + validate.errors.slice(0, 3).map((e) => `${e.instancePath} ${e.keyword} ${e.message}`).join("; "));
  }
}
process.stdout.write(out.join("\n") + "\n");
