#!/usr/bin/env bash
# The job-started hook of a benchmark machine (ACTIONS_RUNNER_HOOK_JOB_STARTED; installing it:
# docs/self-hosted-runner.md). The runner runs it before the first step of every job it takes. A
# root-owned copy lives on the machine, outside the runner's folder and outside any checkout, so no
# pull request, branch or workflow file can change what it admits.
#
# It admits a job only when all of these hold, and otherwise prints one line saying why not:
#   - the repository is the one named in job-started.conf beside this file;
#   - the event is schedule or workflow_dispatch (never a pull request, a push, a workflow_run…);
#   - the workflow is benchmark.yml, or release-watch.yml or canary.yml, the workflows that call it;
#   - that workflow file, and the ref the run is for, are the default branch's;
#   - the workflow's commit (GITHUB_WORKFLOW_SHA) is the default branch's head, or a commit whose
#     admitted workflow files are byte-identical to the head's: a re-run of an older run executes
#     that run's workflow file, which the default branch may since have fixed.
# A workflow started by workflow_call runs in its caller's github context: GITHUB_EVENT_NAME and
# GITHUB_WORKFLOW_REF name the caller's event and file, so a benchmark.yml job called by the
# release watch shows up as release-watch.yml on a schedule or a dispatch.
#
# A failed hook does not stop a job: the runner still runs every step whose `if:` holds after a
# failure (`if: always()`, or an action's default `pre-if: always()`). So a refusal also takes the
# runner out of service: it kills the Runner.Listener and Runner.Worker this hook runs under, with
# every process below them, so no later step of the job has a runner to run on, and then records the
# refusal in the out_of_service marker; the root-owned service (runner-service.sh) resets the
# machine before it registers a runner again.
#
# job-started.conf, read as data (never sourced), one key=value a line:
#   repository=OWNER/runtime-bench
#   default_branch=main
#   out_of_service=/var/lib/runtime-bench-runner/out-of-service
#   api_url=https://api.github.com        (optional; the tests point it at a fake)
set -uo pipefail

# Workflow files whose jobs may run here: benchmark.yml and its callers.
# tests/unit/workflows-security.test.ts checks this list against .github/workflows.
ADMITTED_WORKFLOWS=(benchmark.yml canary.yml release-watch.yml)
ADMITTED_EVENTS=(schedule workflow_dispatch)
# The processes of the runner that runs this hook, topmost last.
RUNNER_PROCESSES=(Runner.Worker Runner.Listener)

conf="$(dirname "${BASH_SOURCE[0]}")/job-started.conf"

# The parent of process $1 (the field after the command name, which may hold spaces and parentheses).
parent_of() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  read -r _ ppid _ <<<"$stat"
  printf '%s' "$ppid"
}

# The topmost runner process above this hook, or nothing when none is.
runner_root() {
  local pid=$$ root="" comm
  while [ "$pid" -gt 1 ]; do
    comm="$(cat "/proc/$pid/comm" 2>/dev/null)" || break
    listed "$comm" "${RUNNER_PROCESSES[@]}" && root="$pid"
    pid="$(parent_of "$pid")" || break
  done
  printf '%s' "$root"
}

# Process $1 and every process below it, each once.
tree_of() {
  local -A children=()
  local stat pid ppid
  for stat in /proc/[0-9]*/stat; do
    pid="${stat#/proc/}" pid="${pid%/stat}"
    ppid="$(parent_of "$pid")" || continue
    children[$ppid]+=" $pid"
  done
  local queue=("$1") tree=()
  while [ ${#queue[@]} -gt 0 ]; do
    pid="${queue[0]}" queue=("${queue[@]:1}")
    tree+=("$pid")
    # shellcheck disable=SC2206 # a space-separated list of pids
    queue+=(${children[$pid]:-})
  done
  printf '%s\n' "${tree[@]}"
}

# Stops the runner's whole tree, this hook last: stopped first (SIGSTOP) so that nothing forks
# while the tree is read, then killed. A process may be gone by the time it is signalled (the
# subshell that listed the tree is), so no failed kill ends this before the last one.
end_runner() {
  local root pids=() pid
  root="$(runner_root)"
  [ -n "$root" ] || return 0
  mapfile -t pids < <(tree_of "$root")
  for pid in "${pids[@]}"; do [ "$pid" = $$ ] || kill -STOP "$pid" 2>/dev/null || true; done
  mapfile -t pids < <(tree_of "$root")
  for pid in "${pids[@]}"; do [ "$pid" = $$ ] || kill -KILL "$pid" 2>/dev/null || true; done
}

# The runner runs this as `bash -e`: from here on no failing command may end it before the runner
# is gone, and a closed output (SIGPIPE) must not either. The marker comes after the kill and is
# best effort: the runner user can make its path a folder or fill the disk, and the kill is what
# takes the machine out of service.
refuse() {
  set +e
  trap '' PIPE
  printf '::error::benchmark machine refused this job: %s\n' "$1" 2>/dev/null
  end_runner
  if [ -n "${out_of_service:-}" ]; then
    printf '%s refused %s: %s\n' "$(date -u +%FT%TZ)" "${GITHUB_WORKFLOW_REF:-?} run ${GITHUB_RUN_ID:-?}" "$1" >>"$out_of_service" 2>/dev/null
  fi
  exit 1
}

listed() {
  local wanted="$1" item
  shift
  for item in "$@"; do [ "$item" = "$wanted" ] && return 0; done
  return 1
}

repository="" default_branch="" out_of_service="" api_url="https://api.github.com"
if [ -r "$conf" ]; then
  while IFS='=' read -r key value || [ -n "$key" ]; do
    case "$key" in
      repository) repository="$value" ;;
      default_branch) default_branch="$value" ;;
      out_of_service) out_of_service="$value" ;;
      api_url) api_url="$value" ;;
    esac
  done <"$conf"
fi
if [ -z "$repository" ] || [ -z "$default_branch" ] || [ -z "$out_of_service" ]; then
  refuse "$conf must set repository=, default_branch= and out_of_service= (docs/self-hosted-runner.md)"
fi

# GET from GitHub's REST API, failing on any error status.
api() {
  curl -fs --max-time 20 -H "Accept: $1" -H "X-GitHub-Api-Version: 2022-11-28" "$api_url/repos/$repository/$2"
}

# The blob of workflow file $1 at commit $2 (equal blobs are equal bytes).
workflow_blob() {
  api application/vnd.github.object "contents/.github/workflows/$1?ref=$2" | jq -er .sha
}

event="${GITHUB_EVENT_NAME:-}"
workflow_ref="${GITHUB_WORKFLOW_REF:-}"
workflow_sha="${GITHUB_WORKFLOW_SHA:-}"
prefix="$repository/.github/workflows/"
workflow_path="${workflow_ref%%@*}"
workflow_file="${workflow_path#"$prefix"}"
workflow_at="${workflow_ref#*@}"
default_ref="refs/heads/$default_branch"

[ "${GITHUB_REPOSITORY:-}" = "$repository" ] \
  || refuse "repository '${GITHUB_REPOSITORY:-}' is not $repository"
listed "$event" "${ADMITTED_EVENTS[@]}" \
  || refuse "event '$event' is not one of: ${ADMITTED_EVENTS[*]}"
[ "$workflow_file" != "$workflow_path" ] \
  || refuse "workflow '$workflow_ref' is not a workflow file of $repository"
listed "$workflow_file" "${ADMITTED_WORKFLOWS[@]}" \
  || refuse "workflow '$workflow_file' is not one of: ${ADMITTED_WORKFLOWS[*]}"
[ "$workflow_at" = "$default_ref" ] \
  || refuse "workflow file from '$workflow_at', not the default branch $default_ref"
[ "${GITHUB_REF:-}" = "$default_ref" ] \
  || refuse "run for '${GITHUB_REF:-}', not the default branch $default_ref"
[[ "$workflow_sha" =~ ^[0-9a-f]{40}$ ]] \
  || refuse "workflow commit '$workflow_sha' is not a commit"

head="$(api application/vnd.github.sha "commits/$default_branch")" \
  || refuse "the head of $default_ref could not be read from $api_url"
if [ "$workflow_sha" != "$head" ]; then
  for file in "${ADMITTED_WORKFLOWS[@]}"; do
    then_blob="$(workflow_blob "$file" "$workflow_sha")" \
      || refuse "$file at the workflow commit $workflow_sha could not be read from $api_url"
    now_blob="$(workflow_blob "$file" "$head")" \
      || refuse "$file at the head $head could not be read from $api_url"
    [ "$then_blob" = "$now_blob" ] \
      || refuse "a re-run of $workflow_sha, whose $file differs from the default branch's head $head"
  done
fi

printf 'benchmark machine admitted this job: %s, %s\n' "$workflow_file" "$event"
