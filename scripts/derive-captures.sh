#!/usr/bin/env bash
# `make captures`, after Captures/record.py: one file per other format and datalink derived from
# att-errors.btsnoop with bletrace convert (the H4 link type 187 has no direction: convert says so
# and exits 1, which is expected there); last, pklg-header-notes.pklg: pklg-header-notes.btsnoop
# converted, behind iOS's header notes.
# Usage: scripts/derive-captures.sh BLETRACE
set -euo pipefail
bin=$1 from=Captures/att-errors.btsnoop
"$bin" convert $from Captures/att-errors.dl1001.btsnoop --datalink 1001
"$bin" convert $from Captures/att-errors.dl2001.btsnoop --datalink 2001
"$bin" convert $from Captures/att-errors.lt254.pcap --datalink 254
"$bin" convert $from Captures/att-errors.lt201.pcapng --datalink 201
"$bin" convert $from Captures/att-errors.lt254.pcapng --datalink 254
"$bin" convert $from Captures/att-errors.pklg
"$bin" convert $from Captures/att-errors.lt187.pcap --datalink 187 || [ $? -eq 1 ]
"$bin" convert $from Captures/att-errors.lt187.pcapng --datalink 187 || [ $? -eq 1 ]
notes=$(mktemp -d)
trap 'rm -rf "$notes"' EXIT
"$bin" convert Captures/pklg-header-notes.btsnoop "$notes/traffic.pklg"
python3 Captures/record.py --pklg-notes "$notes/traffic.pklg" Captures/pklg-header-notes.pklg
