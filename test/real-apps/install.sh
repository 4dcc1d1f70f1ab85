#!/usr/bin/env bash
# Installs the published example applications the engine is tested against (npm run test:apps). Each app is
# built once into a cache directory that outlives the clone, keyed by what pins it: its recipe below, the files
# it is built from (requirements, lockfiles, sources) and the python3 and node it runs on. A second install of
# the same pins only links them. The links are made in LINKS (default: .venv-real-apps at the repository root):
# LINKS/<app> points at CACHE/apps/<app>-<key>.
#   usage: test/real-apps/install.sh [--check] [LINKS [APP...]]   (no APP: every app; --check: exit 1 when
#          one of them is not built yet, building nothing)
#   CACHE: $CONFORMANCE_TEST_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/customer-service-conformance
# Python apps go into venvs (their pinned frameworks differ), the Go app is built from the Go module proxy, the
# Node apps from the npm registry with a lockfile, the Rust app from crates.io and the Java app from Maven Central.
set -euo pipefail
cd "$(dirname "$0")/../.."
HERE="$PWD/test/real-apps"
CHECK=""
if [ "${1:-}" = "--check" ]; then CHECK=1; shift; fi
LINKS="${1:-.venv-real-apps}"
mkdir -p "$LINKS"
LINKS="$(cd "$LINKS" && pwd)"
CACHE="${CONFORMANCE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/customer-service-conformance}"
mkdir -p "$CACHE/apps"
# One install at a time per cache (the test files that need apps may start together).
exec 9>"$CACHE/apps/.lock"
[ -n "$CHECK" ] || flock 9
SALT="$(uname -m) $(python3 --version 2>&1) node $(node --version 2>/dev/null || echo none)"

# build APP FILE...: the cached build of app_APP for the pins its recipe and FILEs (under test/real-apps)
# give, built when missing or incomplete, linked as LINKS/APP. Older builds of the app are removed.
build() {
  local name="$1"; shift
  local key
  local recipe="app_${name//-/_}"
  key="$( { echo "$SALT"; declare -f "$recipe" pip_app npm_app sdist_files; for f in "$@"; do echo "== $f"; cat "$HERE/$f"; done; } | sha256sum | cut -c1-16)"
  local dest="$CACHE/apps/$name-$key"
  if [ -n "$CHECK" ]; then [ -f "$dest/.complete" ]; return; fi
  if [ ! -f "$dest/.complete" ]; then
    rm -rf "$dest"
    mkdir -p "$dest"
    local started=$SECONDS
    echo "install.sh: building $name (cache $dest)" >&2
    "$recipe" "$dest"
    touch "$dest/.complete"
    echo "install.sh: built $name in $((SECONDS - started)) s" >&2
    for old in "$CACHE/apps/$name"-*; do [ "$old" = "$dest" ] || rm -rf "$old"; done
  fi
  ln -sfn "$dest" "$LINKS/$name"
}

# pip_app DEST PIP-ARGS...: a venv at DEST with the packages installed.
pip_app() {
  local dest="$1"; shift
  python3 -m venv "$dest"
  "$dest/bin/pip" install --quiet --disable-pip-version-check "$@"
}

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

# An item store (FastAPI 0.81, pydantic 1): GET/POST /items/, GET/PATCH /items/{id} with integer ids.
app_items() { pip_app "$1" fastapi-example-server==0.1.1; }
# A calculator (FastAPI 0.95): POST /add, /subtract, /multiply, /divide, /power, /square_root.
app_calculator() { pip_app "$1" calculadora-fastapi-paulo-lopes==0.1.6; }
# User agreements (connexion 2.7 on Flask 1.1, SQLite): /api/user, /api/agreement, ... with every
# dependency pinned to a version of its time (the package itself pins connexion and Flask only).
app_agreement() { pip_app "$1" -r "$HERE/agreement-api.requirements.txt"; }

# The oapi-codegen petstore-expanded example on chi (Go), built from the tagged module
# github.com/deepmap/oapi-codegen v1.13.0 (its examples were still part of the main module then), with the
# OpenAPI description it is generated from (the app does not serve it).
app_petstore_chi() {
  local dest="$1"
  mkdir -p "$dest/bin"
  local GO; GO="$(command -v go || echo /usr/local/go/bin/go)"
  local module=github.com/deepmap/oapi-codegen version=v1.13.0
  GOBIN="$dest/bin" "$GO" install "$module/examples/petstore-expanded/chi@$version"
  local src; src="$("$GO" mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  cp "$src/examples/petstore-expanded/petstore-expanded.yaml" "$dest/"
  chmod u+w "$dest/petstore-expanded.yaml"
}

# A Node app from the npm registry, every package as the committed lockfile of test/real-apps/DIR pins it.
npm_app() {
  cp "$HERE/$2/package.json" "$HERE/$2/package-lock.json" "$1/"
  (cd "$1" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
}
# LoopBack 4's todo example (@loopback/example-todo 6.0.0); started by loopback-todo/start.cjs.
app_loopback_todo() { npm_app "$1" loopback-todo; }

# --- The apps of test/runs/real-apps-more.test.ts ---------------------------------------------------------

# Litestar 2.25 (ASGI, pydantic 2, SQLAlchemy 2 through Advanced Alchemy 1.12, SQLite): the authors CRUD
# example examples/litestar/litestar_service.py of the advanced-alchemy 1.12.0 sdist; every dependency pinned.
app_litestar_advanced_alchemy() {
  pip_app "$1" -r "$HERE/litestar-advanced-alchemy/requirements.txt"
  sdist_files "$1" advanced-alchemy==1.12.0 "$1/example" examples/litestar/litestar_service.py
}

# Django REST framework 3.18 with djangorestframework-jsonapi 8.1.0 (JSON:API), its blog example project (the
# sdist's example/ and tests/ apps), and the OpenAPI description drf-spectacular 0.30 makes with
# drf-spectacular-jsonapi 0.6's schema class, wired in by the two modules of drf-jsonapi-example/.
app_drf_jsonapi_example() {
  pip_app "$1" -r "$HERE/drf-jsonapi-example/requirements.txt"
  sdist_files "$1" djangorestframework-jsonapi==8.1.0 "$1/project" example tests
  cp "$HERE/drf-jsonapi-example/openapi_settings.py" "$HERE/drf-jsonapi-example/openapi_urls.py" "$1/project/"
}

# fastify-openapi-glue 4.11.4's petstore example (examples/petstore in the npm package: Fastify 5 routes made
# from the Swagger petstore's OpenAPI 3.0 description, one operation implemented), run by fastify-cli.
app_fastify_openapi_glue() { npm_app "$1" fastify-openapi-glue; }

# Dropshot 0.18.0 (Rust, Oxide): two example programs of the dropshot crate from crates.io, built against it
# with only the crates they use (dropshot/Cargo.toml, dropshot/Cargo.lock); needs cargo (Rust >= 1.88:
# edition 2024; Debian's cargo is older).
app_dropshot() {
  local dest="$1"
  local CARGO; CARGO="$(command -v cargo || echo "$HOME/.cargo/bin/cargo")"
  mkdir -p "$dest/examples" "$dest/bin"
  cp "$HERE/dropshot/Cargo.toml" "$HERE/dropshot/Cargo.lock" "$HERE/dropshot/lib.rs" "$dest/"
  local crate
  crate="$("$CARGO" metadata --locked --format-version 1 --filter-platform x86_64-unknown-linux-gnu --manifest-path "$dest/Cargo.toml" \
    | python3 -c 'import json, sys; print(next(p["manifest_path"] for p in json.load(sys.stdin)["packages"] if p["name"] == "dropshot"))')"
  cp "$(dirname "$crate")/examples/api-trait.rs" "$(dirname "$crate")/examples/custom-error.rs" "$dest/examples/"
  (cd "$dest" && "$CARGO" build --quiet --locked --example api-trait --example custom-error)
  cp "$dest/target/debug/examples/api-trait" "$dest/target/debug/examples/custom-error" "$dest/bin/"
  rm -rf "$dest/target"
}

# Quarkus 3.33.2 (JVM): the Quarkus project's own "REST Data with Panache" example (codestarts published in
# io.quarkus:quarkus-project-core-extension-codestarts on Maven Central), generated by quarkus-maven-plugin's
# create goal and built, with quarkus-rest-data/application.properties (in-memory H2). The plugin needs
# Maven 3.9 (Debian has 3.8.7): Apache Maven 3.9.11 itself is taken from Maven Central.
app_quarkus_rest_data() {
  local dest="$1" maven=3.9.11 quarkus=3.33.2
  mvn -B -q -Dstyle.color=never org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy -Dartifact="org.apache.maven:apache-maven:$maven:tar.gz:bin" \
    -DoutputDirectory="$dest" -Dmdep.stripVersion=false >/dev/null
  tar xzf "$dest/apache-maven-$maven-bin.tar.gz" -C "$dest"
  rm "$dest/apache-maven-$maven-bin.tar.gz"
  local MVN="$dest/apache-maven-$maven/bin/mvn"
  (cd "$dest" && "$MVN" -B -q -Dstyle.color=never "io.quarkus:quarkus-maven-plugin:$quarkus:create" -DprojectGroupId=org.acme -DprojectArtifactId=app \
    -Dextensions=rest-jackson,smallrye-openapi,hibernate-orm-rest-data-panache,jdbc-h2 \
    -DplatformGroupId=io.quarkus -DplatformArtifactId=quarkus-bom -DplatformVersion="$quarkus" -DquarkusRegistryClient=false >/dev/null)
  cp "$HERE/quarkus-rest-data/application.properties" "$dest/app/src/main/resources/"
  (cd "$dest/app" && "$MVN" -B -q -Dstyle.color=never package -Dmaven.test.skip=true >/dev/null)
}

# Which apps to install: the names given after LINKS, else all. The names are those the tests link to.
declare -A files=(
  [items]="" [calculator]="" [agreement]="agreement-api.requirements.txt" [petstore-chi]=""
  [loopback-todo]="loopback-todo/package.json loopback-todo/package-lock.json"
  [litestar-advanced-alchemy]="litestar-advanced-alchemy/requirements.txt"
  [drf-jsonapi-example]="drf-jsonapi-example/requirements.txt drf-jsonapi-example/openapi_settings.py drf-jsonapi-example/openapi_urls.py"
  [fastify-openapi-glue]="fastify-openapi-glue/package.json fastify-openapi-glue/package-lock.json"
  [dropshot]="dropshot/Cargo.toml dropshot/Cargo.lock dropshot/lib.rs"
  [quarkus-rest-data]="quarkus-rest-data/application.properties"
)
order=(items calculator agreement petstore-chi loopback-todo litestar-advanced-alchemy drf-jsonapi-example fastify-openapi-glue dropshot quarkus-rest-data)
shift || true
if [ "$#" -gt 0 ]; then
  wanted=("$@")
else
  wanted=("${order[@]}")
  if ! command -v cargo >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/cargo" ]; then
    # Debian's cargo (1.63 in bookworm) is too old for dropshot 0.18 anyway: rustup's is needed. The other
    # apps install without it; test/runs/real-apps-more.test.ts names what is missing.
    echo "install.sh: cargo not found: the dropshot examples are not installed" >&2
    wanted=("${wanted[@]/dropshot/}")
  fi
fi
for name in "${wanted[@]}"; do
  [ -n "$name" ] || continue
  [ -n "${files[$name]+x}" ] || { echo "install.sh: no app named $name" >&2; exit 2; }
  # shellcheck disable=SC2086 # the file lists are words
  build "$name" ${files[$name]}
done
