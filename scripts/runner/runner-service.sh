#!/usr/bin/env bash
# The root-owned service of a benchmark machine (systemd unit: docs/self-hosted-runner.md): one
# just-in-time runner registration, one job, then a reset, for ever. Runs as root; the runner runs
# as its own unprivileged user and can change nothing this script or the runner's install reads.
#
#   runner-service.sh CONF
#
# CONF (root-owned, read as data, never sourced), one key=value a line:
#   repository=OWNER/runtime-bench
#   name=bench-x64-1                               this machine's entry in .github/bench-runners.json
#   labels=self-hosted,linux,x64,bench-x64-1
#   runner_group_id=1
#   user=runner
#   install=/opt/actions-runner                    root-owned, read-only to the runner's user
#   home=/home/runner
#   work=/srv/runner-work
#   hook=/opt/runtime-bench-runner/job-started.sh  its job-started.conf beside it names out_of_service
#   out_of_service=/var/lib/runtime-bench-runner/out-of-service
#   token=/etc/runtime-bench-runner/admin-token    root-only: a token allowed to administer runners
#   org=OWNER                                      (optional) register in the organisation's runner group
set -euo pipefail
here="$(dirname "$(realpath "${BASH_SOURCE[0]}")")"

die() {
  printf 'runner-service: %s\n' "$1" >&2
  exit 1
}

declare -A conf=()
[ -r "${1:-}" ] || die "usage: runner-service.sh CONF"
while IFS='=' read -r key value || [ -n "$key" ]; do
  [ -n "$key" ] && [ "${key:0:1}" != "#" ] && conf[$key]="$value"
done <"$1"
for key in repository name labels runner_group_id user install home work hook out_of_service token; do
  [ -n "${conf[$key]:-}" ] || die "$1 must set $key="
done

# The runner's user must not be able to change what runs before or around its jobs: the install
# (run.sh, .env, .path, the binaries), the hook and its conf, this script. Everything there is
# root's and writable by root only; the install's _diag (the runner's logs) is the one exception.
check_root_owned() {
  local bad
  bad="$(find "$@" -path "${conf[install]}/_diag" -prune -o ! -type l \( ! -user root -o -perm /022 \) -print -quit)"
  [ -z "$bad" ] || die "$bad is not root-owned and writable by root only; the runner's user could change it"
}

json_labels="$(jq -cn --arg labels "${conf[labels]}" '$labels | split(",")')"
# An organisation's runner group (its selected workflows) takes organisation-level registrations.
if [ -n "${conf[org]:-}" ]; then
  jit_endpoint="orgs/${conf[org]}/actions/runners/generate-jitconfig"
else
  jit_endpoint="repos/${conf[repository]}/actions/runners/generate-jitconfig"
fi
while true; do
  check_root_owned "${conf[install]}" "$(dirname "${conf[hook]}")" "$here"
  # The reset runs before every registration; a refusing hook's marker is removed only by a reset
  # that left nothing behind, and until then no runner is registered.
  # A reset that fails (a process that survived, something left it could not remove) ends this
  # script, and systemd starts it again: the next reset tries again, and a clean one re-registers.
  "$here/reset.sh" --user "${conf[user]}" --home "${conf[home]}" --work "${conf[work]}" --diag "${conf[install]}/_diag" \
    --out-of-service "${conf[out_of_service]}"
  [ ! -e "${conf[out_of_service]}" ] || die "${conf[out_of_service]} is still there after the reset"
  jit="$(curl -fsS --max-time 60 -X POST \
    -H "Authorization: Bearer $(cat "${conf[token]}")" \
    -H "Accept: application/vnd.github+json" \
    "https://api.github.com/$jit_endpoint" \
    -d "$(jq -cn --arg name "${conf[name]}" --argjson group "${conf[runner_group_id]}" --argjson labels "$json_labels" --arg work "${conf[work]}" \
      '{name: $name, runner_group_id: $group, labels: $labels, work_folder: $work}')" |
    jq -er .encoded_jit_config)" || { sleep 30; continue; }
  # A clean environment: nothing of root's reaches the runner but what it needs.
  runuser -u "${conf[user]}" -- env -i HOME="${conf[home]}" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
    ACTIONS_RUNNER_HOOK_JOB_STARTED="${conf[hook]}" \
    "${conf[install]}/run.sh" --jitconfig "$jit" || true
  if [ -e "${conf[out_of_service]}" ]; then
    printf 'runner-service: the hook refused a job and ended the runner: %s\n' "$(tail -n 1 "${conf[out_of_service]}")" >&2
  fi
done
