#!/bin/sh
# The cluster tests and `npm run cluster` start a throwaway PostgreSQL and Redis on loopback
# (server/cluster/services.ts), and Caddy in front of the processes, from Debian's packages; install them
# when they are missing. Only the binaries are needed: Debian's own clusters and services stay stopped.
set -e
need=""
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || need="$need postgresql"
command -v redis-server >/dev/null 2>&1 || need="$need redis-server"
command -v caddy >/dev/null 2>&1 || need="$need caddy"
[ -z "$need" ] && exit 0
echo "installing for the cluster tests:$need"
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
# Another apt-get may hold the dpkg lock for a while: wait for it rather than fail.
try() {
  n=0
  until "$@"; do
    n=$((n + 1))
    [ "$n" -ge 30 ] && return 1
    echo "apt busy, retrying in 10 s ($n/30)"
    sleep 10
  done
}
try $SUDO apt-get update -qq
# policy-rc.d 101: the packages' post-install must not start Debian's own servers (5432, 6379, 80).
if [ -w /usr/sbin ] && [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
try $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=120 $need >/dev/null
ls /usr/lib/postgresql/*/bin/initdb >/dev/null
redis-server --version
caddy version
