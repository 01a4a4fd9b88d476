#!/usr/bin/env bash
# Resets a benchmark machine between two jobs (run as root by runner-service.sh, before every
# registration; docs/self-hosted-runner.md). Whatever the last job left running or wrote as the
# runner's user goes: every process of that user is stopped and killed; its home, the runner's work
# folder and its log folder (_diag) are wiped and made again, empty; its files in the shared
# temporary folders and in the marker's folder are removed; its crontab and at jobs are removed,
# and cron and at are denied to it. Only then is the out-of-service marker (written by a refusing
# job-started hook) removed, whatever the runner's user made of its path.
#
# Every step runs even when one fails, so a reset never stops half-way: it exits non-zero, leaving
# the marker, when a process survives or something could not be removed, and the service (whose
# systemd unit restarts it) tries again, so a machine returns to service as soon as it is clean and
# never stays out of service because of something the runner's user left.
#
#   reset.sh --user NAME|UID --home DIR --work DIR --out-of-service FILE [--diag DIR]
#            [--tmp DIR]... [--cron-spool DIR] [--etc DIR]
#
# --tmp defaults to /tmp, /var/tmp and /dev/shm; --cron-spool (crontabs and at jobs) to
# /var/spool/cron; --etc (cron.deny, at.deny, cron.allow, at.allow) to /etc.
set -euo pipefail

die() {
  printf 'reset: %s\n' "$1" >&2
  exit 1
}

user="" home="" work="" marker="" diag="" tmps=() spool=/var/spool/cron etc=/etc
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || die "option '$1' needs a value"
  case "$1" in
    --user) user="$2" ;;
    --home) home="$2" ;;
    --work) work="$2" ;;
    --out-of-service) marker="$2" ;;
    --diag) diag="$2" ;;
    --tmp) tmps+=("$2") ;;
    --cron-spool) spool="$2" ;;
    --etc) etc="$2" ;;
    *) die "unknown option '$1'" ;;
  esac
  shift 2
done
if [ -z "$user" ] || [ -z "$home" ] || [ -z "$work" ] || [ -z "$marker" ]; then
  die "usage: reset.sh --user NAME|UID --home DIR --work DIR --out-of-service FILE [--diag DIR] [--tmp DIR]... [--cron-spool DIR] [--etc DIR]"
fi
[ ${#tmps[@]} -gt 0 ] || tmps=(/tmp /var/tmp /dev/shm)

if [[ "$user" =~ ^[0-9]+$ ]]; then
  uid="$user" gid="$(id -g "$user" 2>/dev/null || echo "$user")"
else
  uid="$(id -u "$user")" gid="$(id -g "$user")" || die "no user '$user'"
fi
# cron and at deny by name; a uid without one has no account they would run anything for.
name="$(id -nu "$uid" 2>/dev/null || true)"
# The one check that keeps a wrong argument from killing the machine's own services.
[ "$uid" -ge 1000 ] || die "user '$user' has uid $uid: the runner's user is an unprivileged account (uid 1000 or more)"
for dir in "$home" "$work" ${diag:+"$diag"}; do
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
failed=()
mapfile -t pids < <(processes_of_user)
[ ${#pids[@]} -eq 0 ] || failed+=("processes of uid $uid survived $round rounds of SIGKILL: ${pids[*]}")

# A step that fails is named and the next one runs all the same.
step() {
  local what="$1"
  shift
  "$@" || failed+=("$what")
}

# A folder wiped and made again, empty, the runner's, with mode $2.
renew() {
  rm -rf --one-file-system "$1" && install -d -o "$uid" -g "$gid" -m "$2" "$1"
}

# What it left in a shared folder: its entries at the top, and its files inside others' folders (a
# folder of its there that holds others' files stays).
remove_its_files() {
  [ -d "$1" ] || return 0
  find "$1" -xdev -mindepth 1 -maxdepth 1 -user "$uid" -exec rm -rf --one-file-system {} + &&
    { find "$1" -xdev -mindepth 1 -user "$uid" -delete 2>/dev/null || true; }
}

# Its name in DIR/NAME.deny, and out of DIR/NAME.allow (which, when present, cron and at read instead).
deny() {
  local list="$etc/$1"
  [ -n "$name" ] || return 0
  if [ -f "$list.allow" ]; then
    grep -vxF -- "$name" "$list.allow" >"$list.allow.reset" || true
    cat "$list.allow.reset" >"$list.allow" && rm -f "$list.allow.reset" || return 1
  fi
  grep -qxF -- "$name" "$list.deny" 2>/dev/null || printf '%s\n' "$name" >>"$list.deny"
}

# The marker's folder is the runner's to write (the hook runs as it): its entries there go first
# (before the folders below are made again, should one of them be there too). The marker itself,
# whatever it is now (a file, a folder, a link), goes last, once everything else is clean.
step "removing its files beside $marker" remove_its_files "$(dirname "$marker")"
step "wiping $home" renew "$home" 0700
step "wiping $work" renew "$work" 0700
if [ -n "$diag" ]; then step "wiping $diag" renew "$diag" 0755; fi
for dir in "${tmps[@]}"; do step "removing its files in $dir" remove_its_files "$dir"; done
# Its crontab (crontabs/NAME) and at jobs (atjobs/), each file its own.
step "removing its crontab and at jobs in $spool" remove_its_files "$spool"
step "denying cron to it in $etc" deny cron
step "denying at to it in $etc" deny at
if [ ${#failed[@]} -gt 0 ]; then
  printf 'reset: %s\n' "${failed[@]}" >&2
  die "the machine is not clean; the marker $marker stays, and the next reset tries again"
fi
rm -rf --one-file-system "$marker" || die "the marker $marker could not be removed"
printf 'reset: no process of uid %s left; %s and %s are empty\n' "$uid" "$home" "$work"
