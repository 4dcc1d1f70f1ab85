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

# --- The apps of test/runs/real-apps-more.test.ts ---------------------------------------------------------

# Files of a published source distribution on PyPI (examples the wheel leaves out), copied into a directory:
#   sdist_files VENV NAME==VERSION DEST PATH...   (PATHs inside the sdist's top directory)
sdist_files() {
  local venv="$1" spec="$2" dest="$3"; shift 3
  local tmp; tmp="$(mktemp -d)"
  "$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --no-binary :all: -d "$tmp" "$spec"
  tar xzf "$tmp"/*.tar.gz -C "$tmp"
  mkdir -p "$dest"
  local top; top="$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -1)"
  for p in "$@"; do cp -r "$top/$p" "$dest/"; done
  rm -rf "$tmp"
}

# Litestar 2.25 (ASGI, pydantic 2, SQLAlchemy 2 through Advanced Alchemy 1.12, SQLite): the authors CRUD
# example examples/litestar/litestar_service.py of the advanced-alchemy 1.12.0 sdist; every dependency pinned.
if ! done_already litestar-advanced-alchemy; then
  rm -rf "$DIR/litestar-advanced-alchemy"
  python3 -m venv "$DIR/litestar-advanced-alchemy"
  "$DIR/litestar-advanced-alchemy/bin/pip" install --quiet --disable-pip-version-check -r "$HERE/litestar-advanced-alchemy/requirements.txt"
  sdist_files "$DIR/litestar-advanced-alchemy" advanced-alchemy==1.12.0 "$DIR/litestar-advanced-alchemy/example" examples/litestar/litestar_service.py
  touch "$DIR/litestar-advanced-alchemy/.complete"
fi

# Django REST framework 3.18 with djangorestframework-jsonapi 8.1.0 (JSON:API), its blog example project (the
# sdist's example/ and tests/ apps), and the OpenAPI description drf-spectacular 0.30 makes with
# drf-spectacular-jsonapi 0.6's schema class, wired in by the two modules of drf-jsonapi-example/.
if ! done_already drf-jsonapi-example || ! cmp -s "$HERE/drf-jsonapi-example/openapi_settings.py" "$DIR/drf-jsonapi-example/project/openapi_settings.py" \
  || ! cmp -s "$HERE/drf-jsonapi-example/openapi_urls.py" "$DIR/drf-jsonapi-example/project/openapi_urls.py"; then
  rm -rf "$DIR/drf-jsonapi-example"
  python3 -m venv "$DIR/drf-jsonapi-example"
  "$DIR/drf-jsonapi-example/bin/pip" install --quiet --disable-pip-version-check -r "$HERE/drf-jsonapi-example/requirements.txt"
  sdist_files "$DIR/drf-jsonapi-example" djangorestframework-jsonapi==8.1.0 "$DIR/drf-jsonapi-example/project" example tests
  cp "$HERE/drf-jsonapi-example/openapi_settings.py" "$HERE/drf-jsonapi-example/openapi_urls.py" "$DIR/drf-jsonapi-example/project/"
  touch "$DIR/drf-jsonapi-example/.complete"
fi

# fastify-openapi-glue 4.11.4's petstore example (examples/petstore in the npm package: Fastify 5 routes made
# from the Swagger petstore's OpenAPI 3.0 description, one operation implemented), run by fastify-cli.
if ! done_already fastify-openapi-glue || ! cmp -s "$HERE/fastify-openapi-glue/package-lock.json" "$DIR/fastify-openapi-glue/package-lock.json"; then
  rm -rf "$DIR/fastify-openapi-glue"
  mkdir -p "$DIR/fastify-openapi-glue"
  cp "$HERE/fastify-openapi-glue/package.json" "$HERE/fastify-openapi-glue/package-lock.json" "$DIR/fastify-openapi-glue/"
  (cd "$DIR/fastify-openapi-glue" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  touch "$DIR/fastify-openapi-glue/.complete"
fi

# Dropshot 0.18.0 (Rust, Oxide): two example programs of the dropshot crate from crates.io, built against it
# with only the crates they use (dropshot/Cargo.toml, dropshot/Cargo.lock); needs cargo (Rust >= 1.88).
CARGO="$(command -v cargo || echo "$HOME/.cargo/bin/cargo")"
if ! "$CARGO" --version >/dev/null 2>&1; then
  # Debian's cargo (1.63 in bookworm) is too old for dropshot 0.18 (edition 2024): rustup's is needed. The
  # other apps install without it; test/runs/real-apps-more.test.ts names what is missing.
  echo "install.sh: cargo not found: the dropshot examples are not installed" >&2
elif ! done_already dropshot || ! cmp -s "$HERE/dropshot/Cargo.lock" "$DIR/dropshot/Cargo.lock"; then
  rm -rf "$DIR/dropshot"
  mkdir -p "$DIR/dropshot/examples"
  cp "$HERE/dropshot/Cargo.toml" "$HERE/dropshot/Cargo.lock" "$HERE/dropshot/lib.rs" "$DIR/dropshot/"
  crate="$("$CARGO" metadata --locked --format-version 1 --filter-platform x86_64-unknown-linux-gnu --manifest-path "$DIR/dropshot/Cargo.toml" \
    | python3 -c 'import json, sys; print(next(p["manifest_path"] for p in json.load(sys.stdin)["packages"] if p["name"] == "dropshot"))')"
  cp "$(dirname "$crate")/examples/api-trait.rs" "$(dirname "$crate")/examples/custom-error.rs" "$DIR/dropshot/examples/"
  (cd "$DIR/dropshot" && "$CARGO" build --quiet --locked --example api-trait --example custom-error)
  mkdir -p "$DIR/dropshot/bin"
  cp "$DIR/dropshot/target/debug/examples/api-trait" "$DIR/dropshot/target/debug/examples/custom-error" "$DIR/dropshot/bin/"
  rm -rf "$DIR/dropshot/target"
  touch "$DIR/dropshot/.complete"
fi

# Quarkus 3.33.2 (JVM): the Quarkus project's own "REST Data with Panache" example (codestarts published in
# io.quarkus:quarkus-project-core-extension-codestarts on Maven Central), generated by quarkus-maven-plugin's
# create goal and built, with quarkus-rest-data/application.properties (in-memory H2). The plugin needs
# Maven 3.9 (Debian has 3.8.7): Apache Maven 3.9.11 itself is taken from Maven Central.
if ! done_already quarkus-rest-data || ! cmp -s "$HERE/quarkus-rest-data/application.properties" "$DIR/quarkus-rest-data/app/src/main/resources/application.properties"; then
  rm -rf "$DIR/quarkus-rest-data"
  mkdir -p "$DIR/quarkus-rest-data"
  maven=3.9.11
  quarkus=3.33.2
  mvn -B -q -Dstyle.color=never org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy -Dartifact="org.apache.maven:apache-maven:$maven:tar.gz:bin" \
    -DoutputDirectory="$DIR/quarkus-rest-data" -Dmdep.stripVersion=false >/dev/null
  tar xzf "$DIR/quarkus-rest-data/apache-maven-$maven-bin.tar.gz" -C "$DIR/quarkus-rest-data"
  rm "$DIR/quarkus-rest-data/apache-maven-$maven-bin.tar.gz"
  MVN="$DIR/quarkus-rest-data/apache-maven-$maven/bin/mvn"
  (cd "$DIR/quarkus-rest-data" && "$MVN" -B -q -Dstyle.color=never "io.quarkus:quarkus-maven-plugin:$quarkus:create" -DprojectGroupId=org.acme -DprojectArtifactId=app \
    -Dextensions=rest-jackson,smallrye-openapi,hibernate-orm-rest-data-panache,jdbc-h2 \
    -DplatformGroupId=io.quarkus -DplatformArtifactId=quarkus-bom -DplatformVersion="$quarkus" -DquarkusRegistryClient=false >/dev/null)
  cp "$HERE/quarkus-rest-data/application.properties" "$DIR/quarkus-rest-data/app/src/main/resources/"
  (cd "$DIR/quarkus-rest-data/app" && "$MVN" -B -q -Dstyle.color=never package -Dmaven.test.skip=true >/dev/null)
  touch "$DIR/quarkus-rest-data/.complete"
fi
