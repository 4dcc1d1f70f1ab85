#!/usr/bin/env bash
# Installs the published example applications the engine is tested against, each into its own directory
# under DIR: Python apps into venvs (their pinned frameworks differ), a Go app built from the Go module
# proxy, a Node app from the npm registry with a lockfile. Idempotent: an existing, complete install is kept.
#   usage: test/real-apps/install.sh [DIR]   (default: .venv-real-apps at the repository root)
set -euo pipefail
cd "$(dirname "$0")/../.."
HERE="$PWD/test/real-apps"
DIR="${1:-.venv-real-apps}"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
done_already() { [ -f "$DIR/$1/.complete" ]; }
install() {
  local name="$1"; shift
  if [ -x "$DIR/$name/bin/python" ] && done_already "$name"; then return; fi
  rm -rf "${DIR:?}/$name"
  python3 -m venv "$DIR/$name"
  "$DIR/$name/bin/pip" install --quiet --disable-pip-version-check "$@"
  touch "$DIR/$name/.complete"
}
# An item store (FastAPI 0.81, pydantic 1): GET/POST /items/, GET/PATCH /items/{id} with integer ids.
install items fastapi-example-server==0.1.1
# A calculator (FastAPI 0.95): POST /add, /subtract, /multiply, /divide, /power, /square_root.
install calculator calculadora-fastapi-paulo-lopes==0.1.6
# User agreements (connexion 2.7 on Flask 1.1, SQLite): /api/user, /api/agreement, ... with every
# dependency pinned to a version of its time (the package itself pins connexion and Flask only).
install agreement -r "$HERE/agreement-api.requirements.txt"

# The oapi-codegen petstore-expanded example on chi (Go), built from the tagged module
# github.com/deepmap/oapi-codegen v1.13.0 (its examples were still part of the main module then), with the
# OpenAPI description it is generated from (the app does not serve it).
if ! done_already petstore-chi; then
  rm -rf "$DIR/petstore-chi"
  mkdir -p "$DIR/petstore-chi/bin"
  GO="$(command -v go || echo /usr/local/go/bin/go)"
  module=github.com/deepmap/oapi-codegen
  version=v1.13.0
  GOBIN="$DIR/petstore-chi/bin" "$GO" install "$module/examples/petstore-expanded/chi@$version"
  src="$("$GO" mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  cp "$src/examples/petstore-expanded/petstore-expanded.yaml" "$DIR/petstore-chi/"
  chmod u+w "$DIR/petstore-chi/petstore-expanded.yaml"
  touch "$DIR/petstore-chi/.complete"
fi

# LoopBack 4's todo example (Node, @loopback/example-todo 6.0.0) from the npm registry, every package as
# the committed lockfile pins it; started by loopback-todo/start.cjs.
if ! done_already loopback-todo || ! cmp -s "$HERE/loopback-todo/package-lock.json" "$DIR/loopback-todo/package-lock.json"; then
  rm -rf "$DIR/loopback-todo"
  mkdir -p "$DIR/loopback-todo"
  cp "$HERE/loopback-todo/package.json" "$HERE/loopback-todo/package-lock.json" "$DIR/loopback-todo/"
  (cd "$DIR/loopback-todo" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  touch "$DIR/loopback-todo/.complete"
fi
