#!/bin/sh
# being written by helper "hardening"
exit 0
