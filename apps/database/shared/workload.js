// The database suite's scenarios, written once for every driver. An app supplies a driver object
// (how it opens a connection or pool and runs each query); this module plans each iteration from
// the seeded sequence outside the timed region, times every query or transaction, and takes the
// digest the harness compares with its own.
//
// params (from the harness): { scenario, engine, connection, ops, rows, prepare, concurrency, connections, stall_s }
//   connection: { url } on PostgreSQL, { file, pragmas } on SQLite
//   ops: queries (point-select, select-1000), batches (insert-batch) or transactions (update-tx) per iteration
//   rows: rows per batch or per transaction
//   prepare: "once", or "each" where an SQLite app prepares every row's INSERT anew
//   concurrency: queries in flight; connections: the pool's size on PostgreSQL

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runInProcess } from "../../inprocess/protocol.js";
import { canonicalRow, sequence, sha256, userRow, USERS } from "./data.js";

/** The harness records a driver that cannot be loaded as unsupported, by this prefix of the error. */
export const UNSUPPORTED = "unsupported: ";

/**
 * Imports a driver module through `load` (the app's own `(specifier) => import(specifier)`, so a
 * package resolves from the app's folder), or ends the app saying this runtime cannot load it and
 * why. The specifier reaches import() as a variable: Bun refuses, at load time, a literal one it
 * does not know.
 */
export async function loadDriver(specifier, load) {
  try {
    return await load(specifier);
  } catch (error) {
    throw new Error(`${UNSUPPORTED}${specifier} cannot be loaded here: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Where the harness looks for the canonical lines behind a digest (to show a difference) and the driver's facts. */
export const DIGEST_LINES = "digest-lines.txt";
export const DRIVER_FACTS = "driver.json";

function plan(scenario, draw, params) {
  const { ops } = params;
  switch (scenario) {
    case "point-select":
      return Array.from({ length: ops }, () => draw.id());
    case "select-1000":
      return Array.from({ length: ops }, () => null);
    case "insert-batch":
      return Array.from({ length: ops }, (_, batch) =>
        Array.from({ length: params.rows }, (_, row) => userRow(USERS + batch * params.rows + row + 1)),
      );
    case "update-tx":
      return Array.from({ length: ops }, () => {
        const ids = Array.from({ length: params.rows }, () => draw.id());
        const numbers = Array.from({ length: params.rows }, () => draw.number());
        return { ids, numbers };
      });
    default:
      throw new Error(`unknown scenario '${scenario}'`);
  }
}

function step(driver, db, scenario) {
  switch (scenario) {
    case "point-select":
      return (id) => driver.selectUser(db, id);
    case "select-1000":
      return () => driver.selectUsers(db);
    case "insert-batch":
      return (rows) => driver.insertUsers(db, rows);
    case "update-tx":
      return ({ ids, numbers }) => driver.updateWorlds(db, ids, numbers);
  }
}

/** The lines a digest covers: every row read, as the driver returned it (insert-batch: the rows each batch reported written). */
function digestLines(scenario, planned, results) {
  switch (scenario) {
    case "point-select":
      return results.map(canonicalRow);
    case "select-1000":
      return results.flatMap((rows) => rows.map(canonicalRow));
    case "insert-batch":
      return results.map((written) => `written=${written}`);
    case "update-tx":
      return results.flatMap((rows, tx) => rows.map((row, i) => `${canonicalRow(row)}|new=${planned[tx].numbers[i]}`));
  }
}

/**
 * Runs the scenario named in params with the driver `load()` returns. Loading happens inside the
 * protocol, so a driver this runtime cannot load is reported (as unsupported), not a crash.
 */
export function runDatabaseApp(load) {
  let driver;
  return runInProcess({
    async setup({ params }) {
      driver = await load();
      const db = await driver.open(params);
      return { db, draw: sequence(), planned: [], run: step(driver, db, params.scenario) };
    },

    async reset(state, { params }) {
      if (params.scenario === "insert-batch") await driver.deleteUsersAbove(state.db, USERS);
      state.planned = plan(params.scenario, state.draw, params);
    },

    async operation(state, { params }) {
      const { planned, run } = state;
      const results = new Array(planned.length);
      const latency = new Array(planned.length);
      let next = 0;
      // `concurrency` workers take the planned queries in order; with one, it is one query after another.
      const worker = async () => {
        while (next < planned.length) {
          const index = next++;
          const start = performance.now();
          results[index] = await run(planned[index]);
          latency[index] = performance.now() - start;
        }
      };
      // One timer per iteration (none per query): a driver that stops answering fails the run in
      // seconds with a reason, instead of hanging until the harness kills the process.
      let timer;
      const stalled = new Promise((_, reject) => {
        timer = setTimeout(() => {
          state.stalled = true;
          reject(new Error(`a query stalled: the iteration did not finish within ${params.stall_s} s`));
        }, params.stall_s * 1000);
      });
      try {
        await Promise.race([Promise.all(Array.from({ length: params.concurrency }, worker)), stalled]);
      } finally {
        clearTimeout(timer);
      }
      return { samples: { latency_ms: latency }, results };
    },

    async digest(state, { params, workDir }, out) {
      const lines = digestLines(params.scenario, state.planned, out.results);
      await writeFile(join(workDir, DIGEST_LINES), lines.join("\n") + "\n");
      await writeFile(join(workDir, DRIVER_FACTS), JSON.stringify((await driver.facts?.(state.db)) ?? {}));
      return sha256(lines.join("\n"));
    },

    async teardown(state) {
      // Closing a connection with a query still outstanding waits for that query: after a stall, the process just ends.
      if (!state.stalled) await driver.close(state.db);
    },
  });
}
