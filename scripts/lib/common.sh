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
    oha) start_oha_build; wait_oha_build ;;
    k6) ensure_k6 ;;
    wsclient) ensure_wsclient ;;
    postgres) ensure_postgres ;;
    sqlite3) command -v sqlite3 >/dev/null 2>&1 || apt_install sqlite3 ;;  # the harness's own SQLite client
    strace) command -v strace >/dev/null 2>&1 || apt_install strace ;;  # the counting pass's system calls
    *) die "no install step for tool '$1' (add it to ensure_tool in scripts/lib/common.sh)" ;;
  esac
}

# Installs exactly the tools of the suites a command will run: `scripts/bench tools` names them.
ensure_suite_tools() {
  # Listing them starts the harness (1-2 s), so the list is kept, for one state of the suites' code
  # and folders and of the arguments.
  local key tools remembered="$TOOLS_ROOT/.suite-tools"
  # Every source a suite's tool list can come from (tools are declared beside their suite too).
  key="$( (find "$ROOT/src/suites" "$ROOT/src/tools" -name '*.ts' | sort | xargs cat; ls "$ROOT/suites"; printf '%s\n' "$@") | sha256sum | cut -c1-32)"
  if [ -f "$remembered" ] && [ "$(head -n 1 "$remembered")" = "$key" ]; then
    tools="$(tail -n +2 "$remembered")"
  else
    # Exit status 2 is bad input (an unknown suite) that `tools` has said in its one line already.
    tools="$(node --import tsx "$ROOT/src/cli/main.ts" tools "$@")" || { local status=$?; [ "$status" = 2 ] && exit 2; die "could not list the suites' tools"; }
    mkdir -p "$TOOLS_ROOT"
    # Written beside the cached folder, not in it: a cache save copying the folder at that moment
    # (two jobs under one HOME) would list the half-written file and find it gone when it copies it.
    # A parent the user may not write (a folder named by RUNTIME_BENCH_TOOLS) leaves only the folder.
    local writing
    writing="$(dirname "$TOOLS_ROOT")/.suite-tools.$$"
    { printf '%s\n%s\n' "$key" "$tools" >"$writing"; } 2>/dev/null || { writing="$remembered.$$" && printf '%s\n%s\n' "$key" "$tools" >"$writing"; }
    mv "$writing" "$remembered"
  fi
  command -v tar >/dev/null 2>&1 || apt_install tar  # runtimes arrive as npm tarballs
  if grep -qx oha <<<"$tools"; then start_oha_build; fi
  local tool
  for tool in $tools; do [ "$tool" = oha ] || ensure_tool "$tool"; done
  wait_oha_build
}

# The PostgreSQL server binaries (initdb, postgres, psql) where src/tools/postgres.ts looks for them.
ensure_postgres() {
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null && return 0
  command -v initdb >/dev/null 2>&1 && return 0
  apt_install postgresql
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || die "the postgresql package installed no /usr/lib/postgresql/*/bin/initdb"
  # The package may start a cluster of its own where services can start; the harness runs its own servers.
  if command -v pg_lsclusters >/dev/null 2>&1; then
    pg_lsclusters --no-header 2>/dev/null | while read -r version cluster _port status _rest; do
      [ "$status" = online ] && as_root pg_ctlcluster "$version" "$cluster" stop
    done
  fi
  return 0
}

# Serialises one tool's build between concurrent scripts/bench runs. The lock is file descriptor 9,
# released when the next tool's lock replaces it or on exit; oha's, held beside them, has its own.
lock_tool() {
  exec 9>"$TOOLS_ROOT/.install-$1.lock"
  flock 9
}

# Every built tool is pinned to one version: the same build on every machine and in every cache.
OHA_VERSION=1.16.0

# Whether the oha first on PATH is the pinned one (`oha --version` prints `oha 1.16.0`).
oha_pinned() {
  [ "$(oha --version 2>/dev/null)" = "oha $OHA_VERSION" ]
}

OHA_BUILD_PID=""
OHA_BUILD_STARTED=0
OHA_LOCK_FD=""

# oha's cargo build takes minutes of CPU, so it runs in the background while the other tools
# install, and wait_oha_build waits for it.
start_oha_build() {
  { [ -n "$OHA_BUILD_PID" ] || oha_pinned; } && return 0
  exec {OHA_LOCK_FD}>"$TOOLS_ROOT/.install-oha.lock"
  flock "$OHA_LOCK_FD"
  # Another run may have built it while this one waited for the lock.
  if oha_pinned; then exec {OHA_LOCK_FD}>&-; return 0; fi
  command -v cargo >/dev/null 2>&1 || die "oha $OHA_VERSION is missing and cargo is not installed to build it (install Rust, or put oha $OHA_VERSION on PATH)"
  # The load only ever goes to plain HTTP on 127.0.0.1, yet oha needs a TLS backend to compile. Its
  # default one (rustls on aws-lc) builds a C crypto library for minutes; native-tls links the
  # system's OpenSSL instead, a shorter build.
  local missing=()
  dpkg -s libssl-dev >/dev/null 2>&1 || missing+=(libssl-dev)
  command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
  say "building oha $OHA_VERSION with cargo (once, beside the other installs; cached in $TOOLS_ROOT)"
  OHA_BUILD_STARTED=$SECONDS
  cargo install oha --version "=$OHA_VERSION" --locked --force --quiet --no-default-features --features native-tls \
    --root "$TOOLS_ROOT" >"$TOOLS_ROOT/oha-build.log" 2>&1 &
  OHA_BUILD_PID=$!
  # A failed install elsewhere in the script must not leave the build running.
  trap 'kill "$OHA_BUILD_PID" 2>/dev/null' EXIT
}

wait_oha_build() {
  [ -n "$OHA_BUILD_PID" ] || return 0
  wait "$OHA_BUILD_PID" || die "cargo install oha $OHA_VERSION failed; see $TOOLS_ROOT/oha-build.log"
  OHA_BUILD_PID=""
  trap - EXIT
  exec {OHA_LOCK_FD}>&-
  oha_pinned || die "cargo installed an oha that does not report $OHA_VERSION; see $TOOLS_ROOT/oha-build.log"
  say "built oha $OHA_VERSION ($((SECONDS - OHA_BUILD_STARTED)) s)"
}

# Every suite's tools, plus what the tests and benchmarks drive themselves. oha's build starts
# first, so that these installs and the suites' other tools go on beside it.
ensure_test_tools() {
  start_oha_build
  local missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  # actionlint checks the workflows' run scripts only when shellcheck is on PATH (CI images have it).
  command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
  # The workflows' report step writes JSON with jq (GitHub's images have it); a test runs that step.
  command -v jq >/dev/null 2>&1 || missing+=(jq)
  # The arm64 smoke test runs linux-arm64 runtimes under qemu-user (correctness only, never published).
  command -v qemu-aarch64-static >/dev/null 2>&1 || missing+=(qemu-user-static)
  local arm64_lib
  for arm64_lib in libc6-arm64-cross libstdc++6-arm64-cross libgcc-s1-arm64-cross libatomic1-arm64-cross; do
    dpkg -s "$arm64_lib" >/dev/null 2>&1 || missing+=("$arm64_lib")
  done
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
  ensure_actionlint
  ensure_act
  ensure_suite_tools
}

# A tool built from a Go module into the tools cache: once, under the lock, never rebuilt when present.
go_install_once() {
  local name="$1" module="$2" duration="$3"
  command -v "$name" >/dev/null 2>&1 && return 0
  lock_tool "$name"
  command -v "$name" >/dev/null 2>&1 && return 0
  command -v go >/dev/null 2>&1 || die "$name is missing and go is not installed to build it (install Go, or put $name on PATH)"
  say "building $name with go (once${duration:+; $duration}, cached in $TOOLS_ROOT)"
  GOBIN="$TOOLS_ROOT/bin" go install "$module" >"$TOOLS_ROOT/$name-build.log" 2>&1 \
    || die "go install $name failed; see $TOOLS_ROOT/$name-build.log"
}

ensure_actionlint() {
  go_install_once actionlint github.com/rhysd/actionlint/cmd/actionlint@v1.7.7 ""
}

ensure_k6() {
  # k6 drives the broadcast delivery check and the fixed-rate latency of the websocket suite.
  go_install_once k6 go.k6.io/k6@v1.8.1 "about 1.5 minutes on two cores"
}

ensure_act() {
  # act runs the workflows locally (scripts/act, docs/act.md), which the end-to-end tests drive.
  go_install_once act github.com/nektos/act@v0.2.89 "about a minute on two cores"
}

WSCLIENT_SRC="$ROOT/src/suites/websocket/client"
wsclient_version() {
  # The source's hash: a changed client is a different version, built again; an unchanged one never is.
  (cd "$WSCLIENT_SRC" && find . -maxdepth 1 \( -name '*.go' ! -name '*_test.go' -o -name go.mod -o -name go.sum \) -print0 \
    | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)
}

ensure_wsclient() {
  # The websocket suite's compiled load client, from this repository's source.
  local want; want="wsclient $(wsclient_version) "
  case "$("$TOOLS_ROOT/bin/wsclient" -version 2>/dev/null)" in "$want"*) return 0 ;; esac
  lock_tool wsclient
  case "$("$TOOLS_ROOT/bin/wsclient" -version 2>/dev/null)" in "$want"*) return 0 ;; esac
  command -v go >/dev/null 2>&1 || die "wsclient is missing and go is not installed to build it (install Go)"
  say "building wsclient with go (cached in $TOOLS_ROOT)"
  (cd "$WSCLIENT_SRC" && go build -trimpath -ldflags "-X main.version=$(wsclient_version)" -o "$TOOLS_ROOT/bin/wsclient" .) \
    >"$TOOLS_ROOT/wsclient-build.log" 2>&1 || die "building wsclient failed; see $TOOLS_ROOT/wsclient-build.log"
}

mkdir -p "$TOOLS_ROOT/bin"
