// Judges each line of an NDJSON corpus with ajv 8 (draft 2020-12) and
// ajv-formats against the AgentCard JSON Schema, the way a Node.js service
// checks cards today: JSON.parse, then the compiled validate function.
// Prints the same report line as the Go drivers; only the loop is timed.
//
//   node validate.mjs [--schema file] [--verdicts file] [--all-errors] corpus.ndjson

import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const { values, positionals } = parseArgs({
  options: {
    // The repository's default: shared/ beside the checkout.
    schema: {
      type: "string",
      default: fileURLToPath(new URL("../../../shared/specs/agentcard-schema-v1.0.json", import.meta.url)),
    },
    verdicts: { type: "string" },
    // Collect every error, as cardscan and jsonschema do, instead of
    // stopping at the first; off by default, as in ajv.
    "all-errors": { type: "boolean", default: false },
  },
  allowPositionals: true,
});
if (positionals.length !== 1) {
  process.stderr.write("usage: node validate.mjs [--schema file] [--verdicts file] [--all-errors] corpus.ndjson\n");
  process.exit(2);
}

// strictTypes is off because the schema pairs "minimum" with
// ["number", "null"], which is legal 2020-12 that ajv's strict mode only
// warns about; everything else keeps ajv's defaults.
const ajv = new Ajv2020({ strictTypes: false, allErrors: values["all-errors"] });
addFormats(ajv); // "full" mode: uri is checked against the RFC 3986 grammar
const validate = ajv.compile(JSON.parse(readFileSync(values.schema, "utf8")));

const buf = readFileSync(positionals[0]);
// Decoding the file is reading it, not judging it, as for the Go drivers.
const text = buf.toString("utf8");

function judge(line) {
  let card;
  try {
    card = JSON.parse(line);
  } catch {
    return false;
  }
  return validate(card);
}

function explain(line) {
  let card;
  try {
    card = JSON.parse(line);
  } catch (e) {
    return "json: " + e.message;
  }
  if (validate(card)) return "";
  const e = validate.errors[0];
  return `${e.instancePath || "/"}: ${e.keyword}: ${e.message} ${JSON.stringify(e.params)}`;
}

// eachRecord mirrors the Go harness: lines cut at "\n", a trailing "\r"
// dropped, empty lines skipped.
function eachRecord(fn) {
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    let stop = end;
    if (stop > start && text.charCodeAt(stop - 1) === 13) stop--;
    if (stop > start) fn(text.slice(start, stop));
    start = end + 1;
  }
}

let records = 0;
let valid = 0;
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
eachRecord((line) => {
  records++;
  if (judge(line)) valid++;
});
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = process.cpuUsage(cpu0);

if (values.verdicts) {
  const out = [];
  let i = 0;
  eachRecord((line) => {
    const why = explain(line);
    out.push(why === "" ? `${i}\t1` : `${i}\t0\t${why.replace(/[\t\r\n]/g, " ")}`);
    i++;
  });
  writeFileSync(values.verdicts, out.join("\n") + "\n");
}

process.stdout.write(
  JSON.stringify({
    tool: "ajv 8 + ajv-formats",
    records,
    valid,
    invalid: records - valid,
    bytes: buf.length,
    seconds,
    cpu_seconds: (cpu.user + cpu.system) / 1e6,
  }) + "\n",
);
