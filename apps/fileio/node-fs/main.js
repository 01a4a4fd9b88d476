import { runFileApp } from "../shared/driver.js";
import { nodeFsPromises } from "./api.js";

await runFileApp(nodeFsPromises);
