import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

const RESET = join(REPO_ROOT, "scripts/runner/reset.sh");
/** A uid no account on a test machine has: the fake runner user needs no entry in /etc/passwd. */
const RUNNER_UID = 64_123;

/** The reset runs as root on the machine; a test machine's non-root user needs sudo without a password. */
const asRoot = (argv: string[]): string[] => (process.getuid?.() === 0 ? argv : ["sudo", "-n", ...argv]);

function processesOf(uid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const status = readFileSync(`/proc/${pid}/status`, "utf8");
        return /^State:\s+[^Z]/m.test(status) && new RegExp(`^Uid:.*\\b${uid}\\b`, "m").test(status);
      } catch {
        return false; // gone
      }
    })
    .map(Number);
}

/** Starts `script` as the fake runner user, detached from this test as a job's leftovers would be. */
function asRunner(script: string, cwd: string): void {
  const [command, ...args] = asRoot(["setpriv", `--reuid=${RUNNER_UID}`, `--regid=${RUNNER_UID}`, "--clear-groups", "setsid", "bash", "-c", script]);
  spawn(command!, args, { cwd, detached: true, stdio: "ignore" }).unref();
}

/** A folder of the fake runner user's. */
function runnerFolder(path: string): string {
  const [command, ...args] = asRoot(["install", "-d", "-o", String(RUNNER_UID), "-g", String(RUNNER_UID), "-m", "0700", path]);
  assert.equal(spawnSync(command!, args).status, 0, `made ${path}`);
  return path;
}

describe("resetting a benchmark machine between jobs", () => {
  it("leaves no process of the runner's user, an empty home and work folder, none of its temporary files, and no out-of-service marker", async () => {
    const root = tempDir("machine");
    chmodSync(root, 0o755);
    const home = runnerFolder(join(root, "home"));
    const work = runnerFolder(join(root, "work"));
    const tmp = join(root, "tmp");
    mkdirSync(tmp, { mode: 0o1777 });
    const marker = join(root, "out-of-service");
    writeFileSync(marker, "refused\n");
    // What a job leaves: a daemon that forked away from the runner's tree, a process that keeps
    // forking, files in its home (a tool on PATH, a shell start-up file), its work folder and /tmp.
    asRunner("mkdir -p .cache/runtime-bench/tools/bin && echo evil >.cache/runtime-bench/tools/bin/oha && echo 'export BASH_ENV=x' >.bashrc; (sleep 600 &) ; exec sleep 600", home);
    asRunner("while true; do sleep 600 & sleep 0.05; done", work);
    asRunner(`echo x >checkout && echo y >${tmp}/left-behind && mkdir ${tmp}/its-folder && echo z >${tmp}/its-folder/inside`, work);
    writeFileSync(join(tmp, "root-file"), "stays");
    for (let attempt = 0; attempt < 100 && (processesOf(RUNNER_UID).length < 3 || !existsSync(join(tmp, "its-folder/inside"))); attempt++) await new Promise((wait) => setTimeout(wait, 100));
    assert.ok(processesOf(RUNNER_UID).length >= 3, "the leftovers started");

    const [command, ...args] = asRoot(["bash", RESET, "--user", String(RUNNER_UID), "--home", home, "--work", work, "--out-of-service", marker, "--tmp", tmp]);
    const reset = spawnSync(command!, args, { encoding: "utf8" });
    assert.equal(reset.status, 0, reset.stderr);
    assert.match(reset.stdout, new RegExp(`no process of uid ${RUNNER_UID} left`));
    assert.deepEqual(processesOf(RUNNER_UID), []);
    assert.deepEqual(readdirSync(home), []);
    assert.deepEqual(readdirSync(work), []);
    assert.deepEqual(readdirSync(tmp), ["root-file"]);
    assert.equal(existsSync(marker), false);
  });

  it("refuses a privileged user and a shallow folder, before killing or removing anything", () => {
    const marker = join(tempDir("machine"), "out-of-service");
    writeFileSync(marker, "refused\n");
    const root = spawnSync("bash", [RESET, "--user", "0", "--home", "/home/x", "--work", "/srv/work", "--out-of-service", marker], { encoding: "utf8" });
    assert.equal(root.status, 1);
    assert.match(root.stderr, /^reset: user '0' has uid 0: the runner's user is an unprivileged account/);
    const shallow = spawnSync("bash", [RESET, "--user", String(RUNNER_UID), "--home", "/home", "--work", "/srv/work", "--out-of-service", marker], { encoding: "utf8" });
    assert.equal(shallow.status, 1);
    assert.match(shallow.stderr, /^reset: '\/home' is not a folder two levels below \/ at least/);
    assert.equal(existsSync(marker), true);
  });
});

describe("the runner service", () => {
  it("refuses to register a runner while its install holds a file the runner's user could change, before resetting anything", () => {
    const root = tempDir("machine");
    const install = join(root, "actions-runner");
    mkdirSync(join(install, "_diag"), { recursive: true });
    writeFileSync(join(install, "run.sh"), "#!/bin/bash\n", { mode: 0o755 });
    writeFileSync(join(install, ".env"), "RUNTIME_BENCH_CPUS=2-7\n");
    chmodSync(join(install, ".env"), 0o666);
    const marker = join(root, "out-of-service");
    writeFileSync(marker, "refused\n");
    const conf = join(root, "runner.conf");
    const settings = { repository: "bench-org/runtime-bench", name: "bench-x64-1", labels: "self-hosted,bench-x64-1", runner_group_id: "1", user: String(RUNNER_UID), install, home: join(root, "home"), work: join(root, "work"), hook: join(REPO_ROOT, "scripts/runner/job-started.sh"), out_of_service: marker, token: join(root, "token") };
    writeFileSync(conf, Object.entries(settings).map(([key, value]) => `${key}=${value}\n`).join(""));
    const service = spawnSync("bash", [join(REPO_ROOT, "scripts/runner/runner-service.sh"), conf], { encoding: "utf8", timeout: 60_000 });
    assert.equal(service.status, 1, service.stderr);
    // As root, the world-writable .env; as anyone else, whichever file of the install comes first.
    const flagged = process.getuid?.() === 0 ? join(install, ".env") : `${install}/`;
    assert.ok(service.stderr.startsWith(`runner-service: ${flagged}`), service.stderr);
    assert.match(service.stderr, / is not root-owned and writable by root only; the runner's user could change it\n$/);
    assert.equal(existsSync(marker), true, "nothing was reset");
  });
});
