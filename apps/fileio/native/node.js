// Node's own file API is node:fs/promises: the same calls as the node-fs app.
import { runFileApp } from "../shared/driver.js";
import { nodeFsPromises } from "../node-fs/api.js";

await runFileApp(nodeFsPromises);
