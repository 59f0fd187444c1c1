#!/bin/sh
# Stands in for the cmocka unit tests when configure found no cmocka (configure.ac): the
# summary of make check then says that they were not run, and why. TAP.
echo "1..0 # SKIP cmocka not found at configure time: the unit tests were not built (install libcmocka-dev and re-run configure)"
