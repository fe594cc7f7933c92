#!/usr/bin/env bash
# Download the torchvision / torchaudio wheels tests/truth/test_companion_truth.py reads as zip files
# (tests/truth/companion_wheels.txt): the small macOS arm64 builds, with the same .py files, about 30 MB.
#
#   bash tests/truth/fetch_companion_wheels.sh [DIR]   # DIR: $ADVISOR_COMPANION_WHEELS, else ~/.cache/advisor-companion-wheels
#
# A wheel already in DIR is not downloaded again. One pip per wheel (pip resolves a file with two versions
# of one package as a conflict), four at a time. Exit 1 when any could not be downloaded.
set -euo pipefail
DIR="${1:-${ADVISOR_COMPANION_WHEELS:-$HOME/.cache/advisor-companion-wheels}}"
mkdir -p "$DIR"

fetch() {  # fetch DIR DIST==VERSION
    local dist="${2%%==*}" version="${2##*==}"
    compgen -G "$1/$dist-$version-*.whl" >/dev/null && return 0
    PIP_CONSTRAINT=/dev/null python -m pip download --quiet --no-deps --only-binary=:all: \
        --platform macosx_14_0_arm64 --platform macosx_11_0_arm64 --python-version 3.11 -d "$1" "$2"
}
export -f fetch
grep -v '^#' "$(dirname "$0")/companion_wheels.txt" | xargs -P 4 -I{} bash -c 'fetch "$1" "$2" || exit 255' _ "$DIR" {}
