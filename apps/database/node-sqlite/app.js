import { SQLITE } from "../shared/sql.js";
import { loadDriver, runDatabaseApp } from "../shared/workload.js";
import { sqliteDriver } from "../shared/sqlite.js";

const { DatabaseSync } = await loadDriver("node:sqlite", () => import("node:sqlite"));

await runDatabaseApp(sqliteDriver((file) => new DatabaseSync(file), SQLITE));
