import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

const COMMON = join(REPO_ROOT, "scripts/lib/common.sh");
const PINNED = /^OHA_VERSION=(\S+)$/m.exec(readFileSync(COMMON, "utf8"))?.[1];

function executable(path: string, body: string): void {
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(path, 0o755);
}

/**
 * `ensure_tool oha` in a tools folder of its own, with a cargo that records its arguments and
 * installs an oha reporting the version asked (or fails, with `failing`): the real build takes
 * minutes and is the same command.
 */
function ensureOha(tools: string, failing = false): { code: number | null; calls: string[]; stderr: string } {
  const fake = tempDir("fake-cargo");
  const log = join(fake, "calls");
  writeFileSync(log, "");
  executable(join(fake, "cargo"), [
    `echo "$*" >>"${log}"`,
    'version="" root=""',
    'while [ $# -gt 0 ]; do case "$1" in --version) version="${2#=}"; shift ;; --root) root="$2"; shift ;; esac; shift; done',
    ...(failing ? ["exit 101"] : []),
    'mkdir -p "$root/bin" && printf "#!/usr/bin/env bash\\necho oha %s\\n" "$version" >"$root/bin/oha" && chmod +x "$root/bin/oha"',
  ].join("\n"));
  const run = spawnSync("bash", ["-c", `source "${COMMON}" && ensure_tool oha`], {
    env: { PATH: `${fake}:/usr/bin:/bin`, HOME: tempDir("home"), RUNTIME_BENCH_TOOLS: tools },
    encoding: "utf8",
  });
  return { code: run.status, calls: readFileSync(log, "utf8").split("\n").filter(Boolean), stderr: run.stderr };
}

describe("built tools are pinned", () => {
  it("oha: built at its pinned version, built again when the one installed differs, left alone when it matches", () => {
    assert.match(PINNED ?? "", /^\d+\.\d+\.\d+$/, "common.sh pins an exact oha version");
    const tools = tempDir("tools");
    mkdirSync(join(tools, "bin"), { recursive: true });
    executable(join(tools, "bin", "oha"), 'echo "oha 1.4.0"');
    const rebuilt = ensureOha(tools);
    assert.equal(rebuilt.code, 0);
    assert.deepEqual(rebuilt.calls, [`install oha --version =${PINNED} --locked --force --quiet --no-default-features --features native-tls --root ${tools}`]);
    assert.match(rebuilt.stderr, new RegExp(`^runtime-bench: built oha ${PINNED} \\(\\d+ s\\)$`, "m"), "a build in the background says when it is done");
    const kept = ensureOha(tools);
    assert.deepEqual([kept.code, kept.calls], [0, []], "the pinned build is not built again");
    const failed = ensureOha(tempDir("tools-failing"), true);
    assert.equal(failed.code, 2);
    assert.match(failed.stderr.trim().split("\n").at(-1)!, new RegExp(`^runtime-bench: cargo install oha ${PINNED} failed; see .*/oha-build\\.log$`));
  });
});
