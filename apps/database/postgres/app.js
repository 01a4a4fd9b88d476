import { taggedDriver } from "../shared/tagged.js";
import { loadDriver, runDatabaseApp } from "../shared/workload.js";

await runDatabaseApp(async () => {
  const { default: postgres } = await loadDriver("postgres", (specifier) => import(specifier));
  return taggedDriver((url, concurrency) => postgres(url, { max: concurrency, prepare: true, onnotice: () => {} }));
});
