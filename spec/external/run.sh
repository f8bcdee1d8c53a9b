#!/usr/bin/env bash
# Consumer matrix: the packed package as users get it, in throwaway projects. The documentation's newcomer path
# runs as written: its install lines, its Getting started program under tsx on SQLite, PostgreSQL and MariaDB
# (with the guide's knex configs) and its curl commands, the README's example, and the testing guide under jest.
# Then the program as CommonJS + Express 4, compiled under strict TypeScript with NodeNext resolution, and the
# demo as `npm start` runs it. Uses the npm cache; nothing is written inside the repository.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

work="$(mktemp -d -t items-consumers-XXXXXX)"
# Databases of this run carry a random name, and are dropped at the end.
database="items_consumer_$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
pg_url="${PG_URL:-postgres://postgres@127.0.0.1:5432}"
mysql_url="${MYSQL_URL:-mysql://root@127.0.0.1:3306}"
server=""
cleanup() {
  if [ -n "$server" ]; then kill -- "-$server" 2>/dev/null || kill "$server" 2>/dev/null || true; fi
  psql "$pg_url/postgres" -qc "drop database if exists $database" >/dev/null 2>&1 || true
  mysql_cli -e "drop database if exists $database" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

section() { printf '\n==> consumer: %s\n' "$*"; }

# The mysql client, at the server MYSQL_URL names.
mysql_cli() {
  node -e 'const u = new URL(process.argv[1]); console.log(u.hostname, u.port || 3306, decodeURIComponent(u.username))' "$mysql_url" |
    { read -r host port user && mysql -h"$host" -P"$port" -u"$user" "$@"; }
}

# Whether the database a section needs answers; with CI=true a missing one fails the run instead.
reachable() {
  if "$@" >/dev/null 2>&1; then return 0; fi
  if [ "${CI:-}" = true ]; then
    echo "Unreachable, and CI=true: $*" >&2
    exit 1
  fi
  echo "skipped: the database does not answer ($*)"
  return 1
}

block() { node -r ts-node/register/transpile-only spec/docs/doc-blocks.ts "$1"; }

section "npm pack"
tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
# better-sqlite3 is native: link the repository's build instead of compiling it once per project. Install
# scripts stay off (nothing else the consumers install needs one), or npm would rebuild the linked copy in place.
sqlite_dir="$(node -p "require('path').dirname(require.resolve('better-sqlite3/package.json'))")"
sqlite_major="$(node -p "require('better-sqlite3/package.json').version.split('.')[0]")"
npm_flags=(--silent --no-audit --no-fund --prefer-offline --ignore-scripts)

# Runs the `npm install` lines of a documentation block in $1, as written: only the package under test becomes
# the tarball, and better-sqlite3 the repository's build, once its pin is checked to be the same major version.
install_as_written() {
  local dir="$1" name="$2" line lines
  mapfile -t lines < <(block "$name")
  for line in "${lines[@]}"; do
    [ -z "$line" ] && continue
    read -ra words <<< "$line"
    if [ "${words[0]} ${words[1]}" != "npm install" ]; then
      echo "The block \"runs: $name\" holds a line that is not npm install: $line" >&2
      return 1
    fi
    local args=() word
    for word in "${words[@]:2}"; do
      case "$word" in
        express-items-router) args+=("$tarball") ;;
        better-sqlite3*)
          if [ "$word" != "better-sqlite3@$sqlite_major" ]; then
            echo "The docs install $word; the repository tests better-sqlite3 $sqlite_major" >&2
            return 1
          fi
          args+=("file:$sqlite_dir")
          ;;
        *) args+=("$word") ;;
      esac
    done
    (cd "$dir" && npm install "${npm_flags[@]}" "${args[@]}")
  done
}

# $1 project dir, $2 "commonjs" | "module", then the packages to install.
project() {
  local dir="$1" type="$2"
  shift 2
  mkdir -p "$dir"
  printf '{ "name": "consumer", "private": true, "type": "%s" }\n' "$type" > "$dir/package.json"
  (cd "$dir" && npm install "${npm_flags[@]}" "$tarball" "$@")
}

# The README's program is TypeScript; JavaScript consumers get it as TypeScript itself would emit it.
transpile() {
  node -e '
    const ts = require("typescript")
    const [source, target, kind] = process.argv.slice(1)
    const module = kind === "commonjs" ? ts.ModuleKind.CommonJS : ts.ModuleKind.ESNext
    const out = ts.transpileModule(require("fs").readFileSync(source, "utf8"), {
      compilerOptions: { module, target: ts.ScriptTarget.ES2022, esModuleInterop: true, verbatimModuleSyntax: false },
    })
    require("fs").writeFileSync(target, out.outputText)' "$@"
}

# The usage program with its knex instance (the statement `const knex = knexFactory({ ... })`) replaced by $2.
with_knex() {
  node -e '
    const fs = require("fs")
    const [program, knex] = process.argv.slice(1).map((file) => fs.readFileSync(file, "utf8"))
    const start = program.indexOf("const knex = knexFactory({")
    const end = program.indexOf("\n})\n", start)
    if (start < 0 || end < 0) throw new Error("The usage program has no knex instance to replace")
    process.stdout.write(program.slice(0, start) + knex.trimEnd() + program.slice(end + 3))' "$1" "$2"
}

free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# Waits until $1 (a log file) says $2.
wait_for_log() {
  for _ in $(seq 1 150); do
    if grep -q "$2" "$1"; then return 0; fi
    sleep 0.2
  done
  echo "No \"$2\" in $1:" >&2
  cat "$1" >&2
  return 1
}

# Starts `$3...` in $1 in its own process group, with PORT set to a free port, and waits for $2 in its log.
start_server() {
  local dir="$1" ready="$2"
  shift 2
  port="$(free_port)"
  (cd "$dir" && PORT="$port" exec setsid "$@" > "$dir/server.log" 2>&1) &
  server=$!
  wait_for_log "$dir/server.log" "$ready"
}

stop_server() {
  kill -- "-$server" 2>/dev/null || kill "$server"
  wait "$server" 2>/dev/null || true
  server=""
}

# Runs the curl block $2 against the server on $port; the output must hold each further argument.
curl_block() {
  local dir="$1" name="$2" expected
  shift 2
  block "$name" | sed "s/127.0.0.1:3000/127.0.0.1:$port/g" | (cd "$dir" && bash) > "$dir/$name.out" || {
    echo "The block \"runs: $name\" failed:" >&2
    cat "$dir/server.log" >&2
    return 1
  }
  for expected in "$@"; do
    if ! grep -qF "$expected" "$dir/$name.out"; then
      echo "No $expected in the answers to \"runs: $name\":" >&2
      cat "$dir/$name.out" "$dir/server.log" >&2
      return 1
    fi
  done
  echo "ok: $name"
}

ARTICLE='"data":[{"id":1,"title":"Hello","author":{"name":"Ada"}}]'
REFUSED='"code":"FAILED_VALIDATION"'

# The usage program ($2, in project $1) on one database: the getting-started curl commands answer as the guide says.
run_usage() {
  local dir="$1" file="$2"
  start_server "$dir" 'Items API on' npx --no-install tsx "$file"
  curl_block "$dir" usage-curl "$REFUSED" "$ARTICLE"
  stop_server
}

section "newcomer: the install lines, as written"
newcomer="$work/newcomer"
mkdir -p "$newcomer"
(cd "$newcomer" && npm init -y > /dev/null)
install_as_written "$newcomer" install
block usage > "$newcomer/app.ts"
block readme-server > "$newcomer/server.ts"

section "newcomer: Getting started on SQLite, then the README's example over its database"
export DB_FILE="$newcomer/app.db"
run_usage "$newcomer" app.ts
start_server "$newcomer" 'Items API on' npx --no-install tsx server.ts
curl_block "$newcomer" readme-curl "$ARTICLE"
stop_server
unset DB_FILE

section "newcomer: Getting started on PostgreSQL"
if reachable psql "$pg_url/postgres" -qc 'select 1'; then
  install_as_written "$newcomer" install-postgres
  psql "$pg_url/postgres" -qc "create database $database"
  block knex-postgres > "$work/knex-postgres.ts"
  with_knex "$newcomer/app.ts" "$work/knex-postgres.ts" > "$newcomer/app-postgres.ts"
  DATABASE_URL="$pg_url/$database"
  export DATABASE_URL
  run_usage "$newcomer" app-postgres.ts
fi

section "newcomer: Getting started on MariaDB"
if reachable mysql_cli -e 'select 1'; then
  install_as_written "$newcomer" install-mysql
  mysql_cli -e "create database $database character set utf8mb4"
  block knex-mysql > "$work/knex-mysql.ts"
  with_knex "$newcomer/app.ts" "$work/knex-mysql.ts" > "$newcomer/app-mysql.ts"
  DATABASE_URL="$mysql_url/$database"
  export DATABASE_URL
  run_usage "$newcomer" app-mysql.ts
fi

section "newcomer: Testing your app"
install_as_written "$newcomer" install-testing
block testing > "$newcomer/projects.spec.ts"
block testing-jest-config > "$newcomer/jest.config.js"
block testing-tsconfig > "$newcomer/tsconfig.json"
(cd "$newcomer" && TZ=UTC npx --no-install jest --ci)

section "CommonJS + Express 4"
project "$work/cjs" commonjs express@4 knex@3 "file:$sqlite_dir"
transpile "$newcomer/app.ts" "$work/cjs/app.js" commonjs
start_server "$work/cjs" 'Items API on' env DB_FILE="$work/cjs/app.db" node app.js
curl_block "$work/cjs" usage-curl "$REFUSED" "$ARTICLE"
stop_server

section "strict TypeScript, NodeNext (compile only)"
project "$work/ts" module express@5 knex@3 "file:$sqlite_dir" @types/express@5 @types/node@20 typescript@5
cp "$newcomer/app.ts" "$newcomer/server.ts" "$work/ts/"
cat > "$work/ts/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "target": "ES2022",
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "exactOptionalPropertyTypes": true,
    "noEmit": true,
    "types": ["node"]
  },
  "files": ["app.ts", "server.ts"]
}
JSON
(cd "$work/ts" && npx --no-install tsc -p tsconfig.json)
echo "ok: app.ts and server.ts compile"

section "the demo, as npm start runs it: its index, its OpenAPI document, an export, cursors, versions"
demo="$work/demo"
mkdir -p "$demo"
# The README's command, `npm start`, from the repository (its `npm ci` is .ci/run's).
[[ "$(block develop)" == "npm ci && npm start "* ]]
start_server "$demo" 'demo on' npm --prefix "$root" start
[[ "$(curl -sf "http://127.0.0.1:$port/")" == *'href="/api/openapi.json"'* ]]
[[ "$(curl -sf "http://127.0.0.1:$port/api/openapi.json")" == '{"openapi":"3.1'* ]]
echo "ok: the demo's index and OpenAPI document"
curl_block "$demo" export-curl '2,Lucky compass,"{""name"":""Bob Stone""}"'
curl_block "$demo" cursor-curl '{"data":[{"id":110},{"id":180}]'
# Last: it changes article 1.
curl_block "$demo" versions-curl '{"data":1}'
# Both promotes (a field, then the rest after reading the new hash) answer the promoted key.
[ "$(tail -n 2 "$demo/versions-curl.out" | tr -d '\n')" = '{"data":1}{"data":1}' ]
stop_server
