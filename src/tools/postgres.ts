import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { UserError } from "../core/errors.ts";
import { cleaningUp, leavesUntilCleaned, runCommand, spawnTracked, stopGroup, tail } from "../process/children.ts";
import { toolVersion } from "./locate.ts";
import { parseStat, processStats, treeCpuS } from "./proc-stats.ts";
import { freePort, HOST } from "./server.ts";

/**
 * A PostgreSQL server for a run: started by the harness (initdb into the run's work folder, loopback
 * and a Unix socket on a free port, a fixed configuration, stopped with every process it started),
 * or one the user points at with a URL. Shared by every suite that needs a database server.
 */

const HOW_TO_INSTALL = "Debian package 'postgresql'; scripts/bench installs it";
/** The superuser initdb creates; apps and the harness connect as it (trust authentication, loopback only). */
export const SUPERUSER = "postgres";
/** PostgreSQL refuses to run as root: as root, the server runs as this user (the Debian package creates it). */
const SERVER_USER = "postgres";
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

/** The server's settings, the same on every run and recorded in every result (listen address, port and socket come on top). */
export const POSTGRES_SETTINGS: Readonly<Record<string, string>> = {
  max_connections: "100",
  shared_buffers: "128MB",
  fsync: "on",
  // TechEmpower's setting: a commit returns before its WAL reaches the disk, so the figures measure
  // drivers and runtimes rather than the disk's flush latency (a crash can lose the last commits).
  synchronous_commit: "off",
  full_page_writes: "on",
  autovacuum: "on",
  jit: "off",
  huge_pages: "off",
  timezone: "UTC",
};
export const INITDB_ARGS: readonly string[] = ["--auth=trust", `--username=${SUPERUSER}`, "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"];

/**
 * The server binaries: the folder `initdb` on PATH really lives in (a symlink on PATH points into
 * the installation), else the newest of Debian's /usr/lib/postgresql/<major>/bin.
 */
export function postgresBinDir(env: NodeJS.ProcessEnv = process.env, debianRoot = "/usr/lib/postgresql"): string | null {
  for (const dir of (env.PATH ?? "").split(":")) {
    const initdb = join(dir, "initdb");
    if (!dir || !existsSync(initdb)) continue;
    const home = dirname(realpathSync(initdb));
    if (existsSync(join(home, "postgres")) && existsSync(join(home, "psql"))) return home;
  }
  if (!existsSync(debianRoot)) return null;
  const majors = readdirSync(debianRoot)
    .filter((entry) => /^\d+$/.test(entry) && existsSync(join(debianRoot, entry, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] === undefined ? null : join(debianRoot, majors[0], "bin");
}

function binary(name: "initdb" | "postgres" | "psql"): string {
  const dir = postgresBinDir();
  if (dir === null) throw new UserError(`PostgreSQL is not installed: no initdb on PATH or in /usr/lib/postgresql/*/bin (${HOW_TO_INSTALL})`);
  return join(dir, name);
}

export function postgresVersion(): Promise<string> {
  return toolVersion(binary("postgres"), ["--version"], HOW_TO_INSTALL);
}

/** `name` is also `ensure_postgres` in scripts/lib/common.sh. */
export const POSTGRES_TOOL = { name: "postgres", version: postgresVersion } as const;

/** The server would not start, stopped answering, or refused a query: the message says which, with its log's last lines. */
export class PostgresFailure extends Error {
  override readonly name = "PostgresFailure";
}

/** A URL with its password hidden, for messages and results. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@");
  }
}

/** Checks the form of a `--postgres-url` value; a bad one is a UserError naming the option. */
export function parsePostgresUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UserError(`--postgres-url '${redactUrl(url)}': not a URL (postgres://user@host:port/database)`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new UserError(`--postgres-url '${redactUrl(url)}': the scheme must be postgres:// or postgresql://, not ${parsed.protocol}//`);
  }
  if (!parsed.hostname) throw new UserError(`--postgres-url '${redactUrl(url)}': names no host`);
  return parsed;
}

/** The same server's URL for another database. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Runs SQL through psql (the harness's own client, independent of every driver measured); returns its unaligned, tab-separated output. */
export async function psql(url: string, sql: { command: string } | { file: string }, timeoutMs = 120_000): Promise<string> {
  const input = "command" in sql ? ["-c", sql.command] : ["-f", sql.file];
  const result = await runCommand(binary("psql"), ["-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-d", url, ...input], {
    timeoutMs,
    env: { ...process.env, PGCONNECT_TIMEOUT: "10", PGAPPNAME: "runtime-bench" },
  });
  if (result.code !== 0) {
    const why = result.timedOut ? `timed out after ${timeoutMs / 1000} s` : tail(result.stderr || result.stdout || result.spawnError || "", 3);
    throw new PostgresFailure(`psql on ${redactUrl(url)}: ${why}`);
  }
  return result.stdout;
}

/** A PostgreSQL server the suites use: its URL, what the result records about it, and how to end it. */
export interface PostgresServer {
  /** The URL of one of its databases, for apps and psql. */
  url(database: string): string;
  /** The database to connect to for CREATE DATABASE and DROP DATABASE. */
  readonly maintenanceDatabase: string;
  readonly startedByHarness: boolean;
  /** What every result measured on it records: version, who started it, its settings. */
  readonly description: Readonly<Record<string, unknown>>;
  /** The server's version string (`SHOW server_version`). */
  readonly version: string;
  /** Why the server is gone, or null while it runs (always null for a server the harness did not start). */
  gone(): string | null;
  /** CPU seconds of the server and every process it started so far; NaN when the harness cannot see it. */
  cpuS(): number;
  /**
   * Resolves once the backends of clients that have disconnected are gone (at most a few seconds).
   * Sample `cpuS` after it: a live process's CPU reads in whole 10 ms ticks, so ten short backends
   * read 0 s while they live, where the postmaster, once it has reaped them, counts their exact sum.
   */
  clientsGone(): Promise<void>;
  /** Stops the server and every process it started (a server the harness did not start is left running). */
  stop(): Promise<void>;
}

async function serverVersion(url: string): Promise<string> {
  return (await psql(url, { command: "SHOW server_version" })).trim();
}

/** A server the user runs, named by `--postgres-url`; an unreachable one is a UserError. */
export async function connectPostgres(url: string): Promise<PostgresServer> {
  const parsed = parsePostgresUrl(url);
  let version: string;
  try {
    version = await serverVersion(url);
  } catch (error) {
    throw new UserError(`--postgres-url '${redactUrl(url)}': cannot connect: ${(error as Error).message.split("\n").pop()}`);
  }
  const maintenanceDatabase = decodeURIComponent(parsed.pathname.slice(1)) || "postgres";
  return {
    url: (database) => withDatabase(url, database),
    maintenanceDatabase,
    startedByHarness: false,
    version,
    description: { version, started_by_harness: false, url: redactUrl(url) },
    gone: () => null,
    cpuS: () => Number.NaN,
    clientsGone: async () => {},
    stop: async () => {},
  };
}

interface ServerUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/** The user the server runs as when the harness is root, from /etc/passwd; null when not root. */
function serverUser(): ServerUser | null {
  if (process.getuid?.() !== 0) return null;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith(`${SERVER_USER}:`));
  const [, , uid, gid] = line?.split(":") ?? [];
  if (uid === undefined || gid === undefined) {
    throw new UserError(`running as root, PostgreSQL needs the unprivileged user '${SERVER_USER}' to run as, and there is none (${HOW_TO_INSTALL})`);
  }
  return { name: SERVER_USER, uid: Number(uid), gid: Number(gid) };
}

/** Lets `user` reach `dir`: every ancestor this process owns gets execute permission for others (never read). */
async function letTraverse(dir: string): Promise<void> {
  for (let current = dirname(dir); current !== dirname(current); current = dirname(current)) {
    const info = statSync(current);
    if ((info.mode & 0o001) === 0 && info.uid === process.getuid?.()) await chmod(current, (info.mode & 0o7777) | 0o001);
  }
}

/** PIDs of every process whose working folder is `dataDir`: a PostgreSQL server and all its children chdir there. */
function processesIn(dataDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === dataDir) pids.push(Number(entry));
    } catch {
      // Gone, or not ours to look at.
    }
  }
  return pids;
}

/** A SIGKILL sent but not yet acted on: a process on a loaded machine dies only once it is scheduled. */
const KILL_PENDING = 1n << 8n;

function isRunning(pid: number): boolean {
  try {
    // A zombie still has a /proc entry; its state is Z.
    if (parseStat(readFileSync(`/proc/${pid}/stat`, "utf8")).state === "Z") return false;
    const pending = /^ShdPnd:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return pending === undefined || (BigInt(`0x${pending}`) & KILL_PENDING) === 0n;
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface StartOptions {
  /** A folder of its own in the run's work folder: the data go inside. */
  readonly dir: string;
  /** CPUs the server runs on (taskset), or undefined for any. */
  readonly cpus?: readonly number[];
  /** A fixed port instead of a free one (a taken port is then an error, not a retry). */
  readonly port?: number;
}

/** Starts a fresh server: initdb into `dir`, then postgres on loopback and a Unix socket, and waits until it accepts connections. */
export async function startPostgres(options: StartOptions): Promise<PostgresServer> {
  const user = serverUser();
  const runAs = user ? ["runuser", "-u", user.name, "--"] : [];
  const dataDir = join(options.dir, "data");
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  if (user) {
    await letTraverse(options.dir);
    for (const dir of [options.dir, dataDir]) await chown(dir, user.uid, user.gid);
  }
  const realDataDir = realpathSync(dataDir);
  // key_t is a signed 32-bit number, and /proc shows it so.
  const shmKey = statSync(realDataDir).ino | 0;
  const dataFolder = `PostgreSQL's data folder ${realDataDir}, any process working in it and its shared memory (ipcs -m, key ${shmKey})`;
  const initdbReleased = leavesUntilCleaned(dataFolder, { sharedMemory: { firstKey: shmKey, keys: KEY_PROBES } });
  const [command, ...args] = [...runAs, binary("initdb"), "-D", dataDir, ...INITDB_ARGS];
  const initdb = await runCommand(command!, args, { timeoutMs: 120_000 });
  if (initdb.code !== 0) {
    // initdb runs single-user servers of its own; one killed (a Ctrl-C) leaves its shared memory.
    await killServersIn(realDataDir, shmKey);
    initdbReleased();
    throw new PostgresFailure(`initdb failed: ${tail(initdb.stderr || initdb.stdout || initdb.spawnError || "", 3) || `killed by ${initdb.signal}`}`);
  }

  // A free port can be taken by someone else before the server binds it: try another, unless the port was fixed.
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    // A socket's path must fit in 107 bytes, which a work folder under a deep TMPDIR may not leave:
    // each launch's socket gets a short folder of its own in /tmp, removed when that server stops.
    const socketDir = await mkdtemp("/tmp/rb-pg-");
    // Each launch declares what a forced exit would leave of it; its stop, on success or not, says both are gone.
    const leaves = [leavesUntilCleaned(dataFolder, { sharedMemory: { firstKey: shmKey, keys: KEY_PROBES } }), leavesUntilCleaned(`PostgreSQL's socket folder ${socketDir}`, { folder: socketDir })];
    initdbReleased();
    if (user) await chown(socketDir, user.uid, user.gid);
    try {
      return await HarnessPostgres.launch({ runAs, dataDir: realDataDir, socketDir, port, cpus: options.cpus, shmKey, released: () => leaves.forEach((released) => released()) });
    } catch (error) {
      if (!(error instanceof PortTaken) || options.port !== undefined || attempt === 3) throw error;
    }
  }
}

/** Kills every process working in `dataDir` and removes the shared memory its servers left. */
async function killServersIn(dataDir: string, shmKey: number): Promise<void> {
  for (const pid of processesIn(dataDir)) signal(pid, "SIGKILL");
  while (processesIn(dataDir).length > 0) await sleep(10);
  await removeSharedMemory(shmKey);
}

/**
 * A server that did not shut down cleanly leaves its System V shared memory segment behind.
 * PostgreSQL keys it on the data folder's inode (the next number when that key is taken; its id is
 * also in postmaster.pid, which a killed initdb may not have written yet). Only unattached segments
 * go: every process of the data folder is gone by now, and another server's segment is attached.
 */
async function removeSharedMemory(shmKey: number): Promise<void> {
  for (const row of readFileSync("/proc/sysvipc/shm", "utf8").trim().split("\n").slice(1)) {
    const [key, shmid, , , , , attached] = row.trim().split(/\s+/).map(Number);
    if (key! >= shmKey && key! < shmKey + KEY_PROBES && attached === 0) await runCommand("ipcrm", ["-m", String(shmid)], { timeoutMs: 10_000 });
  }
}

/** How many keys after the inode PostgreSQL may have tried before it found a free one. */
const KEY_PROBES = 16;

const CLIENTS_GONE_TIMEOUT_MS = 3000;

/**
 * Children of the postmaster that serve or served a client: a live backend's title is `postgres:
 * USER DATABASE HOST(PORT) STATE`, unlike the checkpointer's or the WAL writer's; one that is exiting
 * or waits to be reaped has an empty command line, and its CPU reaches the postmaster only once reaped.
 */
function clientBackends(postmasterPid: number): number {
  let count = 0;
  for (const { pid, parsed } of processStats()) {
    if (parsed.ppid !== postmasterPid) continue;
    const command = readOrEmpty(`/proc/${pid}/cmdline`);
    if (command === "" || /^postgres: \S+ \S+ (\d+\.\d+\.\d+\.\d+|\[local\])/.test(command)) count += 1;
  }
  return count;
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return ""; // gone meanwhile
  }
}

class PortTaken extends PostgresFailure {}

interface Launch {
  readonly runAs: readonly string[];
  readonly dataDir: string;
  readonly socketDir: string;
  readonly port: number;
  readonly cpus: readonly number[] | undefined;
  /** The key of its shared memory segment: PostgreSQL starts from the data folder's inode (known while the folder still exists). */
  readonly shmKey: number;
  /** Says the server's data and socket folders need no more cleaning (for what a forced exit reports). */
  readonly released: () => void;
}

class HarnessPostgres implements PostgresServer {
  readonly maintenanceDatabase = "postgres";
  readonly startedByHarness = true;
  version = "";
  private log = "";
  private exit: string | null = null;
  private postmasterPid = -1;
  private stopping: Promise<void> | undefined;

  private constructor(
    private readonly child: ChildProcess,
    private readonly launch: Launch,
  ) {
    const keep = (chunk: string) => (this.log = (this.log + chunk).slice(-16 * 1024));
    child.stdout?.setEncoding("utf8").on("data", keep);
    child.stderr?.setEncoding("utf8").on("data", keep);
    child.once("exit", (code, signalName) => (this.exit = signalName ? `killed by ${signalName}` : `exited with code ${code}`));
    child.once("error", (error) => (this.exit = `could not start: ${error.message}`));
  }

  static async launch(launch: Launch): Promise<HarnessPostgres> {
    const settings = Object.entries({ ...POSTGRES_SETTINGS, listen_addresses: HOST }).flatMap(([name, value]) => ["-c", `${name}=${value}`]);
    const argv = [
      ...(launch.cpus ? ["taskset", "-c", launch.cpus.join(",")] : []),
      ...launch.runAs,
      binary("postgres"),
      "-D",
      launch.dataDir,
      "-p",
      String(launch.port),
      "-k",
      launch.socketDir,
      ...settings,
    ];
    const child = spawnTracked(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    const server = new HarnessPostgres(child, launch);
    try {
      await server.waitUntilReady();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  url(database: string): string {
    return `postgres://${SUPERUSER}@${HOST}:${this.launch.port}/${encodeURIComponent(database)}`;
  }

  get description(): Record<string, unknown> {
    return {
      version: this.version,
      started_by_harness: true,
      settings: { ...POSTGRES_SETTINGS, listen_addresses: HOST },
      initdb: INITDB_ARGS,
      connection: `TCP ${HOST}:${this.launch.port} (apps and harness); Unix socket in a folder of its own in /tmp`,
      run_as: this.launch.runAs.length ? SERVER_USER : "the harness's user",
      cpus: this.launch.cpus ? this.launch.cpus.join(",") : "any",
    };
  }

  gone(): string | null {
    if (this.exit !== null) return `the PostgreSQL server ${this.exit} (last log line: ${this.lastLogLine()})`;
    if (this.postmasterPid > 0 && !isRunning(this.postmasterPid)) return `the PostgreSQL server (pid ${this.postmasterPid}) is gone (last log line: ${this.lastLogLine()})`;
    return null;
  }

  cpuS(): number {
    return this.postmasterPid > 0 ? treeCpuS(this.postmasterPid) : Number.NaN;
  }

  async clientsGone(): Promise<void> {
    const deadline = Date.now() + CLIENTS_GONE_TIMEOUT_MS;
    while (this.postmasterPid > 0 && clientBackends(this.postmasterPid) > 0 && Date.now() < deadline) await sleep(5);
  }

  /**
   * Fast shutdown (SIGINT to the postmaster), then SIGKILL for whatever is left. The children
   * leave the process group (each its own session), and after a postmaster killed outright they
   * are orphans: they are found by their working folder, the data folder.
   */
  stop(): Promise<void> {
    // Every caller waits for the same stop: an interrupt's cleanup and a failing start may both call it.
    this.stopping ??= cleaningUp(this.stopAndClean());
    return this.stopping;
  }

  private async stopAndClean(): Promise<void> {
    // Only a live postmaster can shut its children down; without one they are killed at once.
    if (this.postmasterPid > 0 && isRunning(this.postmasterPid)) {
      signal(this.postmasterPid, "SIGINT");
      const deadline = Date.now() + STOP_TIMEOUT_MS;
      while (processesIn(this.launch.dataDir).length > 0 && Date.now() < deadline) await sleep(25);
    }
    await stopGroup(this.child);
    // Whatever is left goes, and so does the segment of a postmaster that died without removing it.
    // That cannot be told from here: after a Ctrl-C has killed its process group, a postmaster on a
    // loaded machine still looks alive until it is scheduled to die, and then vanishes as if it had shut down.
    await killServersIn(this.launch.dataDir, this.launch.shmKey);
    await rm(this.launch.socketDir, { recursive: true, force: true });
    this.launch.released();
  }

  private lastLogLine(): string {
    return tail(this.log, 1) || "no log output";
  }

  private async waitUntilReady(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (this.exit !== null) {
        if (/Address already in use/.test(this.log)) {
          throw new PortTaken(`PostgreSQL could not listen on ${HOST}:${this.launch.port}: the port is already taken`);
        }
        throw new PostgresFailure(`PostgreSQL ${this.exit} before accepting connections: ${tail(this.log, 3) || "no log output"}`);
      }
      // postmaster.pid: pid, data folder, start time, port, socket folder, listen address, shared memory, status.
      const pidFile = (await readFile(join(this.launch.dataDir, "postmaster.pid"), "utf8").catch(() => "")).split("\n");
      if (pidFile[7]?.trim() === "ready") {
        this.postmasterPid = Number(pidFile[0]);
        break;
      }
      if (Date.now() > deadline) throw new PostgresFailure(`PostgreSQL did not accept connections within ${READY_TIMEOUT_MS / 1000} s: ${tail(this.log, 3)}`);
      await sleep(20);
    }
    this.version = await serverVersion(this.url("postgres"));
  }
}
