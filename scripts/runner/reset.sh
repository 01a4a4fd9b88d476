#!/usr/bin/env bash
# Resets a benchmark machine between two jobs (run as root by runner-service.sh, before every
# registration; docs/self-hosted-runner.md). Whatever the last job left running or wrote as the
# runner's user goes: every process of that user is stopped and killed, its home and the runner's
# work folder are wiped and made again, empty, and its files in the shared temporary folders are
# removed. Only then is the out-of-service marker (written by a refusing job-started hook) removed.
# Exits non-zero, leaving the marker, when a process survives, so no runner starts on a dirty machine.
#
#   reset.sh --user NAME|UID --home DIR --work DIR --out-of-service FILE [--tmp DIR]...
#
# --tmp defaults to /tmp, /var/tmp and /dev/shm.
set -euo pipefail

die() {
  printf 'reset: %s\n' "$1" >&2
  exit 1
}

user="" home="" work="" marker="" tmps=()
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || die "option '$1' needs a value"
  case "$1" in
    --user) user="$2" ;;
    --home) home="$2" ;;
    --work) work="$2" ;;
    --out-of-service) marker="$2" ;;
    --tmp) tmps+=("$2") ;;
    *) die "unknown option '$1'" ;;
  esac
  shift 2
done
if [ -z "$user" ] || [ -z "$home" ] || [ -z "$work" ] || [ -z "$marker" ]; then
  die "usage: reset.sh --user NAME|UID --home DIR --work DIR --out-of-service FILE [--tmp DIR]..."
fi
[ ${#tmps[@]} -gt 0 ] || tmps=(/tmp /var/tmp /dev/shm)

if [[ "$user" =~ ^[0-9]+$ ]]; then
  uid="$user" gid="$(id -g "$user" 2>/dev/null || echo "$user")"
else
  uid="$(id -u "$user")" gid="$(id -g "$user")" || die "no user '$user'"
fi
# The one check that keeps a wrong argument from killing the machine's own services.
[ "$uid" -ge 1000 ] || die "user '$user' has uid $uid: the runner's user is an unprivileged account (uid 1000 or more)"
for dir in "$home" "$work"; do
  case "$dir" in
    /*/*) ;;
    *) die "'$dir' is not a folder two levels below / at least" ;;
  esac
done

# Live processes with $uid as their real, effective, saved or file-system user (zombies own nothing).
processes_of_user() {
  local status pid uids state
  for status in /proc/[0-9]*/status; do
    pid="${status#/proc/}" pid="${pid%/status}"
    uids="$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "$status" 2>/dev/null)" || continue
    state="$(awk '/^State:/ { print $2 }' "$status" 2>/dev/null)" || continue
    [ "$state" != Z ] || continue
    case " $uids " in *" $uid "*) printf '%s\n' "$pid" ;; esac
  done
}

# Stopped first, so that none forks while the list is read; killed once all are stopped.
for round in 1 2 3 4 5 6 7 8 9 10; do
  mapfile -t pids < <(processes_of_user)
  [ ${#pids[@]} -gt 0 ] || break
  kill -STOP "${pids[@]}" 2>/dev/null || true
  mapfile -t pids < <(processes_of_user)
  kill -KILL "${pids[@]}" 2>/dev/null || true
  sleep 0.2
done
mapfile -t pids < <(processes_of_user)
[ ${#pids[@]} -eq 0 ] || die "processes of uid $uid survived $round rounds of SIGKILL: ${pids[*]}"

for dir in "$home" "$work"; do
  rm -rf --one-file-system "$dir"
  install -d -o "$uid" -g "$gid" -m 0700 "$dir"
done
for dir in "${tmps[@]}"; do
  [ -d "$dir" ] || continue
  find "$dir" -xdev -mindepth 1 -maxdepth 1 -user "$uid" -exec rm -rf --one-file-system {} +
  # What it left inside others' folders; a folder of its there that holds others' files stays.
  find "$dir" -xdev -mindepth 1 -user "$uid" -delete 2>/dev/null || true
done
rm -f "$marker"
printf 'reset: no process of uid %s left; %s and %s are empty\n' "$uid" "$home" "$work"
