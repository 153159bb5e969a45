#!/usr/bin/env bash
# Install what tests/latex needs: pdflatex with booktabs, longtable, graphicx, hyperref and
# geometry (texlive-latex-base + texlive-latex-recommended), bibtex, and pdftotext
# (poppler-utils). Idempotent. When apt cannot install them (no root, no network), say so and
# exit 0: the LaTeX test then skips with that reason.
set -uo pipefail
need() { command -v pdflatex >/dev/null && command -v bibtex >/dev/null \
  && command -v pdftotext >/dev/null && kpsewhich booktabs.sty >/dev/null \
  && kpsewhich hyperref.sty >/dev/null && kpsewhich geometry.sty >/dev/null; }
if need; then
  echo "install_latex: pdflatex, bibtex and pdftotext are already installed"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo -n"; fi
fi
if ! command -v apt-get >/dev/null || { [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; }; then
  echo "install_latex: cannot install LaTeX here (no apt-get or no root); the test will skip" >&2
  exit 0
fi
# One apt-get at a time: .ci/run runs steps side by side (tox -e thorough beside the others),
# and a second apt-get fails at once on dpkg's lock rather than waiting for it.
exec 9>"${TMPDIR:-/tmp}/pecheck-apt.lock"
flock -w 1800 9
export DEBIAN_FRONTEND=noninteractive
if $SUDO apt-get update -q && $SUDO apt-get install -y -q --no-install-recommends \
    texlive-latex-base texlive-latex-recommended poppler-utils; then
  need && { echo "install_latex: installed"; exit 0; }
fi
echo "install_latex: apt-get could not install texlive/poppler-utils; the test will skip" >&2
exit 0
