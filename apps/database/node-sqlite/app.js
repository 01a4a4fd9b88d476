import { SQLITE } from "../shared/sql.js";
import { sqliteDriver } from "../shared/sqlite.js";
import { loadDriver, runDatabaseApp } from "../shared/workload.js";

await runDatabaseApp(async () => {
  const { DatabaseSync } = await loadDriver("node:sqlite", (specifier) => import(specifier));
  return sqliteDriver((file) => new DatabaseSync(file), SQLITE);
});
