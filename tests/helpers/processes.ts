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

/** Every process descended from `root` (children, their children…), by pid, with its command line. */
export function descendantsOf(root: number): Map<number, string> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name may hold spaces and parentheses: the fields after it follow the last ')'.
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = new Map<number, string>();
  let frontier = [root];
  while (frontier.length > 0) {
    const next = [...parents].filter(([, parent]) => frontier.includes(parent)).map(([pid]) => pid);
    for (const pid of next) {
      try {
        found.set(pid, readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " "));
      } catch {
        // gone meanwhile
      }
    }
    frontier = next;
  }
  return found;
}

/** System V shared memory segments by id, with the pid of the process that created each (`ipcs -m -p`'s cpid). */
export function sharedMemorySegments(): Map<number, number> {
  const rows = readFileSync("/proc/sysvipc/shm", "utf8").trim().split("\n").slice(1);
  return new Map(rows.map((row) => row.trim().split(/\s+/).map(Number)).map((fields) => [fields[1]!, fields[4]!]));
}
