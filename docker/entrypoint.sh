#!/bin/sh
# Arrbiter's container entrypoint (run by tini as PID 1's child), the *arr container conventions:
# - the data directory: DATA_DIR (default /data); when /data is not a mounted volume and /config is,
#   /config (said in a log line); the embedded database with no volume at all is a loud warning;
# - started as root (the image's default): gives the data directory to PUID:PGID (default 1000:1000,
#   the image's `node` user) only when something in it belongs to someone else, then runs the command
#   as that user through setpriv (util-linux);
# - started as another user (`--user`, Kubernetes `runAsUser`): changes nothing and runs the command.
# Mounts are read from /proc/self/mountinfo. Log lines are JSON, like the server's.
set -eu

MOUNTINFO="${ARRBITER_MOUNTINFO:-/proc/self/mountinfo}"

# $1 = pino level (30 info, 40 warn, 50 error), $2 = message.
log() {
  msg="$(printf '%s' "$2" | sed 's/\\/\\\\/g; s/"/\\"/g')"
  printf '{"level":%s,"time":%s,"pid":%s,"context":"Entrypoint","msg":"%s"}\n' "$1" "$(date +%s%3N)" "$$" "$msg"
}

# A block on standard error that a person reading `docker logs` cannot miss.
frame() {
  printf '\n%s\n' '=============================================================================' >&2
  for line in "$@"; do printf '  %s\n' "$line" >&2; done
  printf '%s\n\n' '=============================================================================' >&2
}

# The mount point that holds path $1 (the longest one that contains it) and its file system type.
mount_of() {
  [ -r "$MOUNTINFO" ] || { echo "? ?"; return; }
  awk -v path="$1" '
    function unescape(s) { gsub(/\\040/, " ", s); gsub(/\\011/, "\t", s); gsub(/\\134/, "\\", s); return s }
    {
      point = unescape($5)
      for (i = 7; i <= NF && $i != "-"; i++) {}
      inside = (point == "/" || path == point || index(path, point "/") == 1)
      if (inside && length(point) >= best) { best = length(point); found = point " " $(i + 1) }
    }
    END { print (found == "" ? "? ?" : found) }' "$MOUNTINFO"
}

is_mount() { [ "$(mount_of "$1" | cut -d' ' -f1)" = "$1" ]; }

DATA_DIR="${DATA_DIR:-/data}"
if [ "$DATA_DIR" = /data ] && ! is_mount /data && is_mount /config; then
  DATA_DIR=/config
  log 30 "/data is not a mounted volume and /config is: the data directory is /config (DATA_DIR=/config)"
fi
export DATA_DIR

if [ -z "${DATABASE_URL:-}" ]; then
  found="$(mount_of "$DATA_DIR")"
  point="${found% *}"
  fstype="${found#* }"
  if [ "$point" = / ]; then
    log 40 "No volume is mounted at $DATA_DIR: the database, the generated secret key and the first password are lost when this container is removed. Mount one: -v arrbiter-data:/data"
    frame "WARNING: no volume is mounted at $DATA_DIR." \
      "Everything Arrbiter keeps (its database, secret key, administrators) is LOST" \
      "when this container is removed. Run it with a volume, e.g.:" \
      "  docker run -v arrbiter-data:/data ...   (or a volume at /config)"
  elif [ "$fstype" = tmpfs ]; then
    log 40 "$DATA_DIR is on a tmpfs ($point): the database and the generated secret key are lost when the container stops. Mount a volume there instead"
  fi
fi

# PostgreSQL's initdb looks its user up in the passwd database: an id without an entry (PUID=1234,
# --user 1234, OpenShift's random uids) gets one through nss_wrapper, in /tmp, /etc staying read-only.
with_passwd_entry() {
  getent passwd "$1" >/dev/null && return 0
  if ! dir="$(mktemp -d /tmp/arrbiter-passwd.XXXXXX 2>/dev/null)"; then
    log 40 "uid $1 has no passwd entry and /tmp is not writable: the embedded PostgreSQL cannot start (mount a tmpfs at /tmp)"
    return 0
  fi
  { cat /etc/passwd; echo "arrbiter:x:$1:$2:Arrbiter:/tmp:/usr/sbin/nologin"; } >"$dir/passwd"
  { cat /etc/group; getent group "$2" >/dev/null || echo "arrbiter:x:$2:"; } >"$dir/group"
  chmod 0755 "$dir"
  chmod 0644 "$dir/passwd" "$dir/group"
  export NSS_WRAPPER_PASSWD="$dir/passwd" NSS_WRAPPER_GROUP="$dir/group" LD_PRELOAD=/usr/local/lib/libnss_wrapper.so
}

uid="$(id -u)"
gid="$(id -g)"
if [ "$uid" != 0 ]; then
  # --user or the pod's runAsUser chose the user: no root, nothing to give away.
  if [ -n "${PUID:-}${PGID:-}" ] && [ "${PUID:-$uid}:${PGID:-$gid}" != "$uid:$gid" ]; then
    log 40 "PUID/PGID are ignored: the container was started as $uid:$gid (--user, or the pod's runAsUser), which cannot change user or ownership. Drop --user to use PUID/PGID"
  fi
  with_passwd_entry "$uid" "$gid"
  exec "$@"
fi

PUID="${PUID:-1000}"
PGID="${PGID:-1000}"
case "$PUID:$PGID" in
  *[!0-9:]* | :* | *:)
    log 50 "PUID and PGID must be numeric ids (got PUID=$PUID PGID=$PGID)"
    exit 1
    ;;
esac
if [ "$PUID" = 0 ]; then
  log 40 "PUID=0: running as root (the embedded database then runs as an OS user postgres)"
  exec "$@"
fi

# Only when something belongs to someone else: a large data directory is walked once, not rewritten.
if mkdir -p "$DATA_DIR" 2>/dev/null &&
  [ -n "$(find "$DATA_DIR" \( ! -user "$PUID" -o ! -group "$PGID" \) -print -quit 2>/dev/null)" ]; then
  if chown -R "$PUID:$PGID" "$DATA_DIR" 2>/dev/null; then
    log 30 "Gave $DATA_DIR to $PUID:$PGID (PUID/PGID)"
  else
    log 40 "Could not give $DATA_DIR to $PUID:$PGID (PUID/PGID): chown it on the host, or run with --user set to its owner"
  fi
fi
with_passwd_entry "$PUID" "$PGID"
exec setpriv --reuid="$PUID" --regid="$PGID" --clear-groups -- "$@"
