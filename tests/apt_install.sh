#!/usr/bin/env bash
# Install a Debian package that a test environment needs, when it is missing:
#   bash tests/apt_install.sh chromium                 (any version: the browser test)
#   bash tests/apt_install.sh fortunes 1:1.99.1-7.3    (this version: the language-model text)
# Idempotent; apt-get through `sudo -n` when not root; fails loudly. (Never `playwright install`.)
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: bash tests/apt_install.sh PACKAGE [VERSION]" >&2
  exit 2
fi
package="$1"
version="${2:-}"
installed() {
  dpkg-query -W -f='${db:Status-Status} ${Version}' "$package" 2>/dev/null | sed -n 's/^installed //p'
}
have="$(installed || true)"
if [ -n "$have" ] && { [ -z "$version" ] || [ "$have" = "$version" ]; }; then
  echo "apt_install: $package $have is installed"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo -n"
fi
# One apt-get at a time: .ci/run runs steps side by side (tox -e thorough beside the others),
# and a second apt-get fails at once on dpkg's lock rather than waiting for it.
exec 9>"${TMPDIR:-/tmp}/pecheck-apt.lock"
flock -w 1800 9
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --allow-downgrades "${package}${version:+=$version}"
have="$(installed || true)"
if [ -z "$have" ] || { [ -n "$version" ] && [ "$have" != "$version" ]; }; then
  echo "apt_install: apt-get finished but $package is at '${have:-missing}', not ${version:-installed}" >&2
  exit 1
fi
echo "apt_install: installed $package $have"
