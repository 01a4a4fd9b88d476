/**
 * A command interrupted while a child it started runs (npm priming the registry): run as a process
 * of its own (the interrupt handling exits it). Its save prints whether the child's process group
 * was still there when the save began, as removing the folder the child writes in would.
 */
import { installInterruptHandling, spawnTracked } from "../../src/process/children.ts";

const child = spawnTracked("sleep", ["30"], { stdio: "ignore" });
installInterruptHandling(async () => {
  let alive = true;
  try {
    process.kill(-child.pid!, 0);
  } catch {
    alive = false;
  }
  process.stdout.write(`child group alive at the save: ${alive}\n`);
});
child.once("spawn", () => process.kill(process.pid, "SIGINT"));
setInterval(() => undefined, 1000);
