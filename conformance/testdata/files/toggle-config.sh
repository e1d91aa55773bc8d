#!/bin/sh
# toggle-config.sh FILE TEXT: removes the config file FILE when it is there,
# else writes TEXT into it: each call changes what the server lists (see
# stateless.hcl). TEXT goes to a temporary name first and is renamed into
# place, so that the hot reload never reads a file half-written.
set -eu
f=$1
if [ -e "$f" ]; then
  rm -f "$f"
  echo "removed $f"
else
  printf '%s\n' "$2" >".$f.tmp"
  mv -f ".$f.tmp" "$f"
  echo "wrote $f"
fi
