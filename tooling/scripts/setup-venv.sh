#!/bin/sh
# Create the virtual environment and install the project into it, once, even when several
# `make` runs start at the same moment on a fresh clone (two `make site` used to race:
# both ran `python -m venv` and pip in the same folder, and one failed with a traceback).
#
# usage: tooling/scripts/setup-venv.sh PYTHON VENV
#
# The work happens under an exclusive flock on .cache/setup.lock. A run that had to wait
# finds the stamp fresh when it gets the lock, and does nothing.
set -eu
python=$1
venv=$2
stamp="$venv/.installed-stamp"

mkdir -p .cache
exec 9>.cache/setup.lock
if command -v flock >/dev/null 2>&1; then
  flock 9
else
  echo "setup-venv: flock(1) is missing (util-linux); two set-ups at once may collide" >&2
fi

if [ -f "$stamp" ] && [ "$stamp" -nt pyproject.toml ]; then
  exit 0  # done by another run while this one waited
fi

"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed")'
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -e '.[test,sdk,bench]'
touch "$stamp"
