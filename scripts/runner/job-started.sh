#!/usr/bin/env bash
# The job-started hook of a benchmark machine (ACTIONS_RUNNER_HOOK_JOB_STARTED; installing it:
# docs/self-hosted-runner.md). The runner runs it before the first step of every job it takes, and
# a non-zero exit fails the job before any of the job's code runs. A root-owned copy lives on the
# machine, outside the runner's folder and outside any checkout, so no pull request, branch or
# workflow file can change what it admits.
#
# It admits a job only when all of these hold, and otherwise prints one line saying why not:
#   - the repository is the one named in job-started.conf beside this file;
#   - the event is schedule or workflow_dispatch (never a pull request, a push, a workflow_run…);
#   - the workflow is benchmark.yml, or release-watch.yml or canary.yml, the workflows that call it;
#   - that workflow file, and the ref the run is for, are the default branch's.
# A workflow started by workflow_call runs in its caller's github context: GITHUB_EVENT_NAME and
# GITHUB_WORKFLOW_REF name the caller's event and file, so a benchmark.yml job called by the
# release watch shows up as release-watch.yml on a schedule or a dispatch.
#
# job-started.conf holds two lines, read as data (never sourced):
#   repository=OWNER/runtime-bench
#   default_branch=main
set -uo pipefail

# Workflow files whose jobs may run here: benchmark.yml and its callers.
# tests/unit/workflows-security.test.ts checks this list against .github/workflows.
ADMITTED_WORKFLOWS=(benchmark.yml canary.yml release-watch.yml)
ADMITTED_EVENTS=(schedule workflow_dispatch)

conf="$(dirname "${BASH_SOURCE[0]}")/job-started.conf"

refuse() {
  printf '::error::benchmark machine refused this job: %s\n' "$1"
  exit 1
}

listed() {
  local wanted="$1" item
  shift
  for item in "$@"; do [ "$item" = "$wanted" ] && return 0; done
  return 1
}

repository="" default_branch=""
if [ -r "$conf" ]; then
  while IFS='=' read -r key value || [ -n "$key" ]; do
    case "$key" in
      repository) repository="$value" ;;
      default_branch) default_branch="$value" ;;
    esac
  done <"$conf"
fi
if [ -z "$repository" ] || [ -z "$default_branch" ]; then
  refuse "$conf must set repository= and default_branch= (docs/self-hosted-runner.md)"
fi

event="${GITHUB_EVENT_NAME:-}"
workflow_ref="${GITHUB_WORKFLOW_REF:-}"
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

printf 'benchmark machine admitted this job: %s, %s\n' "$workflow_file" "$event"
