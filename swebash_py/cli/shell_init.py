"""`ai shell-init bash|zsh|fish`: a snippet that binds a key to "wish -> command",
and records this terminal's commands for `ai fix`.

The key (default Alt-\\) sends the text on the shell's command line to
``ai -s`` with stdout captured (so ``ai`` prints the bare command, no menu)
and replaces the line with the suggestion, cursor at the end, nothing run.
On an empty line right after a failed command it runs ``ai fix --no-tools``
instead and leaves the corrected command on the line (no tools: a question about
running one could not be answered on a line the shell's editor holds). An
empty line otherwise, a failure or an empty answer leave the line as it was.

History (``[shell_init] history``, on by default): each finished command's
start, end, exit status, directory and line are appended by the shell itself to
``<data dir>/shellhist/$SWEBASH_TERM_ID`` (one id per shell started, exported
so ``ai`` finds its terminal's file). No process is started per prompt (builtins
and one appended line; fish without /proc: one ``date``); ``shellhist.store``
parses, redacts and trims when ``ai`` reads. The hooks keep ``$?`` and run around the
user's own ``PROMPT_COMMAND`` / ``precmd`` / fish events, never instead of them.

Keys are written portably: ``alt-X`` or ``ctrl-X`` (one character), and
converted to each shell's own notation here.
"""

from __future__ import annotations

import re
from pathlib import Path

from swebash_py.errors import UsageError

SHELLS = ("bash", "zsh", "fish")
DEFAULT_KEY = "alt-\\"
_KEY = re.compile(r"^(alt|ctrl)-(.)$", re.IGNORECASE)

# bash: a PROMPT_COMMAND pair around the user's own (first: collect with the
# command's $?; last: arm the DEBUG trap and give $? back) records the line when
# bash's history has a new one ($HISTCMD moved; the line from `history 1`, sent
# to a scratch file and read back: a command substitution would fork each
# prompt). A line bash does not keep (HISTCONTROL=ignorespace) or an empty Enter
# is not recorded either. The DEBUG trap notes when the first command after a
# prompt starts (none for a lone subshell: no start then).
_BASH_HISTORY = r'''# swebash: records this terminal's finished commands for `ai fix`
export SWEBASH_TERM_ID="b$$-${{EPOCHREALTIME/[.,]/}}"
__swebash_hist_file={file_dir}/"$SWEBASH_TERM_ID"
__swebash_hist_scratch={file_dir}/".$SWEBASH_TERM_ID.last"  # `history 1` lands here, no fork
(umask 077; : >>"$__swebash_hist_file"; : >>"$__swebash_hist_scratch") 2>/dev/null
__swebash_hist_status=0 __swebash_hist_start= __swebash_hist_armed= __swebash_hist_seen=
__swebash_hist_debug() {{
    __swebash_hist_rc=$?
    [[ -n $__swebash_hist_armed ]] || return 0
    case $BASH_COMMAND in __swebash_*) return 0 ;; esac
    __swebash_hist_armed= __swebash_hist_start=${{EPOCHREALTIME:-0}}
}}
__swebash_hist_give_back() {{ return $__swebash_hist_rc; }}  # $? for a DEBUG trap we chain
__swebash_hist_collect() {{
    local s=$? end=${{EPOCHREALTIME:-0}} h line dir
    __swebash_hist_status=$s __swebash_hist_armed=
    if [[ -z $HISTCMD || $HISTCMD != "$__swebash_hist_seen" ]]; then  # a new history line
        if [[ -n $__swebash_hist_seen ]]; then
            # over the old text, NUL-ended, never truncated (ext4 flushes a truncated file)
            {{ builtin history 1; builtin printf '\0'; }} 1<>"$__swebash_hist_scratch" 2>/dev/null
            IFS= read -r -d '' h <"$__swebash_hist_scratch" 2>/dev/null
            if [[ ${{h%$'\n'}} =~ ^\ *[0-9]+\*?\ +(.*)$ ]]; then
                line=${{BASH_REMATCH[1]}} dir=$PWD
                line=${{line//\\/\\\\}} line=${{line//$'\n'/\\n}} line=${{line//$'\t'/\\t}}
                dir=${{dir//\\/\\\\}} dir=${{dir//$'\n'/\\n}} dir=${{dir//$'\t'/\\t}}
                builtin printf '%s\t%s\t%s\t%s\t%s\n' "${{__swebash_hist_start/,/.}}" \
                    "${{end/,/.}}" "$s" "$dir" "$line" >>"$__swebash_hist_file" 2>/dev/null
            fi
        fi
        __swebash_hist_seen=${{HISTCMD:-x}}
    fi
    __swebash_hist_start=
    return $s
}}
__swebash_hist_arm() {{
    __swebash_hist_armed=1
    return $__swebash_hist_status
}}
if [[ $PROMPT_COMMAND != *__swebash_hist_collect* ]]; then
    if [[ "$(declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]]; then
        PROMPT_COMMAND=(__swebash_hist_collect "${{PROMPT_COMMAND[@]}}" __swebash_hist_arm)
    else
        PROMPT_COMMAND="__swebash_hist_collect"$'\n'"${{PROMPT_COMMAND:+$PROMPT_COMMAND$'\n'}}__swebash_hist_arm"
    fi
    __swebash_hist_prev=$(trap -p DEBUG)
    if [[ -n $__swebash_hist_prev ]]; then  # the user's own DEBUG trap runs after ours
        eval "__swebash_hist_prev=($__swebash_hist_prev)"
        trap "__swebash_hist_debug; __swebash_hist_give_back; ${{__swebash_hist_prev[2]}}" DEBUG
    else
        trap '__swebash_hist_debug' DEBUG
    fi
    unset __swebash_hist_prev
fi
'''

_BASH = r'''# swebash: {key} turns the wish on the command line into a command (nothing runs);
# on an empty line after a failed command, `ai fix` puts the corrected command there
__swebash_wish() {{
    local wish="$READLINE_LINE" cmd
    if [[ -z "${{wish//[[:space:]]/}}" ]]; then
        [[ -n $__swebash_hist_file && ${{__swebash_hist_status:-0}} != 0 ]] || return 0
        builtin printf 'ai: thinking...' >&2
        cmd=$(SHELL=bash command ai fix --no-tools </dev/null)
        local code=$?
        builtin printf '\r\e[K' >&2
        (( code == 0 )) || return 0
    else
        builtin printf 'ai: thinking...' >&2
        cmd=$(SHELL=bash command ai -s -- "$wish" </dev/null)
        local code=$?
        builtin printf '\r\e[K' >&2
        (( code == 0 )) || return 0
    fi
    [[ -n "$cmd" ]] || return 0
    READLINE_LINE="$cmd"
    READLINE_POINT=$(LC_ALL=C; printf '%s' "${{#cmd}}")
}}
bind -m emacs -x '"{seq}": __swebash_wish'
bind -m vi-insert -x '"{seq}": __swebash_wish'
'''

# zsh: preexec has the line as typed; our precmd goes first, so $? is the
# command's, and returns it for the user's precmd functions and the prompt.
_ZSH_HISTORY = r'''# swebash: records this terminal's finished commands for `ai fix`
zmodload zsh/datetime 2>/dev/null
export SWEBASH_TERM_ID="z$$-${{EPOCHREALTIME/./}}"
typeset -g __swebash_hist_file={file_dir}/"$SWEBASH_TERM_ID"
__swebash_hist_scratch={file_dir}/".$SWEBASH_TERM_ID.last"  # `history 1` lands here, no fork
(umask 077; : >>"$__swebash_hist_file"; : >>"$__swebash_hist_scratch") 2>/dev/null
(umask 077; : >>"$__swebash_hist_file") 2>/dev/null  # private from the start
typeset -g __swebash_hist_status=0 __swebash_hist_start= __swebash_hist_line=
__swebash_hist_preexec() {{
    [[ -o histignorespace && $1 == ' '* ]] && return 0  # the user's "do not keep this"
    __swebash_hist_line=$1 __swebash_hist_start=${{EPOCHREALTIME:-0}}
}}
__swebash_hist_precmd() {{
    local s=$? end=${{EPOCHREALTIME:-0}} line dir
    __swebash_hist_status=$s
    if [[ -n $__swebash_hist_line ]]; then
        line=$__swebash_hist_line dir=$PWD
        line=${{line//\\/\\\\}} line=${{line//$'\n'/\\n}} line=${{line//$'\t'/\\t}}
        dir=${{dir//\\/\\\\}} dir=${{dir//$'\n'/\\n}} dir=${{dir//$'\t'/\\t}}
        builtin printf '%s\t%s\t%s\t%s\t%s\n' "$__swebash_hist_start" "$end" "$s" "$dir" \
            "$line" >>"$__swebash_hist_file" 2>/dev/null
        __swebash_hist_line=
    fi
    return $s
}}
typeset -ga preexec_functions precmd_functions
preexec_functions=(${{preexec_functions:#__swebash_hist_preexec}} __swebash_hist_preexec)
precmd_functions=(__swebash_hist_precmd ${{precmd_functions:#__swebash_hist_precmd}})
'''

_ZSH = r'''# swebash: {key} turns the wish on the command line into a command (nothing runs);
# on an empty line after a failed command, `ai fix` puts the corrected command there
__swebash_wish() {{
    local wish="$BUFFER" cmd code
    if [[ -z "${{wish//[[:space:]]/}}" ]]; then
        [[ -n $__swebash_hist_file && ${{__swebash_hist_status:-0}} != 0 ]] || return 0
        zle -M "ai: thinking..."
        cmd=$(SHELL=zsh command ai fix --no-tools </dev/null)
    else
        zle -M "ai: thinking..."
        cmd=$(SHELL=zsh command ai -s -- "$wish" </dev/null)
    fi
    code=$?
    zle -M ""
    if (( code == 0 )) && [[ -n "$cmd" ]]; then
        BUFFER="$cmd"
        CURSOR=${{#BUFFER}}
    fi
    zle reset-prompt
}}
zle -N __swebash_wish
bindkey -M emacs '{seq}' __swebash_wish
bindkey -M viins '{seq}' __swebash_wish
'''

# fish: fish_postexec has the line and $status. fish has no clock variable, and
# `date` each prompt costs a fork: /proc/uptime (read by a builtin) plus the boot
# time measured once gives the end, CMD_DURATION the start (`date` without /proc).
_FISH_HISTORY = r'''# swebash: records this terminal's finished commands for `ai fix`
set -gx SWEBASH_TERM_ID f$fish_pid-(command date +%s%N)
set -g __swebash_hist_file {file_dir}/$SWEBASH_TERM_ID
command sh -c 'umask 077; : >>"$1"' sh $__swebash_hist_file 2>/dev/null  # private from the start
set -g __swebash_hist_status 0
if read -l up _ </proc/uptime 2>/dev/null
    set -g __swebash_hist_boot (math -s6 (command date +%s.%N) - $up)
end
function __swebash_hist_escape
    string replace -a -- '\\' '\\\\' $argv[1] | string replace -a -- \t '\t' | string join '\n'
end
function __swebash_hist_postexec --on-event fish_postexec
    set -l s $status
    set -g __swebash_hist_status $s
    string length -q -- (string trim -- "$argv[1]"); or return $s
    set -l end
    if set -q __swebash_hist_boot; and read -l up _ </proc/uptime 2>/dev/null
        set end (math -s3 $__swebash_hist_boot + $up)
    else
        set end (command date +%s.%N)
    end
    set -l start (math -s6 "$end - $CMD_DURATION / 1000")
    printf '%s\t%s\t%s\t%s\t%s\n' $start $end $s (__swebash_hist_escape "$PWD") \
        (__swebash_hist_escape "$argv[1]") >>$__swebash_hist_file 2>/dev/null
    return $s
end
'''

_FISH = r'''# swebash: {key} turns the wish on the command line into a command (nothing runs);
# on an empty line after a failed command, `ai fix` puts the corrected command there
function __swebash_wish
    set -l wish (commandline | string collect)
    set -l cmd
    if not string trim -- "$wish" | string length -q
        set -q __swebash_hist_file; and test "$__swebash_hist_status" != 0; or return 0
        printf 'ai: thinking...' >&2
        set cmd (SHELL=fish command ai fix --no-tools </dev/null | string collect)
    else
        printf 'ai: thinking...' >&2
        set cmd (SHELL=fish command ai -s -- "$wish" </dev/null | string collect)
    end
    set -l code $status
    printf '\r\e[K' >&2
    if test $code -eq 0; and test -n "$cmd"
        commandline -r -- $cmd
        commandline -C (string length -- "$cmd")
    end
    commandline -f repaint
end
bind {seq} __swebash_wish
bind -M insert {seq} __swebash_wish
'''

_TEMPLATES = {"bash": _BASH, "zsh": _ZSH, "fish": _FISH}
_HISTORY = {"bash": _BASH_HISTORY, "zsh": _ZSH_HISTORY, "fish": _FISH_HISTORY}


def snippet(shell: str, key: str = DEFAULT_KEY, history_dir: Path | None = None) -> str:
    """The text to ``eval`` / ``source`` in ``shell`` (UsageError if unknown);
    with ``history_dir``, the hooks that record each command there too."""
    if shell not in SHELLS:
        raise UsageError(f"unknown shell '{shell}': use one of {', '.join(SHELLS)}")
    text = _TEMPLATES[shell].format(key=key, seq=key_sequence(shell, key))
    if history_dir is None:
        return text
    return _HISTORY[shell].format(file_dir=quoted(shell, str(history_dir))) + text


def quoted(shell: str, text: str) -> str:
    """``text`` as one word of ``shell`` (single quotes; fish escapes inside them)."""
    if shell == "fish":
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return "'" + text.replace("'", "'\\''") + "'"


def key_sequence(shell: str, key: str) -> str:
    """``alt-X`` / ``ctrl-X`` in the notation of ``shell``'s bind command."""
    found = _KEY.match(key.strip())
    if not found or not found.group(2).isprintable() or found.group(2) in "'\" ":
        raise UsageError(f"invalid key '{key}': write alt-X or ctrl-X (X one character, "
                         "not a quote or space)")
    kind, char = found.group(1).lower(), found.group(2)
    if kind == "ctrl":
        if not char.isalpha():
            raise UsageError(f"invalid key '{key}': ctrl- takes a letter")
        return {"bash": f"\\C-{char.lower()}", "zsh": f"^{char.upper()}",
                "fish": f"\\c{char.lower()}"}[shell]
    escaped = "\\\\" if char == "\\" else char
    if shell == "zsh":
        return f"^[{escaped}"
    if shell == "fish" and not char.isalnum() and char != "\\":
        escaped = "\\" + char  # fish needs punctuation escaped in a bare word
    return f"\\e{escaped}"
