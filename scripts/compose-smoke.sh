#!/usr/bin/env bash
# Starts the real compose.yaml on this Docker engine and checks the deployment
# works: Redis healthy, the App ready on its published port, two workers
# healthy, /metrics on both kinds of process, a signed `@selfdebug fix`
# delivery enqueued by the App into Redis and taken by a worker (GitHub is the
# tests' stand-in, on this host), and the queue's data surviving a Redis crash
# (SIGKILL) and a new container on the same volume. Always removes what it
# started. Needs node_modules (npm ci): the stand-in runs with tsx.
#
#   bash scripts/compose-smoke.sh
#
# Offline: the base images are stand-ins built from Debian's mirror and this
# host's Node (docker/base-images/build-offline.sh, cached by tag), and the App's
# image is built with the host's network so `npm ci` reaches the registry (an
# engine with no bridge gives a build none). Everything else runs as an operator
# runs it: the same file, services, health checks, volume and network.
set -euo pipefail
cd "$(dirname "$0")/.."

project=${SELFDEBUG_SMOKE_PROJECT:-selfdebug-smoke}
node_image=${SELFDEBUG_SMOKE_NODE_IMAGE:-selfdebug-base/node:20-bookworm-slim}
redis_image=${SELFDEBUG_SMOKE_REDIS_IMAGE:-selfdebug-base/redis:7-bookworm}
app_image=${SELFDEBUG_SMOKE_APP_IMAGE:-selfdebug-app:smoke}
# Every wait is bounded by this; generous, because a loaded machine is slow, not broken.
bound=${SELFDEBUG_SMOKE_SECONDS:-180}
workers=2

started_at=$SECONDS
step() { printf '\n== [%3ds] %s\n' $((SECONDS - started_at)) "$*"; }
ok() { printf '   ok: %s\n' "$*"; }
# fd 3: the script's stderr, which a failure reaches even from inside a silenced wait.
exec 3>&2
fail() {
  printf '   FAILED: %s\n' "$*" >&3
  exit 1
}

if docker compose version >/dev/null 2>&1; then compose=(docker compose); else compose=(docker-compose); fi
for tool in docker debootstrap openssl curl; do
  command -v "$tool" >/dev/null || fail "$tool is not installed"
done

work=$(mktemp -d)
# Docker creates the workers' bind-mounted TMPDIR when it is missing; remove it again then.
tmpdir_existed=0
github_pid=
[ -e /var/tmp/selfdebug ] && tmpdir_existed=1
dc() { "${compose[@]}" --project-name "$project" --env-file "$work/compose.env" --file compose.yaml "$@"; }

teardown() {
  local status=$?
  trap - EXIT INT TERM
  if [ "$status" != 0 ] && [ -f "$work/compose.env" ]; then
    printf '\n== logs (the smoke failed)\n' >&2
    dc ps >&2 || true
    dc logs --no-color --tail=80 >&2 || true
    if [ -f "$work/github.log" ]; then
      printf '\n== the GitHub stand-in\n' >&2
      tail -n 40 "$work/github.log" >&2
    fi
  fi
  if [ -f "$work/compose.env" ]; then
    step "down -v"
    dc down --volumes --remove-orphans --timeout 20 >/dev/null 2>&1 || true
  fi
  # Whatever compose missed (it was interrupted mid-way): the project's containers, volumes, network.
  docker ps -aq --filter "label=com.docker.compose.project=$project" | xargs -r docker rm -f >/dev/null 2>&1 || true
  docker volume ls -q --filter "label=com.docker.compose.project=$project" | xargs -r docker volume rm >/dev/null 2>&1 || true
  docker network ls -q --filter "label=com.docker.compose.project=$project" | xargs -r docker network rm >/dev/null 2>&1 || true
  if [ -n "$github_pid" ]; then
    kill "$github_pid" 2>/dev/null || true
    wait "$github_pid" 2>/dev/null || true
  fi
  [ "$tmpdir_existed" = 1 ] || rmdir /var/tmp/selfdebug 2>/dev/null || true
  rm -rf "$work"
  if [ "$status" = 0 ]; then
    printf '\ncompose smoke passed in %ds\n' $((SECONDS - started_at))
  else
    printf '\ncompose smoke FAILED after %ds\n' $((SECONDS - started_at)) >&2
  fi
  exit "$status"
}
trap teardown EXIT
trap 'exit 130' INT TERM

# Polls "$@" once a second until it succeeds or $bound seconds pass.
wait_for() {
  local what=$1 deadline=$((SECONDS + bound))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || fail "$what: not within ${bound}s"
    sleep 1
  done
}

health() { docker inspect --format '{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$1"; }
name() { docker inspect --format '{{.Name}}' "$1" | sed 's|^/||'; }
healthy() {
  local id
  for id in "$@"; do
    case "$(health "$id")" in
      healthy) ;;
      unhealthy) fail "$(name "$id") is unhealthy: $(docker inspect --format '{{json .State.Health.Log}}' "$id" | tail -c 600)" ;;
      *) return 1 ;;
    esac
  done
}
# An HTTP GET from inside a container (the images have node, not curl): prints status and body.
get_inside() {
  docker exec "$1" node -e "fetch(process.argv[1]).then(async (r) => { console.log(r.status); console.log(await r.text()); process.exit(r.ok ? 0 : 1) }, (e) => { console.log(String(e)); process.exit(1) })" "$2"
}
status_of() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$1" || true; }

step "base images (stand-ins for ${node_image##*/} and ${redis_image##*/})"
bash docker/base-images/build-offline.sh "$node_image" "$redis_image"

step "the App's image $app_image"
previous=$(docker image inspect --format '{{.Id}}' "$app_image" 2>/dev/null || true)
docker build --force-rm --network host --build-arg NODE_IMAGE="$node_image" --tag "$app_image" . >"$work/build.log" 2>&1 || {
  tail -n 60 "$work/build.log" >&2
  fail "docker build"
}
ok "built ($(docker image inspect --format '{{.Size}}' "$app_image" | awk '{printf "%.0f MB", $1/1e6}'))"
# The image an earlier run built from other sources, now untagged: it would only take space.
if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect --format '{{.Id}}' "$app_image")" ]; then
  docker rmi "$previous" >/dev/null 2>&1 || true
fi
# The default (SQLite) queue's native module, built in the build stage, loads in the runtime stage.
docker run --rm --network none "$app_image" node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()" ||
  fail "better-sqlite3 does not load in $app_image"
ok "better-sqlite3 loads in the runtime image"

step "settings"
port=$(node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
secret=$(openssl rand -hex 20)
# What compose.yaml substitutes; only this file, not an operator's .env beside compose.yaml.
cat >"$work/compose.env" <<EOF
SELFDEBUG_APP_IMAGE=$app_image
SELFDEBUG_NODE_IMAGE=$node_image
SELFDEBUG_REDIS_IMAGE=$redis_image
SELFDEBUG_ENV_FILE=$work/app.env
SELFDEBUG_PORT=127.0.0.1:$port
DOCKER_GID=$(stat -c %g /var/run/docker.sock)
EOF
# Exported too, since a variable of the caller's environment would win over the file; and the defaults for the rest.
set -a
# shellcheck source=/dev/null
. "$work/compose.env"
set +a
unset SELFDEBUG_DOCKER_HOST SELFDEBUG_DOCKER_SOCKET
# Compose reads every service's env_file, even to start redis alone; the App's settings come below.
install -m 600 /dev/null "$work/app.env"
ok "App to be published on 127.0.0.1:$port; project $project; ${compose[*]}"

step "up -d redis (and the project's network)"
dc up --detach --no-build redis 2>&1 | sed 's/^/   /'
redis=$(dc ps -q redis)
[ -n "$redis" ] || fail "compose started no redis container"
network=$(docker inspect --format '{{range $name, $_ := .NetworkSettings.Networks}}{{$name}}{{end}}' "$redis")
gateway=$(docker network inspect --format '{{range .IPAM.Config}}{{.Gateway}}{{end}}' "$network")
ok "network $network ($(docker network inspect --format '{{.Driver}}' "$network")), gateway $gateway"

step "GitHub: the tests' stand-in on 127.0.0.1, forwarded from $gateway"
# The end-to-end tests' GitHub, in memory; of this host, the compose network reaches only the gateway address.
[ -x node_modules/.bin/tsx ] || fail "node_modules/.bin/tsx is missing: run npm ci first"
node_modules/.bin/tsx scripts/compose-smoke-github.ts "$gateway" "$work/github.json" >"$work/github.log" 2>&1 &
github_pid=$!
github_up() { [ -s "$work/github.json" ] || { kill -0 "$github_pid" || fail "the stand-in exited: $(cat "$work/github.log")"; false; }; }
wait_for "the GitHub stand-in" github_up
field() { node -e "const v = JSON.parse(require('node:fs').readFileSync(process.argv[1], 'utf8'))[process.argv[2]]; process.stdout.write(typeof v === 'string' ? v : JSON.stringify(v))" "$work/github.json" "$1"; }
field payload >"$work/payload.json"
# The stand-in's App key, on one line with \n between its lines, as .env.example asks for docker-compose 1.29.
key=$(field privateKey | awk '{ printf "%s\\n", $0 }')
umask 077
cat >"$work/app.env" <<EOF
APP_ID=$(field appId)
PRIVATE_KEY="$key"
WEBHOOK_SECRET=$secret
SELFDEBUG_MODEL_API_KEY=sk-compose-smoke-placeholder
GHE_HOST=$(field gheHost)
GHE_PROTOCOL=http
EOF
umask 022
ok "GHE_HOST=$(field gheHost): repository $(field repository), issue #$(field issue), a throwaway App key"

step "up -d --scale worker=$workers"
dc up --detach --no-build --scale "worker=$workers" 2>&1 | sed 's/^/   /'
app=$(dc ps -q app)
mapfile -t worker_ids < <(dc ps -q worker)
[ -n "$app" ] || fail "compose started no app container"
[ ${#worker_ids[@]} = "$workers" ] || fail "expected $workers workers, compose started ${#worker_ids[@]}"

step "health: redis, app, ${workers} workers (docker's health checks: redis-cli ping, /readyz)"
wait_for "every service healthy" healthy "$redis" "$app" "${worker_ids[@]}"
for id in "$redis" "$app" "${worker_ids[@]}"; do ok "$(name "$id"): $(health "$id")"; done

step "the App from the host: 127.0.0.1:$port"
[ "$(status_of "http://127.0.0.1:$port/readyz")" = 200 ] || fail "/readyz: $(curl -s --max-time 5 "http://127.0.0.1:$port/readyz")"
ok "/readyz 200: $(curl -s --max-time 5 "http://127.0.0.1:$port/readyz")"
curl -s --max-time 10 "http://127.0.0.1:$port/metrics" >"$work/app.metrics"
grep -q '^selfdebug_queue_jobs{state="waiting"} 0' "$work/app.metrics" || fail "/metrics has no selfdebug_queue_jobs: $(head -c 400 "$work/app.metrics")"
ok "/metrics: $(grep -c '^selfdebug_' "$work/app.metrics") selfdebug samples, e.g. $(grep '^selfdebug_queue_jobs' "$work/app.metrics" | tr '\n' ' ')"

step "the workers: /readyz inside each, /metrics across the compose network"
for id in "${worker_ids[@]}"; do
  worker=$(name "$id")
  get_inside "$id" http://127.0.0.1:9464/readyz >"$work/ready" || fail "$worker /readyz: $(cat "$work/ready")"
  ok "$worker /readyz: $(tr '\n' ' ' <"$work/ready")"
  # As Prometheus on the compose network scrapes it: by name, from another container.
  get_inside "$app" "http://$worker:9464/metrics" >"$work/worker.metrics" || fail "$worker /metrics from the app: $(head -c 400 "$work/worker.metrics")"
  grep -q '^# TYPE selfdebug_jobs_started_total counter' "$work/worker.metrics" || fail "$worker /metrics lacks selfdebug_jobs_started_total"
  ok "$worker /metrics from app: $(grep -c '^# TYPE selfdebug_' "$work/worker.metrics") selfdebug metrics"
done

step "a signed webhook delivery: @selfdebug fix in an issue comment"
deliver() { # $1: the secret to sign with; prints the answer's status
  local signature
  signature="sha256=$(openssl dgst -sha256 -hmac "$1" -r <"$work/payload.json" | cut -d' ' -f1)"
  curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X POST "http://127.0.0.1:$port/api/github/webhooks" \
    -H 'Content-Type: application/json' -H 'X-GitHub-Event: issue_comment' \
    -H "X-GitHub-Delivery: $(cat /proc/sys/kernel/random/uuid)" -H "X-Hub-Signature-256: $signature" \
    --data-binary "@$work/payload.json" || true
}
code=$(deliver "$(openssl rand -hex 20)")
[ "${code:0:1}" = 4 ] || fail "a delivery signed with another secret was answered $code"
ok "signed with another secret: $code"
code=$(deliver "$secret")
[ "${code:0:1}" = 2 ] || fail "the signed delivery was answered $code"
ok "signed with WEBHOOK_SECRET: $code"
verified() { curl -s --max-time 5 "http://127.0.0.1:$port/metrics" | grep -q '^selfdebug_webhook_deliveries_total{event="issue_comment"} 1$'; }
wait_for "the App counting one verified issue_comment delivery" verified
ok 'selfdebug_webhook_deliveries_total{event="issue_comment"} 1 (the forged one not counted)'
# The App asks GitHub whether the commenter may write, enqueues into Redis, then reacts to the comment.
reacted() { grep -q '^POST /api/v3/repos/octo-org/smoke/issues/comments/[0-9]*/reactions 20[01]$' "$work/github.log"; }
wait_for "the App enqueueing the job and reacting to the comment" reacted
ok "App asked: $(grep -m1 -o '^GET [^ ]*/collaborators/alice/permission [0-9]*' "$work/github.log" || echo '(no permission request)')"
ok "App enqueued, then reacted: $(grep -m1 -o '^POST [^ ]*/reactions [0-9]*' "$work/github.log")"
# $1: a metric's name; prints its samples summed over the workers.
on_workers() {
  local id
  for id in "${worker_ids[@]}"; do get_inside "$id" http://127.0.0.1:9464/metrics; done |
    awk -v metric="$1" '$1 ~ "^" metric "({|$)" { sum += $2 } END { print sum + 0 }'
}
picked_up() { [ "$(on_workers selfdebug_jobs_started_total)" = 1 ]; }
wait_for "a worker taking the job from Redis" picked_up
for id in "${worker_ids[@]}"; do
  ok "$(name "$id"): $(get_inside "$id" http://127.0.0.1:9464/metrics | grep -c '^selfdebug_jobs_started_total{' || true) job(s) started"
done
finished() { [ "$(on_workers selfdebug_jobs_finished_total)" = 1 ]; }
wait_for "the worker finishing the job" finished
for id in "${worker_ids[@]}"; do
  get_inside "$id" http://127.0.0.1:9464/metrics | grep '^selfdebug_jobs_finished_total{' | sed "s|^|   ok: $(name "$id"): |" || true
done
ok "GitHub answered $(grep -c '^[A-Z]* /' "$work/github.log") requests; the App's comments on the issue, as last written:"
grep '^comment ' "$work/github.log" | awk '{ last[$2] = $0 } END { for (id in last) print "      " last[id] }' | cut -c1-200

step "Redis: a crash (SIGKILL) and a new container on the same volume"
marker=$(openssl rand -hex 8)
docker exec "$redis" redis-cli SET selfdebug-smoke:marker "$marker" >/dev/null
keys_before=$(docker exec "$redis" redis-cli DBSIZE)
ok "wrote selfdebug-smoke:marker; DBSIZE $keys_before (the marker and BullMQ's keys)"
# appendfsync everysec: what was written a second ago is on disk; SIGKILL leaves no chance to save more.
sleep 2
docker kill --signal KILL "$redis" >/dev/null
not_ready() { [ "$(status_of "http://127.0.0.1:$port/readyz")" = 503 ]; }
wait_for "the App's /readyz answering 503 while Redis is down" not_ready
ok "App /readyz while Redis is down: 503"
dc rm --force --stop redis >/dev/null 2>&1
dc up --detach --no-build --no-deps redis 2>&1 | sed 's/^/   /'
new_redis=$(dc ps -q redis)
[ -n "$new_redis" ] && [ "$new_redis" != "$redis" ] || fail "compose did not start a new redis container"
wait_for "the new redis healthy" healthy "$new_redis"
ok "new container $(name "$new_redis"): $(health "$new_redis")"
[ "$(docker exec "$new_redis" redis-cli GET selfdebug-smoke:marker)" = "$marker" ] || fail "the marker did not survive"
keys_after=$(docker exec "$new_redis" redis-cli DBSIZE)
[ "$keys_after" -ge "$keys_before" ] || fail "DBSIZE $keys_before before, $keys_after after"
ok "marker survived; DBSIZE $keys_after; $(docker exec "$new_redis" sh -c 'ls /data/appendonlydir | tr "\n" " "')"
ready() { [ "$(status_of "http://127.0.0.1:$port/readyz")" = 200 ]; }
wait_for "the App ready again" ready
ok "App /readyz: 200 again (reconnected)"
for id in "${worker_ids[@]}"; do
  worker_ready() { get_inside "$1" http://127.0.0.1:9464/readyz; }
  wait_for "$(name "$id") ready again" worker_ready "$id"
  ok "$(name "$id") /readyz: 200 again"
done
