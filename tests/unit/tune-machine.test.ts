import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import { ownTempDir as tempDir } from "../helpers/temp.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";

const SCRIPT = join(REPO_ROOT, "scripts/tune-machine");
const SETTINGS = ["governor", "turbo", "smt", "aslr", "perf-event-paranoid", "sysctl-at-boot", "swap", "isolated-cpus", "perf"];

function tune(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(SCRIPT, args, { encoding: "utf8", env: { ...process.env, ...env } });
  const lines = result.stdout.split("\n").filter(Boolean);
  const state = (name: string) => lines.find((line) => line.split(/\s+/)[1] === name)?.split(/\s+/)[0];
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, lines, state };
}

test("--check on this machine prints every setting, what it would change, and changes nothing", () => {
  const aslrBefore = readFileSync("/proc/sys/kernel/randomize_va_space", "utf8");
  const checked = tune(["--check"]);
  for (const name of SETTINGS) assert.ok(checked.state(name), `a line for ${name}:\n${checked.stdout}`);
  assert.equal(checked.state("aslr"), aslrBefore.trim() === "0" ? "ok" : "change");
  if (aslrBefore.trim() !== "0") assert.ok(checked.lines.includes(`change    aslr                         ${aslrBefore.trim()} -> 0`), checked.stdout);
  const changes = checked.lines.filter((line) => line.startsWith("change "));
  assert.equal(checked.code, changes.length > 0 ? 1 : 0, checked.stderr);
  if (changes.length > 0) assert.match(checked.stdout, new RegExp(`${changes.length} setting\\(s\\) to change`));
  assert.equal(readFileSync("/proc/sys/kernel/randomize_va_space", "utf8"), aslrBefore);
});

/**
 * An untuned 2-core SMT machine's /sys, /proc and /etc, and the commands the script calls, logged.
 * Siblings numbered as on most x86 machines (0,2 and 1,3) or side by side (0-1 and 2-3).
 */
function fakeMachine(siblings: "apart" | "adjacent" = "apart"): { root: string; env: NodeJS.ProcessEnv; log: () => string[] } {
  const root = tempDir("tune-root");
  const files: Record<string, string> = {
    "sys/devices/system/cpu/online": "0-3",
    "sys/devices/system/cpu/intel_pstate/no_turbo": "0",
    "sys/devices/system/cpu/smt/control": "on",
    "sys/devices/system/cpu/isolated": "",
    "proc/sys/kernel/randomize_va_space": "2",
    "proc/sys/kernel/perf_event_paranoid": "3",
    "proc/swaps": "Filename\tType\tSize\tUsed\tPriority\n/swapfile file 1048572 0 -2",
    "etc/default/grub": 'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT="quiet isolcpus=3"\nGRUB_CMDLINE_LINUX=""',
    "etc/fstab": "UUID=abc / ext4 errors=remount-ro 0 1\n/swapfile none swap sw 0 0",
  };
  for (const cpu of [0, 1, 2, 3]) {
    files[`sys/devices/system/cpu/cpu${cpu}/topology/thread_siblings_list`] = siblings === "apart" ? (cpu % 2 === 0 ? "0,2" : "1,3") : cpu < 2 ? "0-1" : "2-3";
    files[`sys/devices/system/cpu/cpufreq/policy${cpu}/scaling_governor`] = "powersave";
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), `${text}\n`);
  }
  const bin = tempDir("tune-bin");
  const logFile = join(bin, "calls.log");
  const stubs: Record<string, string> = {
    // One unit enabled until disabled; the rest not installed.
    systemctl: `echo "systemctl $*" >>"${logFile}"
state="${bin}/state-$2"
case "$1" in
  is-enabled) if [ -f "$state" ]; then cat "$state"; elif [ "$2" = apt-daily.timer ]; then echo enabled; else echo not-found; exit 1; fi ;;
  disable) echo disabled >"${bin}/state-$3" ;;
  enable) echo enabled >"$state" ;;
esac`,
    "update-grub": `echo "update-grub" >>"${logFile}"`,
    // Installed, so that the test never reaches apt-get.
    perf: "exit 0",
    swapoff: `echo "swapoff $*" >>"${logFile}"; head -n 1 "${root}/proc/swaps" >"${root}/proc/swaps.new" && mv "${root}/proc/swaps.new" "${root}/proc/swaps"`,
  };
  for (const [name, body] of Object.entries(stubs)) {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  const log = () => readFileSync(logFile, { encoding: "utf8", flag: "a+" }).split("\n").filter((line) => line && !/is-enabled/.test(line));
  return { root, env: { TUNE_MACHINE_ROOT: root, PATH: `${bin}:${process.env.PATH}` }, log };
}

function snapshot(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(root, path)] = readFileSync(path, "utf8");
    }
  };
  walk(root);
  return files;
}

test("applied to an untuned machine it changes each setting once; applied again it changes nothing", () => {
  const machine = fakeMachine();
  const first = tune([], machine.env);
  assert.equal(first.code, 0, first.stderr + first.stdout);
  for (const name of ["governor", "turbo", "smt", "aslr", "perf-event-paranoid", "sysctl-at-boot", "swap", "swap-at-boot", "kernel-command-line", "apt-daily.timer", "tuning-at-boot"]) {
    assert.equal(first.state(name), "changed", `${name}:\n${first.stdout}`);
  }
  const after = snapshot(machine.root);
  const cpu = "sys/devices/system/cpu";
  assert.equal(after[`${cpu}/cpufreq/policy3/scaling_governor`], "performance\n");
  assert.equal(after[`${cpu}/intel_pstate/no_turbo`], "1\n");
  assert.equal(after[`${cpu}/smt/control`], "off\n");
  assert.equal(after["proc/sys/kernel/randomize_va_space"], "0\n");
  assert.equal(after["proc/sys/kernel/perf_event_paranoid"], "1\n");
  assert.equal(after["etc/sysctl.d/90-runtime-bench.conf"], "kernel.randomize_va_space = 0\nkernel.perf_event_paranoid = 1\n");
  assert.match(after["etc/default/grub"]!, /^GRUB_CMDLINE_LINUX_DEFAULT="quiet isolcpus=1,3 nohz_full=1,3 rcu_nocbs=1,3"$/m, "the first core (CPUs 0 and 2) keeps the kernel");
  assert.match(after["etc/fstab"]!, /^# \/swapfile none swap sw 0 0 {2}# runtime-bench/m);
  assert.match(after["etc/systemd/system/runtime-bench-tune.service"]!, /ExecStart=.*scripts\/tune-machine\n/);
  assert.deepEqual(machine.log(), ["swapoff -a", "update-grub", "systemctl disable --now apt-daily.timer", "systemctl daemon-reload", "systemctl enable runtime-bench-tune.service"]);
  assert.equal(first.state("isolated-cpus"), "reboot", "isolcpus takes effect at the next boot");

  const second = tune([], machine.env);
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(second.lines.filter((line) => line.startsWith("changed")), []);
  assert.deepEqual(snapshot(machine.root), after);
  assert.equal(machine.log().length, 5, "no command ran again");

  const checked = tune(["--check"], machine.env);
  assert.equal(checked.code, 0, checked.stdout);
  assert.deepEqual(checked.lines.filter((line) => line.startsWith("change ")), []);
});

test("the script is shellcheck-clean", () => {
  // scripts/test installs shellcheck (ensure_test_tools).
  const checked = spawnSync("shellcheck", [SCRIPT], { encoding: "utf8" });
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);
});

test("the first core is kept for the kernel whichever way its siblings are numbered", () => {
  const checked = tune(["--check"], fakeMachine("adjacent").env);
  assert.equal(checked.code, 1);
  assert.ok(checked.lines.includes("change    kernel-command-line          isolcpus=3 -> isolcpus=2,3 nohz_full=2,3 rcu_nocbs=2,3"), checked.stdout);
});
