import { SQLITE } from "../shared/sql.js";
import { loadDriver, runDatabaseApp } from "../shared/workload.js";
import { sqliteDriver } from "../shared/sqlite.js";

const { Database } = await loadDriver("bun:sqlite", () => import("bun:sqlite"));

await runDatabaseApp(sqliteDriver((file) => new Database(file), SQLITE));
