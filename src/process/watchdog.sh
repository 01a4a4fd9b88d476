#!/usr/bin/env bash
# The harness's watchdog (src/process/children.ts): reads lines from the harness on stdin,
#   group PGID / ungroup PGID   a child's process group started / gone
#   path DIR / unpath DIR       a folder to remove / removed
#   shm KEY COUNT / unshm …     System V shared memory of COUNT keys from KEY (PostgreSQL's) to
#                               remove once nothing is attached / removed
# and when stdin closes (the harness was killed outright: an exit that runs its handlers kills the
# watchdog first), kills the groups left,
# then every process working in a folder left (a PostgreSQL server leaves its spawner's group and
# works in its data folder), and removes the folders and the shared memory.
# A closed terminal or a Ctrl-C is the harness's to handle; the watchdog waits for its pipe.
trap '' HUP INT
declare -A groups=() paths=() keys=()
while IFS= read -r line; do
  arg=${line#* }
  case ${line%% *} in
    group) groups[$arg]=1 ;;
    ungroup) unset -v 'groups[$arg]' ;;
    path) paths[$arg]=1 ;;
    unpath) unset -v 'paths[$arg]' ;;
    shm) keys[$arg]=1 ;;
    unshm) unset -v 'keys[$arg]' ;;
  esac
done
for group in "${!groups[@]}"; do kill -KILL -- "-$group" 2>/dev/null; done
for path in "${!paths[@]}"; do
  for proc in /proc/[0-9]*; do
    cwd=$(readlink "$proc/cwd" 2>/dev/null) || continue
    if [[ $cwd == "$path" || $cwd == "$path"/* ]]; then kill -KILL "${proc#/proc/}" 2>/dev/null; fi
  done
done
# Killed processes close their files as they go: give them a moment before their folders go.
if ((${#paths[@]} > 0)); then sleep 0.2; fi
for path in "${!paths[@]}"; do rm -rf -- "$path" 2>/dev/null || { sleep 1; rm -rf -- "$path"; }; done
for range in "${!keys[@]}"; do
  read -r first count <<< "$range"
  while read -r key shmid _ _ _ _ attached _; do
    if [[ $key =~ ^-?[0-9]+$ ]] && ((key >= first && key < first + count && attached == 0)); then ipcrm -m "$shmid" 2>/dev/null; fi
  done < /proc/sysvipc/shm
done
