#!/bin/sh
# Installs the Hermes agent (a Python program, from PyPI) the end-to-end tests drive, pinned by
# hermes-requirements.txt, into a virtual environment beside this file (hermes-venv/, not in git).
# `npm run setup:hermes`; .ci/run runs it after `npm run setup:agents`. About 230 MB installed, 40 to
# 90 s from PyPI on a 2-core machine (a second run, with everything in place, about 10 s).
# Exits non-zero, saying why, where it cannot install (no Python 3.11 to 3.13, no venv or pip,
# no registry): the tests that need the agent are then skipped, with the reason.
set -eu
cd "$(dirname "$0")"
venv=hermes-venv

# hermes-agent 0.19.0 asks for Python >= 3.11 and < 3.14.
python=
for candidate in python3 python3.13 python3.12 python3.11; do
  if command -v "$candidate" >/dev/null 2>&1 &&
    "$candidate" -c 'import sys; sys.exit(not ((3, 11) <= sys.version_info[:2] < (3, 14)))' 2>/dev/null; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "setup:hermes: the Hermes agent needs Python 3.11, 3.12 or 3.13, and none is on the PATH" >&2
  exit 1
fi
if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
  echo "setup:hermes: $python cannot make a virtual environment with pip (Debian, Ubuntu: apt-get install python3-venv)" >&2
  exit 1
fi

# A venv left by an interrupted install, or made by another Python, is made again.
if ! "$venv/bin/python" -c 'import sys' 2>/dev/null; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --disable-pip-version-check --no-input --quiet \
  --retries 1 -r hermes-requirements.txt
"$venv/bin/python" -c "import importlib.metadata as m; print('hermes-agent', m.version('hermes-agent'), 'is installed in', '$(pwd)/$venv')"
