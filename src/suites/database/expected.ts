import * as sharedData from "../../../apps/database/shared/data.js";
import { canonicalRow, sequence, sha256, USERS, userRow, type UserRow, type WorldRow } from "../../../apps/database/shared/data.js";
import { initialUsers, initialWorld, type Table } from "../../tools/database-data.ts";

export const WORKLOADS = ["point-select", "select-1000", "insert-batch", "update-tx"] as const;
export type Workload = (typeof WORKLOADS)[number];

/** What one app process is asked to do: its params minus the connection. */
export interface WorkloadParams {
  readonly scenario: Workload;
  /** Queries, batches or transactions per iteration. */
  readonly ops: number;
  /** Rows per batch (insert-batch) or per transaction (update-tx). */
  readonly rows: number;
  /** Whether the app prepares its statements once or an SQLite app prepares one anew for every row it writes. */
  readonly prepare: "once" | "each";
}

/** What the harness expects from a run, computed from the same generator and sequence as the apps. */
export interface Expected {
  /** The lines the verification run's digest covers, and their digest. */
  readonly lines: readonly string[];
  readonly digest: string;
  /** Tables as they must be after the whole run: only those the workload writes. */
  readonly tables: Partial<Record<Table, readonly (UserRow | WorldRow)[]>>;
}

/**
 * The verification run (the first of `runs` runs of the operation; warm-up and measured ones follow)
 * determines the digest; every run determines the tables. Each run draws its ids and numbers from
 * the one seeded sequence, continuing where the previous run stopped, exactly as the app does.
 */
export async function expectedRun(workload: WorkloadParams, runs: number): Promise<Expected> {
  const { ops, rows } = workload;
  const draw = sequence();
  let lines: string[];
  const tables: Expected["tables"] = {};
  switch (workload.scenario) {
    case "point-select":
      lines = Array.from({ length: ops }, () => canonicalRow(userRow(draw.id())));
      break;
    case "select-1000": {
      const page = Array.from({ length: 1000 }, (_, i) => canonicalRow(userRow(i + 1)));
      lines = Array.from({ length: ops }, () => page).flat();
      break;
    }
    case "insert-batch":
      // Every run deletes what the previous one inserted and inserts the same rows again.
      lines = Array.from({ length: ops }, () => `written=${rows}`);
      tables.users = initialUsers(sharedData, USERS + ops * rows);
      break;
    case "update-tx": {
      const world = initialWorld(sharedData);
      lines = [];
      for (let run = 0; run < runs; run++) {
        for (let tx = 0; tx < ops; tx++) {
          const ids = Array.from({ length: rows }, () => draw.id());
          const numbers = Array.from({ length: rows }, () => draw.number());
          // All reads come before the updates, as in the apps: a repeated id reads its old value twice.
          const read = ids.map((id) => ({ ...world[id - 1]! }));
          if (run === 0) read.forEach((row, i) => lines.push(`${canonicalRow(row)}|new=${numbers[i]}`));
          ids.forEach((id, i) => (world[id - 1]!.randomnumber = numbers[i]!));
        }
      }
      tables.world = world;
      break;
    }
  }
  return { lines, digest: await sha256(lines.join("\n")), tables };
}
