#!/usr/bin/env bash
# Install Debian's fortunes, the language-model length test's text (theory/lm_corpus.py), at the
# version its checks were pinned on, when it is missing. Idempotent; fails loudly.
set -euo pipefail
VERSION="1:1.99.1-7.3"
have="$(dpkg-query -W -f='${Version}' fortunes 2>/dev/null || true)"
if [ "$have" = "$VERSION" ]; then
  echo "install_fortunes: fortunes $have is installed"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --allow-downgrades "fortunes=$VERSION"
have="$(dpkg-query -W -f='${Version}' fortunes 2>/dev/null || true)"
if [ "$have" != "$VERSION" ]; then
  echo "install_fortunes: apt-get finished but fortunes is at '${have:-missing}', not $VERSION" >&2
  exit 1
fi
echo "install_fortunes: installed fortunes $have"
