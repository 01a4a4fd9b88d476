import { taggedDriver } from "../shared/tagged.js";
import { loadDriver, runDatabaseApp } from "../shared/workload.js";

const { SQL } = await loadDriver("Bun.sql", async () => ((await import("bun")).SQL ? import("bun") : undefined));

await runDatabaseApp(taggedDriver((url, concurrency) => new SQL({ url, max: concurrency, prepare: true })));
