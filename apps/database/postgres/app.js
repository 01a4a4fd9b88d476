import { taggedDriver } from "../shared/tagged.js";
import { loadDriver, runDatabaseApp } from "../shared/workload.js";

await runDatabaseApp(async () => {
  const { default: postgres } = await loadDriver("postgres", (specifier) => import(specifier));
  return taggedDriver((url, connections) => postgres(url, { max: connections, prepare: true, onnotice: () => {} }));
});
