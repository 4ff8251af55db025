#!/bin/sh
# The browser tests drive Debian's Chromium through playwright-core; install it when it is missing,
# with a Devanagari font so that the Nepali desk's screenshots show letters, not boxes; and `unzip`,
# which checks the export's ZIP (test/security/exports.test.ts).
set -e
need=""
[ -x /usr/bin/chromium ] || need="$need chromium"
dpkg -s fonts-lohit-deva >/dev/null 2>&1 || need="$need fonts-lohit-deva"
[ -x /usr/bin/unzip ] || need="$need unzip"
[ -z "$need" ] && exit 0
echo "installing for the browser tests:$need"
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
/usr/bin/chromium --version 2>/dev/null | grep -i chromium || true
