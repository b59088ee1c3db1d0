#!/usr/bin/env bash
# check_systemd_unit.sh BINDIR EXAMPLES — the installed example unit
# (docs/examples/systemd/castellan.service) is one systemd accepts, with its
# ExecStart pointed at the installed binary.  Skipped (77) without
# systemd-analyze.
set -euo pipefail
bindir=$1 examples=$2
command -v systemd-analyze >/dev/null 2>&1 || { echo "no systemd-analyze: skipped"; exit 77; }
unit=$examples/systemd/castellan.service
[ -f "$unit" ] || { echo "$unit is not installed"; exit 1; }
grep -q '^ExecStart=/usr/bin/castellan serve ' "$unit" ||
    { echo "$unit: ExecStart does not run /usr/bin/castellan serve"; exit 1; }
for key in Restart=on-failure LimitNOFILE= NoNewPrivileges=yes ProtectSystem=strict \
           PrivateTmp=yes StateDirectory=castellan; do
    grep -q "^$key" "$unit" || { echo "$unit lacks $key"; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s|/usr/bin/castellan|$bindir/castellan|" "$unit" > "$work/castellan.service"
systemd-analyze verify --man=no "$work/castellan.service"
echo "castellan.service verified"
