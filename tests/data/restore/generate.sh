#!/bin/sh
# Regenerate the committed skeletons (needs django in the venv, npx, cargo). Run from the repo root.
set -eu
D=tests/data/restore
T=$(mktemp -d)
(cd "$T" && npx -y express-generator@4.16.1 --no-view --git express-app)
(cd "$T" && npx -y create-next-app@16.4.3 next-app --ts --app --eslint --no-tailwind --src-dir \
    --import-alias "@/*" --skip-install --disable-git --use-npm --yes && rm -f next-app/next-env.d.ts)
(cd "$T" && cargo new --vcs none rust-app && cargo new --vcs none --lib rust-lib)
mkdir "$T/django-proj"
VENV=$(pwd)/.venv/bin
(cd "$T/django-proj" && "$VENV/django-admin" startproject mysite . && "$VENV/python" manage.py startapp polls)
for d in express-app next-app rust-app rust-lib django-proj; do rm -rf "${D:?}/$d"; cp -r "$T/$d" "$D/$d"; done
rm -rf "$T"
