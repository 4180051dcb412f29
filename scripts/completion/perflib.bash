# bash completion for perflib's tools (installed once per command name in
# share/bash-completion/completions). Counter paths are completed from the
# machine's own object and counter lists (typeperf -q / -qx), which is what
# makes typeperf paths bearable to type.

_perflib_objects() {
    typeperf -q 2>/dev/null | tr -d '\r' | sed -n 's/^\\\([^\\(]*\).*/\1/p' | sort -u
}

# Complete a counter path: \Object, \Object(instance), \Object(inst)\Counter.
_perflib_paths() {
    local cur=$1 list
    case $cur in
        \\*\\*|\\*\)*)
            local obj=${cur#\\}
            obj=${obj%%[(\\]*}
            list=$(typeperf -qx "$obj" 2>/dev/null | tr -d '\r')
            [ -n "$list" ] || list=$(typeperf -q "$obj" 2>/dev/null | tr -d '\r')
            ;;
        *)
            list=$(typeperf -q 2>/dev/null | tr -d '\r' | sed -n 's/^\(\\[^\\(]*\).*/\1/p' | sort -u)
            ;;
    esac
    # compgen -W would eat the backslashes: match the prefix by hand
    COMPREPLY=()
    local line
    while IFS= read -r line; do
        [[ $line == "$cur"* ]] && COMPREPLY+=("$line")
    done <<<"$list"
    compopt -o nospace 2>/dev/null
}

_perflib_typeperf() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        -f) COMPREPLY=($(compgen -W "CSV TSV BIN" -- "$cur")); return ;;
        -cf|-o) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        -q|-qx) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_perflib_objects)" -- "$cur")); return ;;
        -si|-sc|-s) return ;;
    esac
    case $cur in
        -*) COMPREPLY=($(compgen -W "-? --help --version -f -cf -si -o -q -qx -sc -s -y" -- "$cur")) ;;
        *) _perflib_paths "$cur" ;;
    esac
}

_perflib_perfquery() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        --registry|--raw|--read) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --get) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_perflib_objects)" -- "$cur")); return ;;
    esac
    COMPREPLY=($(compgen -W "--summary --titles --help-texts --get --raw --read --providers --registry
        --system-name --json --help --version Global Costly Foreign" -- "$cur"))
}

_perflib_lodctr() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    case $cur in
        -*|/*) COMPREPLY=($(compgen -W "/s: /r: /e: /d: /q --save --restore --enable --disable --query
            --registry --library --open --collect --close --symbolfile --isolation --help --version" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -f -X '!*.[iI][nN][iI]' -- "$cur") $(compgen -d -- "$cur")) ;;
    esac
}

_perflib_simple() {
    local cur=${COMP_WORDS[COMP_CWORD]} opts
    case ${COMP_WORDS[0]##*/} in
        unlodctr) opts="--registry --help --version" ;;
        pview) opts="-d -s --replay --no-threads --help --version" ;;
        relog) opts="-f -o -b -e -t -c -cf -q -a -y --help --version" ;;
        perfd) opts="--listen --config --check-config --registry --system-name --tls-cert --tls-key
            --tls-client-ca --token-file --set --help --version" ;;
    esac
    case $cur in
        -*) COMPREPLY=($(compgen -W "$opts" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
}

_perflib_samba() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        --state-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --registry) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --interval) return ;;
        --objects)
            # the last name of a comma-separated list
            local head="" item=$cur
            [[ $cur == *,* ]] && head=${cur%,*}, && item=${cur##*,}
            local IFS=$'\n' o
            COMPREPLY=()
            for o in $(_perflib_objects); do [[ $o == "$item"* ]] && COMPREPLY+=("$head$o"); done
            return ;;
    esac
    COMPREPLY=($(compgen -W "--state-dir --once --interval --objects --registry --help --version" -- "$cur"))
}

complete -F _perflib_typeperf typeperf
complete -F _perflib_perfquery perfquery
complete -F _perflib_lodctr lodctr
complete -F _perflib_simple unlodctr pview relog perfd
complete -F _perflib_samba perflib-samba
