#!/bin/sh
# Stand-in for dockerfiles/scripts/with-compiler-cache.sh: the test changes this file.
exec "$@"
