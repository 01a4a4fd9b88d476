import { taggedDriver } from "../shared/tagged.js";
import { runDatabaseApp, UNSUPPORTED } from "../shared/workload.js";

await runDatabaseApp(async () => {
  const SQL = globalThis.Bun?.SQL;
  if (SQL === undefined) throw new Error(`${UNSUPPORTED}Bun.SQL is not provided by this runtime`);
  return taggedDriver((url, connections) => new SQL({ url, max: connections, prepare: true }));
});
