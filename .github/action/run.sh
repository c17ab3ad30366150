#!/usr/bin/env bash
# Runs cardscan as action.yml's inputs ask, from the environment the
# composite step sets (INPUT_PATHS, INPUT_PROFILE, INPUT_CONFIG,
# INPUT_FORMAT, INPUT_SARIF_FILE; CARDSCAN, the binary), so that a test
# can run it the same way. Its exit status is cardscan's.
set -euo pipefail

cardscan=${CARDSCAN:-cardscan}
format=${INPUT_FORMAT:-github}
sarif_file=${INPUT_SARIF_FILE:-cardscan.sarif}

args=(--format "$format" --progress never --color never)
if [[ -n ${INPUT_PROFILE:-} ]]; then
  args+=(--profile "$INPUT_PROFILE")
fi
if [[ -n ${INPUT_CONFIG:-} ]]; then
  args+=(--config "$INPUT_CONFIG")
fi

# Paths are split on white space and never glob-expanded: a pattern is
# the user's to expand, in the workflow.
set -f
read -r -d '' -a paths <<<"${INPUT_PATHS:-.}" || true
set +f
if [[ ${#paths[@]} -eq 0 ]]; then
  paths=(.)
fi

# migrate-check: fail first while a card would change under cardscan
# migrate --to the named release.
if [[ -n ${INPUT_MIGRATE_CHECK:-} ]]; then
  "$cardscan" migrate --check --report /dev/null --to "$INPUT_MIGRATE_CHECK" -- "${paths[@]}" || exit $?
fi

if [[ $format == sarif ]]; then
  # The report is a file for upload-sarif; the summary line still goes
  # to the log.
  status=0
  "$cardscan" "${args[@]}" -- "${paths[@]}" >"$sarif_file" || status=$?
  if [[ -n ${GITHUB_OUTPUT:-} ]]; then
    echo "sarif-file=$sarif_file" >>"$GITHUB_OUTPUT"
  fi
  exit "$status"
fi
exec "$cardscan" "${args[@]}" -- "${paths[@]}"
