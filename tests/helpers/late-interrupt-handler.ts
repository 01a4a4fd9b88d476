/**
 * A command interrupted between making its work folder and setting the handler that removes it, as
 * a benchmark is while it makes its folder: run as a process of its own (the interrupt handling
 * exits it), with the folder to remove as its argument. The handler takes a while, as a save does.
 */
import { rm } from "node:fs/promises";
import { installInterruptHandling, setInterruptHandler } from "../../src/process/children.ts";

const folder = process.argv[2]!;
installInterruptHandling();
process.kill(process.pid, "SIGINT");
await new Promise((resolve) => setTimeout(resolve, 100));
setInterruptHandler(async () => {
  await new Promise((resolve) => setTimeout(resolve, 200));
  await rm(folder, { recursive: true, force: true });
});
// Waits as a server waiting for Ctrl-C does: only the interrupt handling ends the process.
setInterval(() => undefined, 1000);
