import { runWorkersApp } from "../shared/scenarios.js";
import { workerThreadsTransport } from "./transport.js";

await runWorkersApp(workerThreadsTransport(new URL("./worker.js", import.meta.url)));
