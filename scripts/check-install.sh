#!/usr/bin/env bash
# `make check-install`: `make install` into a staging DESTDIR, then what a package user gets: the
# man page without a warning from mandoc -T lint or groff -ww, with its EXIT STATUS, ENVIRONMENT,
# EXAMPLES and SEE ALSO; the binary with no library of the toolchain (ldd), run with an empty
# environment and, where mount namespaces allow (root), with the toolchain's folder hidden under
# an empty tmpfs; the installed bash completion completing a file name.
# Usage: scripts/check-install.sh TOOLCHAIN-DIR CAPTURE   (run by make, whose flags the make it
# calls inherits)
set -euo pipefail
toolchain=$1 capture=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
start=$(date +%s)
make --no-print-directory install DESTDIR="$stage" PREFIX=/usr >/dev/null
echo "check-install: make install took $(($(date +%s) - start)) s"
bin=$stage/usr/bin/bletrace page=$stage/usr/share/man/man1/bletrace.1
mandoc -T lint "$page"
groff -ww -mandoc -Tutf8 -z "$page" 2>"$stage/groff.err"
if [ -s "$stage/groff.err" ]; then cat "$stage/groff.err"; exit 1; fi
for section in "EXIT STATUS" ENVIRONMENT EXAMPLES "SEE ALSO"; do
  grep -qx ".Sh $section" "$page" || { echo "man page: no $section"; exit 1; }
done
if ldd "$bin" | grep -E "$toolchain|libswift|libFoundation|libdispatch"; then echo "linked with the toolchain"; exit 1; fi
env -i LD_LIBRARY_PATH= "$bin" --version
env -i LD_LIBRARY_PATH= "$bin" lifecycle "$capture" --brief >/dev/null
if unshare -m true 2>/dev/null; then
  unshare -m sh -c 'mount -t tmpfs none "$1" && env -i "$2" info "$3" >/dev/null && echo "runs with $1 hidden"' \
    sh "$toolchain" "$bin" "$capture"
fi
dir=$(mktemp -d)
touch "$dir/capture.btsnoop"
got=$(cd "$dir" && bash -c 'source "$1"; COMP_WORDS=(bletrace info cap); COMP_CWORD=2; COMP_LINE="bletrace info cap"; COMP_POINT=17;
  _bletrace bletrace cap info; printf "%s\n" "${COMPREPLY[@]}"' bash "$stage/usr/share/bash-completion/completions/bletrace")
rm -r "$dir"
[ "$got" = capture.btsnoop ] || { echo "installed bash completion offered: $got"; exit 1; }
echo "check-install: man page lint-clean, binary free of the toolchain, completion completes"
