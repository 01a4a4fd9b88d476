# Shared by scripts/bench and scripts/test: locations, messages, and idempotent installs.
# Every install the project needs lives here, so a fresh clone on a fresh machine works.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export RUNTIME_BENCH_CACHE="${RUNTIME_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/runtime-bench}"
# Built tools live apart from the runtime cache, so pointing RUNTIME_BENCH_CACHE elsewhere never rebuilds oha.
TOOLS_ROOT="${RUNTIME_BENCH_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/runtime-bench/tools}"
export PATH="$TOOLS_ROOT/bin:$HOME/.cargo/bin:$PATH"

say() { printf 'runtime-bench: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"
  else die "need root to run '$*' (install it yourself or run as root)"; fi
}

APT_UPDATED=""
apt_install() {
  # apt-get update runs at most once per invocation, and only when something is missing.
  command -v apt-get >/dev/null 2>&1 || die "missing packages ($*) and no apt-get: install them yourself"
  if [ -z "$APT_UPDATED" ]; then
    say "updating the package index"
    as_root apt-get update -qq >/dev/null || die "apt-get update failed"
    APT_UPDATED=1
  fi
  say "installing $*"
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null \
    || die "apt-get install $* failed"
}

ensure_harness_deps() {
  # npm ci only when the lockfile changed since the last install.
  local stamp="$ROOT/node_modules/.lock-stamp"
  local want; want="$(sha256sum "$ROOT/package-lock.json" | cut -c1-64)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    say "installing harness dependencies"
    (cd "$ROOT" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null) \
      || die "npm ci failed in $ROOT"
    echo "$want" >"$stamp"
  fi
}

# One tool a suite declares (its `tools` in src/suites/<suite>/index.ts), installed by that name.
ensure_tool() {
  case "$1" in
    hyperfine) command -v hyperfine >/dev/null 2>&1 || apt_install hyperfine ;;
    gnu-time) [ -x /usr/bin/time ] || apt_install time ;;
    taskset) command -v taskset >/dev/null 2>&1 || apt_install util-linux ;;  # pins server and client to separate CPUs
    oha) ensure_oha ;;
    *) die "no install step for tool '$1' (add it to ensure_tool in scripts/lib/common.sh)" ;;
  esac
}

# Installs exactly the tools of the suites a command will run: `scripts/bench tools` names them.
ensure_suite_tools() {
  local tools
  tools="$(node --import tsx "$ROOT/src/cli/main.ts" tools "$@")" || die "could not list the suites' tools"
  command -v tar >/dev/null 2>&1 || apt_install tar  # runtimes arrive as npm tarballs
  local tool
  for tool in $tools; do ensure_tool "$tool"; done
}

# Serialises tool builds between concurrent scripts/bench runs; the lock is released on exit.
lock_tools() {
  exec 9>"$TOOLS_ROOT/.install.lock"
  flock 9
}

ensure_oha() {
  command -v oha >/dev/null 2>&1 && return 0
  lock_tools
  command -v oha >/dev/null 2>&1 && return 0
  command -v cargo >/dev/null 2>&1 || die "oha is missing and cargo is not installed to build it (install Rust, or put oha on PATH)"
  say "building oha with cargo (once; about 5 minutes on two cores, cached in $TOOLS_ROOT)"
  cargo install oha --locked --quiet --root "$TOOLS_ROOT" >"$TOOLS_ROOT/oha-build.log" 2>&1 \
    || die "cargo install oha failed; see $TOOLS_ROOT/oha-build.log"
}

# Every suite's tools, plus what the tests and benchmarks drive themselves.
ensure_test_tools() {
  ensure_suite_tools
  local missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  # actionlint checks the workflows' run scripts only when shellcheck is on PATH (CI images have it).
  command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
  # The workflows' report step writes JSON with jq (GitHub's images have it); a test runs that step.
  command -v jq >/dev/null 2>&1 || missing+=(jq)
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
  ensure_actionlint
}

ensure_actionlint() {
  command -v actionlint >/dev/null 2>&1 && return 0
  lock_tools
  command -v actionlint >/dev/null 2>&1 && return 0
  command -v go >/dev/null 2>&1 || die "actionlint is missing and go is not installed to build it"
  say "building actionlint with go (once, cached in $TOOLS_ROOT)"
  GOBIN="$TOOLS_ROOT/bin" go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.7 >"$TOOLS_ROOT/actionlint-build.log" 2>&1 \
    || die "go install actionlint failed; see $TOOLS_ROOT/actionlint-build.log"
}

mkdir -p "$TOOLS_ROOT/bin"
