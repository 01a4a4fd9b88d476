import { UserError } from "../core/errors.ts";
import { databaseSuite } from "./database/index.ts";
import { fileioSuite } from "./fileio/index.ts";
import { httpSuite } from "./http/index.ts";
import { installSuite } from "./install/index.ts";
import { startupSuite } from "./startup/index.ts";
import type { AnySuite } from "./suite.ts";
import { websocketSuite } from "./websocket/index.ts";
import { workersSuite } from "./workers/index.ts";

/** Every suite the harness can run. A new scenario needs no entry here; a new kind of suite does. */
export const SUITES: readonly AnySuite[] = [startupSuite, httpSuite, fileioSuite, databaseSuite, websocketSuite, installSuite, workersSuite];

export function suiteFor(name: string): AnySuite {
  const suite = SUITES.find((s) => s.name === name);
  if (!suite) throw new UserError(`unknown suite '${name}': known suites are ${SUITES.map((s) => s.name).join(", ")}`);
  return suite;
}
