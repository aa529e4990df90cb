#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are missing (quick when all are
# present), with sudo unless root; then, with --pip REQUIREMENTS MODULE, the PyPI requirements
# when `import MODULE` fails. Called by `make deps`, `make spark-deps`, `make compare`.
# Usage: scripts/deps.sh [PACKAGE...] [--pip REQUIREMENTS MODULE]...
set -euo pipefail
sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
packages=() pips=()
while [ $# -gt 0 ]; do
  if [ "$1" = --pip ]; then pips+=("$2:$3"); shift 3; else packages+=("$1"); shift; fi
done
missing=""
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
for pip in "${pips[@]}"; do
  requirements=${pip%%:*} module=${pip##*:}
  python3 -c "import $module" 2>/dev/null || {
    echo "installing: $module (PyPI)"
    python3 -m pip install --quiet -r "$requirements"
  }
done
