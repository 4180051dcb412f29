# bash completion for perflib's tools (installed once per command name in
# share/bash-completion/completions). Counter paths are completed from the
# machine's own object and counter lists (typeperf -q / -qx), which is what
# makes typeperf paths bearable to type.

_perflib_objects() {
    typeperf -q 2>/dev/null | tr -d '\r' | sed -n 's/^\\\([^\\(]*\).*/\1/p' | sort -u
}

# The counter-path candidates at the level the text P has reached (object,
# instance, counter), each a longer prefix of a real path. A level with one
# candidate is descended into, so that a single match is never a half path:
# bash closes an open quote after a single match, which must only happen
# once the path is whole.
_perflib_path_candidates() {
    local p=$1 obj rest list line
    obj=${p#\\}
    obj=${obj%%[(\\]*}
    rest=${p#\\"$obj"}
    if [ -z "$rest" ]; then
        # the object level: \Obj( for an object with instances, else \Obj\
        list=$(typeperf -q 2>/dev/null | tr -d '\r' |
            sed -n 's/^\(\\[^\\(]*\)(\*)\\.*/\1(/p; s/^\(\\[^\\(]*\)\\.*/\1\\/p' | sort -u)
    elif [[ $rest == \(* && $rest != *\)* ]]; then
        # the instance level: \Obj(instance)\ for each instance, and (*)
        list=$( { typeperf -qx "$obj" 2>/dev/null; typeperf -q "$obj" 2>/dev/null; } | tr -d '\r' |
            sed -n 's/^\(\\[^\\(]*(.*)\\\)[^\\]*$/\1/p' | sort -u)
    else
        # the counter level: whole paths of this instance (or none)
        list=$( { typeperf -qx "$obj" 2>/dev/null; typeperf -q "$obj" 2>/dev/null; } | tr -d '\r' | sort -u)
    fi
    local -a found=()
    while IFS= read -r line; do
        [[ -n $line && $line == "$p"* ]] && found+=("$line")
    done <<<"$list"
    if [ ${#found[@]} -eq 1 ] && [ "${found[0]}" != "$p" ] &&
        { [[ ${found[0]} == *\( ]] || [[ ${found[0]} == *\\ ]]; }; then
        _perflib_path_candidates "${found[0]}"
        return
    fi
    [ ${#found[@]} -gt 0 ] && printf '%s\n' "${found[@]}"
}

# Complete a counter path, however the word is quoted: '\Memory\Av,
# "\Memory\Av or \\Memory\\Av (a path typed \Memory\Av without quotes, which
# the shell would read as MemoryAv, is taken as meant and given back
# quoted). Instances are completed from the machine's own list.
_perflib_paths() {
    local cur=$1 q= p
    case $cur in
        \'*) q=\'; p=${cur#\'}; p=${p%\'} ;;
        \"*) q=\"; p=${cur#\"}; p=${p%\"}
             p=${p//\\\\/\\}; p=${p//\\\"/\"}; p=${p//\\\$/\$}; p=${p//\\\`/\`} ;;
        *) if [[ $cur == \\* && $cur != \\\\* ]]; then
               # \Memory\Av typed bare: the user meant the path, not
               # "MemoryAv"; only the shell's own characters are escapes
               p=$(printf '%s' "$cur" | sed 's/\\\([][ ()\x27"&;|<>$*?!{}~#`\\]\)/\1/g')
           else
               p=$(printf '%s' "$cur" | sed 's/\\\(.\)/\1/g')
           fi ;;
    esac
    [[ $p == \\* || -z $p ]] || return
    [ -n "$p" ] || p='\'
    COMPREPLY=()
    local line word last=
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        case $q in
            \') word=$line ;;
            \") word=${line//\\/\\\\}; word=${word//\"/\\\"}; word=${word//\$/\\\$}; word=${word//\`/\\\`} ;;
            *) printf -v word '%q' "$line" ;;
        esac
        COMPREPLY+=("$word")
        last=$line
    done < <(_perflib_path_candidates "$p")
    # a part of a path is no word yet: no space (nor closing quote) after it
    if [ ${#COMPREPLY[@]} -ne 1 ] || [[ $last == *[\\\(] ]]; then
        compopt -o nospace 2>/dev/null
    fi
}

_perflib_typeperf() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        -f) COMPREPLY=($(compgen -W "CSV TSV BIN SQL" -- "$cur")); return ;;
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
        pview) opts="-d -s --replay --log --no-threads --perfd --no-perfd --help --version" ;;
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
