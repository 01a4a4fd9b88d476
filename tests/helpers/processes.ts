import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** Processes whose working folder is under `dir`: a PostgreSQL server and all its children work in their data folder. */
export function processesUnder(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readlinkSync(`/proc/${entry}/cwd`).startsWith(dir)) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** The command lines of the processes working under `dir`: servers and apps start in their app's folder. */
export function commandsUnder(dir: string): string[] {
  return processesUnder(dir).flatMap((pid) => {
    try {
      return [readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ")];
    } catch {
      return []; // gone since
    }
  });
}
