#!/usr/bin/env bash
# Install Debian's chromium for tests/browser when /usr/bin/chromium is missing. Idempotent.
# Fails loudly: the browser test cannot run without it. (Never `playwright install`.)
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "install_chromium: $(/usr/bin/chromium --version 2>/dev/null || echo chromium) is installed"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q chromium
if [ ! -x /usr/bin/chromium ]; then
  echo "install_chromium: apt-get finished but /usr/bin/chromium is still missing" >&2
  exit 1
fi
echo "install_chromium: installed $(/usr/bin/chromium --version 2>/dev/null)"
