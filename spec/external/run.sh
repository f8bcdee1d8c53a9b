#!/usr/bin/env bash
# Consumer matrix: installs the `npm pack` tarball into throwaway projects and runs the README's Usage example
# (its program, then its curl commands) as CommonJS + Express 4 and ESM + Express 5, and compiles it under
# strict TypeScript with NodeNext resolution. Uses the npm cache; nothing is written inside the repository.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

work="$(mktemp -d -t items-consumers-XXXXXX)"
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

section() { printf '\n==> consumer: %s\n' "$*"; }

section "npm pack"
tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
node -r ts-node/register/transpile-only spec/external/readme-blocks.ts usage > "$work/app.ts"
node -r ts-node/register/transpile-only spec/external/readme-blocks.ts usage-curl > "$work/usage.sh"
node -r ts-node/register/transpile-only spec/external/readme-blocks.ts versions-curl > "$work/versions.sh"
# better-sqlite3 is native: link the repository's build instead of compiling it once per project. Install
# scripts stay off (nothing else the consumers install needs one), or npm would rebuild the linked copy in place.
sqlite="file:$(node -p "require('path').dirname(require.resolve('better-sqlite3/package.json'))")"

# $1 project dir, $2 "commonjs" | "module", then the packages to install.
project() {
  local dir="$1" type="$2"
  shift 2
  mkdir -p "$dir"
  printf '{ "name": "consumer", "private": true, "type": "%s" }\n' "$type" > "$dir/package.json"
  (cd "$dir" && npm install --silent --no-audit --no-fund --prefer-offline --ignore-scripts "$tarball" "$@")
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

free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# Waits until $1 (a log file) says the server listens.
wait_for_log() {
  for _ in $(seq 1 100); do
    if grep -q "$2" "$1"; then return 0; fi
    sleep 0.2
  done
  echo "No \"$2\" in $1:" >&2
  cat "$1" >&2
  return 1
}

# Starts the app in $1 ($2: its file) on a free port, runs the README's curl commands against it, checks the answer.
run_usage() {
  local dir="$1" file="$2" port
  port="$(free_port)"
  (cd "$dir" && DB_FILE="$dir/app.db" PORT="$port" exec node "$file" > "$dir/server.log" 2>&1) &
  server=$!
  wait_for_log "$dir/server.log" 'Items API on'
  if ! sed "s/127.0.0.1:3000/127.0.0.1:$port/g" "$work/usage.sh" | bash > "$dir/curl.out"; then
    echo "The README's curl commands failed against $dir:" >&2
    cat "$dir/server.log" >&2
    return 1
  fi
  kill "$server"
  wait "$server" 2>/dev/null || true
  server=""
  if ! tail -n 1 "$dir/curl.out" | grep -q '"data":\[{"id":1,"title":"Hello","author":{"name":"Ada"}}\]'; then
    echo "Unexpected answers in $dir:" >&2
    cat "$dir/curl.out" "$dir/server.log" >&2
    return 1
  fi
  echo "ok: $(tail -n 1 "$dir/curl.out")"
}

section "CommonJS + Express 4"
project "$work/cjs" commonjs express@4 knex@3 "$sqlite"
transpile "$work/app.ts" "$work/cjs/app.js" commonjs
run_usage "$work/cjs" app.js

section "ESM + Express 5"
project "$work/esm" module express@5 knex@3 "$sqlite"
transpile "$work/app.ts" "$work/esm/app.js" module
run_usage "$work/esm" app.js

section "strict TypeScript, NodeNext (compile only)"
project "$work/ts" module express@5 knex@3 "$sqlite" @types/express@5 @types/node@20 typescript@5
cp "$work/app.ts" "$work/ts/app.ts"
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
  "files": ["app.ts"]
}
JSON
(cd "$work/ts" && npx --no-install tsc -p tsconfig.json)
echo "ok: app.ts compiles"

section "README versions workflow, against the demo"
port="$(free_port)"
PORT="$port" node -r ts-node/register/transpile-only examples/demo.ts > "$work/demo.log" 2>&1 &
server=$!
wait_for_log "$work/demo.log" 'demo on'
sed "s/127.0.0.1:3000/127.0.0.1:$port/g" "$work/versions.sh" | bash > "$work/versions.out"
kill "$server"
wait "$server" 2>/dev/null || true
server=""
# Both promotes (a field, then the rest after reading the new hash) answer the promoted key.
if [ "$(tail -n 2 "$work/versions.out" | tr -d '\n')" != '{"data":1}{"data":1}' ]; then
  echo "Unexpected answers from the versions workflow:" >&2
  cat "$work/versions.out" >&2
  exit 1
fi
echo "ok: both promotes answered {\"data\":1}"
