// Runs the diff's HTTP+JSON and JSON-RPC oracles in one Node process: reads jobs as JSON
// on stdin, answers as JSON on stdout.
//   {"openapi": [{"id", "old", "new"}], "jsonschema": [{"id", "old", "new"}]}
// openapi: openapi-diff's verdict on two OpenAPI 3 documents (its breaking, non-breaking and
// unclassified differences, each with its code and locations); jsonschema: json-schema-diff's
// on two JSON schemas (whether values were added or removed).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const openapiDiff = require("openapi-diff");
const jsonSchemaDiff = require("json-schema-diff");

function read(stream) {
  return new Promise((resolve, reject) => {
    let text = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk) => { text += chunk; });
    stream.on("end", () => resolve(text));
    stream.on("error", reject);
  });
}

function brief(differences) {
  return (differences || []).map((d) => ({
    code: d.code,
    type: d.type,
    source: (d.sourceSpecEntityDetails || []).map((e) => e.location),
    destination: (d.destinationSpecEntityDetails || []).map((e) => e.location),
  }));
}

async function main() {
  const jobs = JSON.parse(await read(process.stdin));
  const answers = { openapi: {}, jsonschema: {} };
  for (const job of jobs.openapi || []) {
    const spec = (doc, name) => ({ content: JSON.stringify(doc), location: name, format: "openapi3" });
    const outcome = await openapiDiff.diffSpecs({
      sourceSpec: spec(job.old, "old.json"),
      destinationSpec: spec(job.new, "new.json"),
    });
    answers.openapi[job.id] = {
      breaking: brief(outcome.breakingDifferences),
      nonBreaking: brief(outcome.nonBreakingDifferences),
      unclassified: brief(outcome.unclassifiedDifferences),
    };
  }
  for (const job of jobs.jsonschema || []) {
    const outcome = await jsonSchemaDiff.diffSchemas({ sourceSchema: job.old, destinationSchema: job.new });
    answers.jsonschema[job.id] = { added: outcome.additionsFound, removed: outcome.removalsFound };
  }
  process.stdout.write(JSON.stringify(answers));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(1);
});
