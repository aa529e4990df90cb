#!/usr/bin/env bash
# `make install`, after the release build of bletrace and generate-manual: the binary, its man
# page (swift-argument-parser's generate-manual run on the binary, completed by `bletrace manual`
# with ENVIRONMENT, EXIT STATUS, EXAMPLES and SEE ALSO) and its bash, zsh and fish completions.
# Usage: scripts/install.sh BUILD-BIN-DIR BIN-DIR MAN-DIR BASH-DIR ZSH-DIR FISH-DIR
set -euo pipefail
dir=$1 bin_dir=$2 man_dir=$3 bash_dir=$4 zsh_dir=$5 fish_dir=$6
bin=$dir/bletrace
pages=$(mktemp -d)
trap 'rm -rf "$pages"' EXIT
"$dir/generate-manual" "$bin" --output-directory "$pages" --section 1
install -d "$bin_dir" "$man_dir" "$bash_dir" "$zsh_dir" "$fish_dir"
install -m 755 "$bin" "$bin_dir/bletrace"
"$bin" manual "$pages/bletrace.1" -o "$man_dir/bletrace.1"
chmod 644 "$man_dir/bletrace.1"
"$bin" --generate-completion-script bash > "$bash_dir/bletrace"
"$bin" --generate-completion-script zsh > "$zsh_dir/_bletrace"
"$bin" --generate-completion-script fish > "$fish_dir/bletrace.fish"
echo "installed $("$bin_dir/bletrace" --version) in $bin_dir, man page, completions"
