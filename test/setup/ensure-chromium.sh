#!/bin/sh
# The browser tests drive Debian's Chromium through playwright-core; install it when it is missing.
set -e
if [ -x /usr/bin/chromium ]; then exit 0; fi
echo "installing Debian's chromium for the browser tests…"
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
/usr/bin/chromium --version 2>/dev/null | grep -i chromium
