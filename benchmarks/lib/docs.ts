/** `scripts/docs`: regenerates docs/measurements.md and the README's figures table from docs/measurements.json. */
import { writeGeneratedDocs } from "./measurements.ts";

writeGeneratedDocs();
