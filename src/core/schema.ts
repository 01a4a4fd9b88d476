import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { SCHEMAS_DIR } from "./paths.ts";

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const compiled = new Map<string, ValidateFunction>();

/** A validator for a schema kept in schemas/ (or any schema object), compiled once. */
export function validatorFor(schema: string | object): ValidateFunction {
  const key = typeof schema === "string" ? schema : JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    const body = typeof schema === "string" ? JSON.parse(readFileSync(join(SCHEMAS_DIR, schema), "utf8")) : schema;
    validate = ajv.compile(body as object);
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
