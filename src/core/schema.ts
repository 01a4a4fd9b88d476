import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { SCHEMAS_DIR } from "./paths.ts";

/**
 * Ajv, loaded on the first check: importing it took a tenth of a second of every command's start,
 * even of those that check nothing (the site build's parts, `--help`), and bundled it into the
 * site build's worker script. Both packages are CommonJS, so `require` loads them synchronously.
 */
let ajv: Ajv2020 | undefined;
function theAjv(): Ajv2020 {
  if (!ajv) {
    const require = createRequire(import.meta.url);
    const { Ajv2020: Ajv } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
    const addFormats = require("ajv-formats") as (instance: Ajv2020) => Ajv2020;
    ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
  }
  return ajv;
}
const compiled = new Map<string, ValidateFunction>();

/** A validator for a schema kept in schemas/ (or any schema object), compiled once. */
export function validatorFor(schema: string | object): ValidateFunction {
  const key = typeof schema === "string" ? schema : JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    const body = typeof schema === "string" ? JSON.parse(readFileSync(join(SCHEMAS_DIR, schema), "utf8")) : schema;
    validate = theAjv().compile(body as object);
    compiled.set(key, validate);
  }
  return validate;
}

/** What a pattern of a shared definition means, said instead of the pattern itself. */
const PATTERN_MEANINGS: Readonly<Record<string, string>> = {
  "#/$defs/line/pattern": "must be one line with no control character (a line break, an escape, a bidirectional control)",
  "#/$defs/text/pattern": "must hold no control character but line breaks and tabs (an escape, a bidirectional control)",
};

/** Problems as `field: message` lines, the field as a JSON pointer below `prefix`. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined, prefix = ""): string[] {
  const lines = (errors ?? [])
    .filter((e) => e.keyword !== "if")
    .map((e) => {
      const meaning = PATTERN_MEANINGS[e.schemaPath];
      if (meaning) return `${prefix}${e.instancePath || "/"}: ${meaning}`;
      const extra =
        e.keyword === "additionalProperties"
          ? ` '${String((e.params as { additionalProperty: string }).additionalProperty)}'`
          : e.keyword === "enum"
            ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(", ")})`
            : "";
      return `${prefix}${e.instancePath || "/"}: ${e.message ?? e.keyword}${extra}`;
    });
  return [...new Set(lines)];
}

export function checkAgainst(schema: string | object, value: unknown, prefix = ""): string[] {
  const validate = validatorFor(schema);
  return validate(value) ? [] : describeErrors(validate.errors, prefix);
}
