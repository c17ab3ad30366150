// Compiles each JSON Schema named on the command line with ajv 8 in
// strict mode (draft 2020-12, formats from ajv-formats; a union type such
// as the draft card's ["object", "string"] is standard), printing
// "compiled FILE" for each; a schema that does not compile, or that
// names a schema ajv would have to load, exits 1 naming it.
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

let failed = false;
for (const file of process.argv.slice(2)) {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  ajv.opts.loadSchema = () => { throw new Error("remote $ref"); };
  try {
    ajv.compile(JSON.parse(readFileSync(file, "utf8")));
    console.log("compiled " + file);
  } catch (e) {
    console.log("FAILED " + file + ": " + e.message);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
