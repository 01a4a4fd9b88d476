import { SQLITE } from "../shared/sql.js";
import { sqliteDriver } from "../shared/sqlite.js";
import { loadDriver, runDatabaseApp } from "../shared/workload.js";

await runDatabaseApp(async () => {
  const { Database } = await loadDriver("bun:sqlite", (specifier) => import(specifier));
  return sqliteDriver((file) => new Database(file), SQLITE);
});
