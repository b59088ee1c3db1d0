# bash completion for castellan — installed to
# share/bash-completion/completions/castellan.  Everything it offers is
# asked of castellan itself (commands from --help, flags from each
# command's --help, ids from `castellan plugins --ids`, rule names from
# `castellan rules GAME`, save ids from `castellan saves list`), so it
# stays true as commands, plugins and saved games come and go.

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

# --players: the agents after the last comma, or after NAME: in a seat.
# cur is the whole value typed so far; bash breaks words at ':', so the
# answers are cut to what follows the last ':' in it.
_castellan_agents()
{
    local exe=$1 cur=$2 head=
    [[ $cur == *,* ]] && head=${cur%,*},
    local seat=${cur##*,}
    [[ $seat == *:* ]] && head=$head${seat%%:*}:
    local agents
    agents=$("$exe" plugins --ids agent 2>/dev/null | sed "s/^/$head/")
    COMPREPLY=($(compgen -W "$agents" -- "$cur"))
    [[ $cur == *:* ]] && COMPREPLY=("${COMPREPLY[@]#"${cur%:*}:"}")
    compopt -o nospace 2>/dev/null || true
}

# The ids of the saved games (for resume only the unfinished ones), from
# the --database typed so far or the default store.
_castellan_saves()
{
    local exe=$1 command=$2 cur=$3 i database=()
    for ((i = 2; i < COMP_CWORD; i++)); do
        [[ ${COMP_WORDS[i]} == --database ]] && database=(--database "${COMP_WORDS[i+1]}")
    done
    local ids
    ids=$("$exe" saves list "${database[@]}" 2>/dev/null |
        awk -v resume="$([[ $command == resume ]] && echo 1)" \
            '$1 ~ /^[0-9]+$/ && !(resume && $2 == "finished") { print $1 }')
    COMPREPLY=($(compgen -W "$ids" -- "$cur"))
}

# The registered players' names (castellan players list), from the
# --database typed so far or the default store.
_castellan_players()
{
    local exe=$1 cur=$2 i database=()
    for ((i = 2; i < COMP_CWORD; i++)); do
        [[ ${COMP_WORDS[i]} == --database ]] && database=(--database "${COMP_WORDS[i+1]}")
    done
    local IFS=$'\n'
    COMPREPLY=($(compgen -W "$("$exe" players list "${database[@]}" 2>/dev/null |
        awk 'NR > 1 && NF >= 4 { sub(/ +[^ ]+ +[^ ]+ +[^ ]+ *$/, ""); print }')" -- "$cur"))
}

# Whether a game id was typed already (a number not the value of a flag).
_castellan_id_typed()
{
    local i
    for ((i = 2; i < COMP_CWORD; i++)); do
        [[ ${COMP_WORDS[i]} =~ ^[0-9]+$ && ${COMP_WORDS[i-1]} != --@(ply|viewer|plugin-deadline) ]] &&
            return 0
    done
    return 1
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
    # the words as typed, split at spaces only (NAME:AGENT stays whole)
    local line=${COMP_LINE:0:COMP_POINT} typed
    read -ra typed <<<"$line"
    [[ $line == *' ' ]] && typed+=("")
    if ((${#typed[@]} >= 2)) && [[ ${typed[${#typed[@]}-2]} == --players ]]; then
        _castellan_agents "$exe" "${typed[${#typed[@]}-1]}"
        return
    fi
    case $prev in
    --game|--expansion-of)
        _castellan_ids "$exe" game "$cur"; return ;;
    --expansions)
        _castellan_ids "$exe" expansion "$cur"; return ;;
    --ids)
        COMPREPLY=($(compgen -W "game expansion all" -- "$cur")); return ;;
    --rule)
        _castellan_rules "$exe" "$(_castellan_game)" "$cur"; return ;;
    --config|--database|-o|--watch|--cert|--key)
        COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --plugin-path|--www)
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
    if [[ $cur != -* ]]; then
        case $command in
        resume|replay|export|render)
            if [[ $prev != --@(ply|viewer|plugin-deadline) ]] && ! _castellan_id_typed; then
                _castellan_saves "$exe" "$command" "$cur"
                return
            fi ;;
        saves)
            if ((COMP_CWORD == 3)) && [[ ${COMP_WORDS[2]} == @(show|delete) ]]; then
                _castellan_saves "$exe" "$command" "$cur"
                return
            fi ;;
        players)
            if ((COMP_CWORD == 2)); then
                COMPREPLY=($(compgen -W "add list rename remove link" -- "$cur"))
                return
            fi
            if ((COMP_CWORD == 3)) && [[ ${COMP_WORDS[2]} == @(rename|remove|link) ]]; then
                _castellan_players "$exe" "$cur"
                return
            fi ;;
        esac
    fi
    if [[ $command == import ]] && [[ $cur != -* ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -W "$(_castellan_flags "$exe" "$command")" -- "$cur"))
}

complete -F _castellan castellan
