#!/usr/bin/env bash
# Reads the benchmark machines' organisation runner group through GitHub's REST API and fails
# loudly unless it holds the machines to this repository and to the workflows the job-started
# hook admits (docs/self-hosted-runner.md, "The runner group"). Run it after changing the group's
# settings, and from time to time: GitHub, not this repository, keeps them.
#
#   GITHUB_TOKEN=... scripts/runner/check-runner-group.sh ORG GROUP REPOSITORY [DEFAULT_BRANCH]
#
# GITHUB_TOKEN needs the organisation's "Self-hosted runners" permission (read). GITHUB_API_URL
# (default https://api.github.com) lets the tests answer with recorded responses. Prints the
# group's id, which runner-service.sh's runner_group_id must be, when everything holds.
set -euo pipefail

die() {
  printf 'check-runner-group: %s\n' "$1" >&2
  exit 1
}

[ $# -ge 3 ] || die "usage: check-runner-group.sh ORG GROUP REPOSITORY [DEFAULT_BRANCH]"
org="$1" group="$2" repository="$3" branch="${4:-main}"
api_url="${GITHUB_API_URL:-https://api.github.com}"
[ -n "${GITHUB_TOKEN:-}" ] || die "GITHUB_TOKEN is not set"

# The workflows whose jobs may reach the machines, from the default branch: the job-started hook's
# ADMITTED_WORKFLOWS, read from the hook beside this script, so that the two lists cannot drift apart.
hook="$(dirname "${BASH_SOURCE[0]}")/job-started.sh"
admitted="$(sed -n 's/^ADMITTED_WORKFLOWS=(\(.*\))$/\1/p' "$hook" 2>/dev/null)"
[ -n "$admitted" ] || die "$hook: no ADMITTED_WORKFLOWS=(...) line to read the admitted workflows from"
expected="$(for file in $admitted; do printf '%s/.github/workflows/%s@refs/heads/%s\n' "$repository" "$file" "$branch"; done | sort)"

api() {
  curl -fsS --max-time 30 -H "Authorization: Bearer $GITHUB_TOKEN" -H "Accept: application/vnd.github+json" \
    -H "X-GitHub-Api-Version: 2022-11-28" "$api_url/$1" || die "GET $api_url/$1 failed"
}

groups="$(api "orgs/$org/actions/runner-groups?per_page=100")"
found="$(jq -c --arg name "$group" '[.runner_groups[] | select(.name == $name)]' <<<"$groups")"
[ "$(jq length <<<"$found")" -eq 1 ] || die "organisation $org has no runner group named '$group'"
id="$(jq -r '.[0].id' <<<"$found")"
problems=()
[ "$(jq -r '.[0].visibility' <<<"$found")" = selected ] \
  || problems+=("its repository access is '$(jq -r '.[0].visibility' <<<"$found")', not 'selected' (Selected repositories)")
if [ "$(jq -r '.[0].visibility' <<<"$found")" = selected ]; then
  repositories="$(api "orgs/$org/actions/runner-groups/$id/repositories?per_page=100" | jq -r '.repositories[].full_name' | sort)"
  [ "$repositories" = "$repository" ] \
    || problems+=("it is open to the repositories [$(paste -sd, <<<"$repositories")], not to $repository alone")
fi
[ "$(jq -r '.[0].restricted_to_workflows' <<<"$found")" = true ] \
  || problems+=("it is not restricted to selected workflows")
workflows="$(jq -r '.[0].selected_workflows[]' <<<"$found" | sort)"
[ "$workflows" = "$expected" ] \
  || problems+=("its selected workflows are [$(paste -sd, <<<"$workflows")], not [$(paste -sd, <<<"$expected")]")
[ "$(jq -r '.[0].inherited' <<<"$found")" = false ] \
  || problems+=("it is inherited from the enterprise, whose owners can change it")

if [ ${#problems[@]} -gt 0 ]; then
  printf "check-runner-group: runner group '%s' (id %s) of %s does not hold the benchmark machines:\n" "$group" "$id" "$org" >&2
  printf '  - %s\n' "${problems[@]}" >&2
  exit 1
fi
printf "runner group '%s' (id %s): only %s, only %s\n" "$group" "$id" "$repository" "$(paste -sd' ' <<<"$expected")"
