# bash completion for castellan — installed to
# share/bash-completion/completions/castellan.  Everything it offers is
# asked of castellan itself (commands from --help, flags from each
# command's --help, ids from `castellan plugins --ids`, rule names from
# `castellan rules GAME`), so it stays true as commands and plugins come
# and go.

_castellan_commands()
{
    "$1" --help 2>/dev/null | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'
}

_castellan_flags()
{
    "$1" "$2" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u
}

# The ids of KIND, or for a comma list the ids after what is typed so far.
_castellan_ids()
{
    local exe=$1 kind=$2 cur=$3 head=
    [[ $cur == *,* ]] && head=${cur%,*},
    local ids
    ids=$("$exe" plugins --ids "$kind" 2>/dev/null | sed "s/^/$head/")
    COMPREPLY=($(compgen -W "$ids" -- "$cur"))
    if [[ $kind == expansion ]]; then
        compopt -o nospace 2>/dev/null || true
    fi
}

# The game the words typed so far name: --game ID, check's PLUGIN, or
# bench's default.
_castellan_game()
{
    local i
    for ((i = 2; i < COMP_CWORD; i++)); do
        [[ ${COMP_WORDS[i]} == --game ]] && { echo "${COMP_WORDS[i+1]}"; return; }
    done
    case ${COMP_WORDS[1]} in
    check) echo "${COMP_WORDS[2]}" ;;
    bench) echo carcassonne ;;
    esac
}

# NAME= of every rule option of the game and its expansions.
_castellan_rules()
{
    local exe=$1 game=$2 cur=$3 names
    [[ -n $game ]] || return
    names=$("$exe" rules "$game" 2>/dev/null | sed -n 's/^  \([a-z0-9.-]*\) = .*/\1=/p')
    COMPREPLY=($(compgen -W "$names" -- "$cur"))
    compopt -o nospace 2>/dev/null || true
}

_castellan()
{
    local cur prev exe=${COMP_WORDS[0]}
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    if ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "$(_castellan_commands "$exe") --help --version" -- "$cur"))
        return
    fi
    local command=${COMP_WORDS[1]}
    case $prev in
    --game|--expansion-of)
        _castellan_ids "$exe" game "$cur"; return ;;
    --expansions)
        _castellan_ids "$exe" expansion "$cur"; return ;;
    --ids)
        COMPREPLY=($(compgen -W "game expansion all" -- "$cur")); return ;;
    --rule)
        _castellan_rules "$exe" "$(_castellan_game)" "$cur"; return ;;
    --config|--database|-o)
        COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --plugin-path)
        COMPREPLY=($(compgen -d -- "$cur")); return ;;
    esac
    if [[ $command == help ]] && ((COMP_CWORD == 2)); then
        COMPREPLY=($(compgen -W "$(_castellan_commands "$exe")" -- "$cur"))
        return
    fi
    if [[ $command == check ]] && ((COMP_CWORD == 2)) && [[ $cur != -* ]]; then
        _castellan_ids "$exe" game "$cur"
        return
    fi
    if [[ $command == import ]] && [[ $cur != -* ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -W "$(_castellan_flags "$exe" "$command")" -- "$cur"))
}

complete -F _castellan castellan
