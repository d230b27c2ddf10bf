#!/bin/sh
# Rebuilds internal/auth/common-passwords.txt, the list of passwords refused
# at password choice (docs/RULES.md §16.5), from two public-domain sources
# that Debian ships:
#
#   john-data  /usr/share/john/password.lst  Openwall's common-password list
#              (Solar Designer, 1996-2011, placed in the public domain)
#   miscfiles  /usr/share/dict/web2          the words of Webster's Second
#              International Dictionary (1934; its copyright has lapsed)
#
# Every entry is lower-cased; the dictionary's words shorter than the
# minimum password length are left out (the length rule refuses them
# anyway). The file is sorted bytewise with no duplicates, which the lookup
# in internal/auth/password.go relies on.
#
# Usage: scripts/common-passwords.sh [password.lst] [web2] > internal/auth/common-passwords.txt
# Without arguments the packages' installed paths are used
# (apt-get install john-data miscfiles).
set -eu
lst=${1:-/usr/share/john/password.lst}
web2=${2:-/usr/share/dict/web2}

openwall=$(grep -v '^#!comment' "$lst" | grep -c .)
cat <<EOF
# Passwords refused at password choice (docs/RULES.md §16.5), compared
# ignoring case. Built by scripts/common-passwords.sh from two public-domain
# sources (README.md beside this file says more):
#   - Openwall's list of the most common passwords ($openwall entries), compiled
#     by Solar Designer of the Openwall Project, 1996-2011, public domain;
#   - the words of 8 or more letters of Webster's Second International
#     Dictionary (1934, copyright lapsed; the "web2" word list).
# One entry a line, lower case, sorted bytewise, no duplicates.
EOF
{
	grep -v '^#!comment' "$lst" | grep .
	awk 'length($0) >= 8' "$web2"
} | LC_ALL=C tr 'A-Z' 'a-z' | LC_ALL=C sort -u
