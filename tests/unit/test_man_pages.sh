#!/usr/bin/env bash
# The man pages of deploy/man against the --help they document, so that
# neither drifts from the other:
#
#   test_man_pages.sh BIN_DIR MAN_DIR
#
# Each page names exactly the --options its command's --help names (every
# `--word` of the help's text, usage and examples too, against every one of
# the page's roff source): rackbench.1 with `rackbench --help`,
# rackbench-COMMAND.1 with `rackbench COMMAND --help` for each command the
# usage lists, rackbench-agent.8 with `rackbench-agent --help`,
# rackbench-mpi.1 with `rackbench-mpi --help` when it is built; a command
# without a page, or a page without a command, fails. Then each page must
# render without a warning (groff -man -ww, as man -l renders it); that
# part is skipped (77, after the rest passed) without groff.
set -euo pipefail

bin=$(realpath "${1:?usage: test_man_pages.sh BIN_DIR MAN_DIR}")
man=$(realpath "${2:?MAN_DIR}")
fails=0

fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}

# options_of: every --option of stdin, one a line, sorted once each
options_of() {
    grep -oE -- '--[a-z][a-z0-9-]*' | sort -u || true
}

# page_options PAGE: the options PAGE's roff source names (\- is -, fonts
# and comments aside)
page_options() {
    grep -v '^\.\\"' "$1" | sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' | options_of
}

# compare PAGE HELP_CMD...: PAGE names exactly the options HELP_CMD prints
compare() {
    local page=$1 help names missing extra
    shift
    [ -f "$man/$page" ] || {
        fail "no man page $page for '$*'"
        return
    }
    help=$("$@" | options_of) || {
        fail "'$*' failed"
        return
    }
    names=$(page_options "$man/$page")
    missing=$(comm -23 <(grep . <<<"$help" || true) <(grep . <<<"$names" || true) | tr '\n' ' ')
    extra=$(comm -13 <(grep . <<<"$help" || true) <(grep . <<<"$names" || true) | tr '\n' ' ')
    [ -z "$missing" ] || fail "$page lacks what '${*##*/}' names: $missing"
    [ -z "$extra" ] || fail "$page names what '${*##*/}' does not: $extra"
    [ -n "$missing$extra" ] || echo "$page: the $(echo "$help" | grep -c .) options of '$(basename "$1") ${*:2}'"
}

compare rackbench.1 "$bin/rackbench" --help
compare rackbench-agent.8 "$bin/rackbench-agent" --help
# rackbench-mpi is built only with Open MPI: its page is checked when it is
if [ -x "$bin/rackbench-mpi" ]; then
    compare rackbench-mpi.1 "$bin/rackbench-mpi" --help
else
    echo "rackbench-mpi.1 not compared: no rackbench-mpi in $bin (a build without Open MPI)"
fi
# the commands, as rackbench's usage lists them
cmds=$("$bin/rackbench" --help | sed -n 's/^ *\(usage:\)\{0,1\} *rackbench \([a-z]*\).*/\2/p' | sort -u)
[ "$(echo "$cmds" | grep -c .)" -ge 6 ] || fail "rackbench --help lists only these commands: $cmds"
for c in $cmds; do
    compare "rackbench-$c.1" "$bin/rackbench" "$c" --help
done
for page in "$man"/rackbench-*.1; do
    c=${page##*/rackbench-}
    c=${c%.1}
    [ "$c" != mpi ] || continue # a program of its own, above
    grep -qx "$c" <<<"$cmds" || fail "${page##*/}: rackbench --help lists no command $c"
done

if ! command -v groff >/dev/null; then
    [ "$fails" -eq 0 ] || exit 1
    echo "skipped: no groff to render the pages with (the options matched)"
    exit 77
fi
for page in "$man"/*.[18]; do
    out=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
    [ -z "$out" ] || fail "${page##*/} renders with warnings: $out"
done
[ "$fails" -eq 0 ] || exit 1
echo "every page names its command's options and renders without a warning"
