import { taggedDriver } from "../shared/tagged.js";
import { loadDriver, runDatabaseApp } from "../shared/workload.js";

const { default: postgres } = await loadDriver("postgres", () => import("postgres"));

await runDatabaseApp(taggedDriver((url, concurrency) => postgres(url, { max: concurrency, prepare: true, onnotice: () => {} })));
