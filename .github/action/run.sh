#!/usr/bin/env bash
# Runs cardscan as action.yml's inputs ask, from the environment the
# composite step sets (INPUT_PATHS, INPUT_PROFILE, INPUT_CONFIG,
# INPUT_FORMAT, INPUT_SARIF_FILE; CARDSCAN, the binary), so that a test
# can run it the same way. Its exit status is cardscan's (the worst of
# its runs', when the paths take several), or 2 when no paths are given
# and no card is found.
set -euo pipefail

cardscan=${CARDSCAN:-cardscan}
format=${INPUT_FORMAT:-github}
sarif_file=${INPUT_SARIF_FILE:-cardscan.sarif}

# escape_message escapes a workflow command's message as the runner
# reads it: a newline in a path would otherwise end the message, and the
# line after it would be a command of its own.
escape_message() {
  local s=${1//%/%25}
  s=${s//$'\r'/%0D}
  printf '%s' "${s//$'\n'/%0A}"
}

if [[ $sarif_file == *$'\n'* || $sarif_file == *$'\r'* ]]; then
  # It is written to GITHUB_OUTPUT, one output a line.
  echo "::error title=cardscan::sarif-file $(escape_message "$sarif_file") holds a line break"
  exit 2
fi

args=(--progress never --color never)
if [[ -n ${INPUT_PROFILE:-} ]]; then
  args+=(--profile "$INPUT_PROFILE")
fi
if [[ -n ${INPUT_CONFIG:-} ]]; then
  args+=(--config "$INPUT_CONFIG")
fi

# The names of card files, as .pre-commit-hooks.yaml's files: pattern
# (a test holds the two equal), and /.well-known/agentcard, the AgentCard
# draft's path, which has no extension. Matched against paths relative
# to the working directory.
card_names='(^|/)(agent-card|agent|agentcard)\.json$|\.agentcard\.json$|(^|/)\.well-known/agentcard$'

# find_cards sets paths to the files under the working directory whose
# names are card names: those git knows and does not ignore, in a git
# work tree; else every file, node_modules and .git left out. A
# repository's other JSON (package.json, tsconfig.json, a dependency's
# files) is no card, and judging it would fail every run.
find_cards() {
  local files=() f
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -d '' files < <(git ls-files -z --cached --others --exclude-standard)
  else
    mapfile -d '' files < <(find . \( -name node_modules -o -name .git \) -prune -o -type f -print0)
  fi
  paths=()
  for f in "${files[@]}"; do
    f=${f#./}
    if [[ $f =~ $card_names && ! $f =~ (^|/)node_modules/ && -f $f ]]; then
      paths+=("$f")
    fi
  done
}

# Paths are split on white space and never glob-expanded: a pattern is
# the user's to expand, in the workflow.
set -f
read -r -d '' -a paths <<<"${INPUT_PATHS:-}" || true
set +f
if [[ ${#paths[@]} -eq 0 ]]; then
  find_cards
  if [[ ${#paths[@]} -eq 0 ]]; then
    # Finding nothing to check is no pass: a workflow pointed at the
    # wrong directory, or cards under other names, would go green.
    echo "::error title=cardscan::no agent card found in $(escape_message "$(pwd)"): looked for agent-card.json, agent.json, agentcard.json, *.agentcard.json and .well-known/agentcard outside node_modules and git-ignored files; name the cards with the paths input"
    exit 2
  fi
  # Quoted as the shell would (%q), one line whatever the names hold:
  # the runner reads stderr for workflow commands too. The first 20
  # only: a repository of thousands of cards would make a line of
  # megabytes.
  shown=$(printf ' %q' "${paths[@]:0:20}")
  if ((${#paths[@]} > 20)); then
    shown+=" and $((${#paths[@]} - 20)) more"
  fi
  echo "cardscan: checking ${#paths[@]} card file(s) found by name:$shown" >&2
fi

# A command line holds at most ARG_MAX bytes, the environment's included
# (2 MiB on Linux): tens of thousands of cards would fail with "Argument
# list too long" before cardscan judged one. The paths go to cardscan in
# batches of at most batch_bytes, and the status is the worst of the
# runs', ranked as one run's is: 2 over 3 over 1 over 0.
batch_bytes=$((256 * 1024))

# rank orders cardscan's exit statuses by severity; any other status (a
# signal, a missing binary) ranks above them all.
rank() {
  case $1 in
    0) echo 0 ;;
    1) echo 1 ;;
    3) echo 2 ;;
    2) echo 3 ;;
    *) echo 4 ;;
  esac
}

# batches splits paths into runs of at most batch_bytes (a longer path
# alone), each an index into paths (batch_starts) and a count
# (batch_lengths).
batch_starts=() batch_lengths=()
batches() {
  local LC_ALL=C # so that ${#...} counts bytes
  local i start=0 size=0
  for ((i = 0; i < ${#paths[@]}; i++)); do
    if ((i > start && size + ${#paths[i]} + 1 > batch_bytes)); then
      batch_starts+=("$start") batch_lengths+=($((i - start)))
      start=$i size=0
    fi
    size=$((size + ${#paths[i]} + 1))
  done
  batch_starts+=("$start") batch_lengths+=($((${#paths[@]} - start)))
}
batches

# run_batches runs "$@" -- BATCH for each batch and returns the worst of
# their statuses.
run_batches() {
  local b s worst=0
  for ((b = 0; b < ${#batch_starts[@]}; b++)); do
    s=0
    "$@" -- "${paths[@]:batch_starts[b]:batch_lengths[b]}" || s=$?
    if (($(rank "$s") > $(rank "$worst"))); then
      worst=$s
    fi
  done
  return "$worst"
}

# migrate-check: fail first while a card would change under cardscan
# migrate --to the named release.
if [[ -n ${INPUT_MIGRATE_CHECK:-} ]]; then
  run_batches "$cardscan" migrate --check --report /dev/null --to "$INPUT_MIGRATE_CHECK" || exit $?
fi

if [[ $format == sarif ]]; then
  if ((${#batch_starts[@]} > 1)); then
    # One report is one run's: batches would each write their own.
    echo "::error title=cardscan::${#paths[@]} card files are too many for one cardscan command line, which one SARIF report needs: give the paths input their directories (every *.json, *.ndjson and *.jsonl there is judged)"
    exit 2
  fi
  # The report is a file for upload-sarif, which cardscan writes itself
  # (--format sarif=FILE): it refuses a file that is one of the cards,
  # which a shell redirection would empty before cardscan read it, and
  # renames the report into place whole. ./ keeps a sarif-file of - a
  # file. -q: stdout has no report; the summary line still goes to the
  # log.
  out=$sarif_file
  if [[ $out == - ]]; then
    out=./-
  fi
  status=0
  "$cardscan" --format "sarif=$out" -q "${args[@]}" -- "${paths[@]}" || status=$?
  if [[ -n ${GITHUB_OUTPUT:-} ]]; then
    echo "sarif-file=$sarif_file" >>"$GITHUB_OUTPUT"
  fi
  exit "$status"
fi
run_batches "$cardscan" --format "$format" "${args[@]}"
