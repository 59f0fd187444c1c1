#!/bin/sh
# placeholder, being written by helper "hardening"
echo "1..1"
echo "ok 1 - placeholder"
