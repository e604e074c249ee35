# bash completion for plumb(1). Written by `make docs` from the command line's own specs (Sources/PlumbCLI): edit those and run `make docs`, never this file.
_plumb() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local commands="bubble calibrate convert dashboard fleet forget probe read rise ruler run selftest shim vibration watch"
    local command="" word
    for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
        case " $commands " in *" $word "*) command=$word; break ;; esac
    done
    if [ -z "$command" ]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    # Each command's options; those that take a value; those whose value is a path.
    local options values paths
    case $command in
        bubble)
            options="--bus --sensor --address --direct --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --state-dir --config --raw --unit --tolerance --mount --format --out --help"
            values="--bus --sensor --address --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --state-dir --config --unit --tolerance --mount --format --out"
            paths="--bus --socket --state-dir --config --out" ;;
        calibrate)
            options="--bus --sensor --address --direct --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --state-dir --config --mount --seconds --temperature --timeout --json --help"
            values="--bus --sensor --address --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --state-dir --config --mount --seconds --temperature --timeout"
            paths="--bus --socket --state-dir --config" ;;
        convert)
            options="--px-per-unit --px-unit --json --help"
            values="--px-per-unit --px-unit"
            paths="" ;;
        dashboard)
            options="--device-id --config --state-dir --help"
            values="--device-id --config --state-dir"
            paths="--config --state-dir" ;;
        fleet)
            options="--broker --base-topic --config --json --watch --help"
            values="--broker --base-topic --config"
            paths="--config" ;;
        forget)
            options="--device-id --config --broker --wait --force --help"
            values="--device-id --config --broker --wait"
            paths="--config" ;;
        probe)
            options="--bus --sensor --address --direct --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --scan --json --help"
            values="--bus --sensor --address --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault"
            paths="--bus --socket" ;;
        read)
            options="--bus --sensor --address --direct --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --state-dir --config --raw --unit --rate --average --tolerance --mount --count --watch --json --help"
            values="--bus --sensor --address --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --state-dir --config --unit --rate --average --tolerance --mount --count"
            paths="--bus --socket --state-dir --config" ;;
        rise)
            options="--bus --sensor --address --direct --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --state-dir --config --raw --axis --result-unit --unit --mount --json --help"
            values="--bus --sensor --address --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --state-dir --config --axis --result-unit --unit --mount"
            paths="--bus --socket --state-dir --config" ;;
        ruler)
            options="--style --px-per-unit --indicator-px --json --svg --help"
            values="--style --px-per-unit --indicator-px --svg"
            paths="--svg" ;;
        run)
            options="--config --sensor --broker --device-id --state-dir --help --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault"
            values="--config --sensor --broker --device-id --state-dir --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault"
            paths="--config --state-dir" ;;
        selftest)
            options="--bus --sensor --address --direct --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --supply --json --help"
            values="--bus --sensor --address --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --supply"
            paths="--bus --socket" ;;
        shim)
            options="--bus --sensor --address --direct --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --state-dir --config --raw --length --width --unit --feet --result-unit --mount --json --help"
            values="--bus --sensor --address --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --state-dir --config --length --width --unit --feet --result-unit --mount"
            paths="--bus --socket --state-dir --config" ;;
        vibration)
            options="--bus --sensor --address --direct --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --rate --window --class --threshold --count --watch --json --help"
            values="--bus --sensor --address --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --rate --window --class --threshold --count"
            paths="--bus --socket" ;;
        watch)
            options="--bus --sensor --address --direct --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --state-dir --config --raw --unit --tolerance --mount --average-window --span --axis --length --width --feet --result-unit --rate --class --count --help"
            values="--bus --sensor --address --socket --sim-chip --sim-roll --sim-pitch --sim-motion --sim-noise-lsb --sim-offset-mg --sim-gain-error --sim-cross-axis --sim-nonlinearity --sim-chip-seed --sim-script --sim-temperature --sim-temperature-cycle --sim-vibration --sim-vibration-noise --sim-machine --sim-seed --sim-fault --state-dir --config --unit --tolerance --mount --average-window --span --axis --length --width --feet --result-unit --rate --class --count"
            paths="--bus --socket --state-dir --config" ;;
    esac
    case " $paths " in *" $prev "*) COMPREPLY=($(compgen -f -- "$cur")); return ;; esac
    case " $values " in *" $prev "*) COMPREPLY=(); return ;; esac
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
}
complete -F _plumb plumb
