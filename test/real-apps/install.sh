#!/usr/bin/env bash
# Installs the published example applications the engine is tested against, each into its own Python venv
# (their pinned frameworks differ). Idempotent: an existing, complete venv is kept.
#   usage: test/real-apps/install.sh [DIR]   (default: .venv-real-apps at the repository root)
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR="${1:-.venv-real-apps}"
install() {
  local name="$1"; shift
  if [ -x "$DIR/$name/bin/python" ] && [ -f "$DIR/$name/.complete" ]; then return; fi
  rm -rf "${DIR:?}/$name"
  python3 -m venv "$DIR/$name"
  "$DIR/$name/bin/pip" install --quiet --disable-pip-version-check "$@"
  touch "$DIR/$name/.complete"
}
# An item store (FastAPI 0.81, pydantic 1): GET/POST /items/, GET/PATCH /items/{id} with integer ids.
install items fastapi-example-server==0.1.1
# A calculator (FastAPI 0.95): POST /add, /subtract, /multiply, /divide, /power, /square_root.
install calculator calculadora-fastapi-paulo-lopes==0.1.6
