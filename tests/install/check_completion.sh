#!/usr/bin/env bash
# check_completion.sh EXE_DIR COMPLETION — the installed bash completion
# offers commands, a command's flags, game ids and comma-separated
# expansion ids, agents for --players and saved games' ids, asked of the
# castellan in EXE_DIR.
# Not -e: a completion function may end on a false test.
set -u
PATH=$1:$PATH
# shellcheck source=/dev/null
source "$2"
fail=0
expect() {
    local want=$1; shift
    COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
    COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _castellan
    if [[ "${COMPREPLY[*]}" != "$want" ]]; then
        echo "completing '$*': got '${COMPREPLY[*]}', want '$want'"; fail=1
    fi
}
expect "play plugins players" castellan p
expect "rename remove" castellan players re
expect "resume replay render" castellan help re
expect "--game" castellan play --ga
expect "carcassonne castles-cards" castellan play --game ca
expect "carcassonne castles-cards" castellan check ca
expect "inns-cathedrals,traders-builders" castellan play --expansions inns-cathedrals,t
expect "game" castellan plugins --ids g
expect "farmers=" castellan play --game carcassonne --rule fa
expect "cards=" castellan check fixture --rule ca
expect "human,greedy" castellan play --players human,gr
expect "human" castellan play --players Me:hu
expect "mcts mcts-easy mcts-medium mcts-hard" castellan play --players Ada:human,Bot:mc
# saved games: a finished one and one stopped at the first decision
XDG_DATA_HOME=$(mktemp -d)
export XDG_DATA_HOME
castellan play --game fixture --players random,random --seed 2 >/dev/null 2>&1
castellan play --game fixture --players human,random --seed 2 </dev/null >/dev/null 2>&1
expect "2" castellan resume ""
expect "2 1" castellan replay ""
expect "2 1" castellan export --ply 3 ""
expect "2 1" castellan saves show ""
castellan players add "Ada Lovelace" >/dev/null 2>&1
castellan players add Bob >/dev/null 2>&1
expect "Ada Lovelace" castellan players link A
expect "Ada Lovelace Bob" castellan players remove ""
rm -rf "$XDG_DATA_HOME"
exit $fail
