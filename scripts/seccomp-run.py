#!/usr/bin/python3
"""Runs a command under the seccomp part of a systemd unit's sandbox (check-deploy's weak check).

    seccomp-run.py UNIT -- COMMAND [ARGS...]

Where systemd runs, check-deploy runs the agent under the whole unit with systemd-run. Where it
doesn't (a container), this applies what systemd would put into seccomp for the unit, with
libseccomp as systemd does, then execs COMMAND:

  SystemCallFilter=     the allow list, groups expanded by `systemd-analyze syscall-filter`,
                        with the ~deny and allow lines applied in order, as systemd does; a
                        refused call fails with SystemCallErrorNumber
  SystemCallArchitectures=native   calls of other ABIs kill the process (libseccomp's default)
  RestrictAddressFamilies=         socket() of another family fails with EAFNOSUPPORT
  MemoryDenyWriteExecute=yes       mmap W+X, mprotect/pkey_mprotect +X and shmat SHM_EXEC fail
  LockPersonality=yes              personality() of another than the current one fails
  NoNewPrivileges=yes              set before the filters, as systemd does

Like systemd, each of these is its own filter; the kernel applies the strictest answer. The rest
of the sandbox (mount namespaces, the device cgroup, capabilities, the user) is not seccomp:
check-deploy drops the user and capabilities with setpriv, and the rest needs systemd.
"""
import errno
import os
import re
import subprocess
import sys

import seccomp


def unit_settings(path):
    """The [Service] assignments of a unit file, in order, as (key, value) pairs."""
    section, settings = None, []
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line
                continue
            if section == "[Service]" and "=" in line:
                key, value = line.split("=", 1)
                settings.append((key.strip(), value.strip()))
    return settings


def syscall_groups():
    """Every group systemd knows, e.g. {'@system-service': ['@aio', ..., 'uname']}."""
    out = subprocess.run(["systemd-analyze", "syscall-filter", "--no-pager"], check=True,
                         capture_output=True, text=True).stdout
    groups, current = {}, None
    for line in out.splitlines():
        if line.startswith("@"):
            current = line.split()[0]
            groups[current] = []
        elif current and line.strip() and not line.strip().startswith("#"):
            groups[current].append(line.split()[0])
    return groups


def expand(names, groups, seen=None):
    seen = set() if seen is None else seen
    calls = set()
    for name in names:
        if name.startswith("@"):
            if name in seen:
                continue
            seen.add(name)
            if name not in groups:
                sys.exit(f"seccomp-run: unknown system call group {name}")
            calls |= expand(groups[name], groups, seen)
        else:
            calls.add(name)
    return calls


def resolvable(name):
    """False for a call this libseccomp doesn't know (-1); systemd skips those too."""
    try:
        return seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) != -1
    except (ValueError, RuntimeError):
        return False


def address_family(name):
    import socket
    value = getattr(socket, name, None)
    if value is None:
        sys.exit(f"seccomp-run: unknown address family {name}")
    return int(value)


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    unit, command = sys.argv[1], sys.argv[3:]
    settings = unit_settings(unit)
    groups = syscall_groups()
    filters, syscall_filter = [], None

    # SystemCallFilter: the first line's kind (allow or ~deny) decides, as in systemd; the lines
    # then apply in order, each adding names to that list or taking them away (so a later
    # `SystemCallFilter=setpriority` allows one call again that a ~group line took away).
    # systemd starts every allow list with @default.
    names_set, first = set(), None
    for key, value in settings:
        if key != "SystemCallFilter" or not value:
            continue
        negate = value.startswith("~")
        names = expand(value.lstrip("~").split(), groups)
        if first is None:
            first = "deny" if negate else "allow"
            if first == "allow":
                names_set |= expand(["@default"], groups)
        if negate == (first == "deny"):
            names_set |= names
        else:
            names_set -= names
    err_name = dict(settings).get("SystemCallErrorNumber", "")
    action = seccomp.ERRNO(getattr(errno, err_name)) if err_name else seccomp.KILL_PROCESS
    if first == "allow":
        allowed = names_set
        f = seccomp.SyscallFilter(defaction=action)
        for name in sorted(n for n in allowed if resolvable(n)):
            f.add_rule(seccomp.ALLOW, name)
        syscall_filter = f
        print(f"seccomp-run: {len(allowed)} system calls allowed, the rest fail with "
              f"{err_name or 'SIGSYS'}", file=sys.stderr)
    elif first == "deny":
        f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        for name in sorted(n for n in names_set if resolvable(n)):
            f.add_rule(action, name)
        syscall_filter = f

    families = [v for k, v in settings if k == "RestrictAddressFamilies"]
    if families and not families[0].startswith("~"):
        allowed = sorted({address_family(n) for v in families for n in v.split()})
        f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        refuse = seccomp.ERRNO(errno.EAFNOSUPPORT)
        f.add_rule(refuse, "socket", seccomp.Arg(0, seccomp.GT, allowed[-1]))
        for family in range(0, allowed[-1]):
            if family not in allowed:
                f.add_rule(refuse, "socket", seccomp.Arg(0, seccomp.EQ, family))
        filters.append(f)
        print(f"seccomp-run: socket families {allowed} only", file=sys.stderr)

    if dict(settings).get("MemoryDenyWriteExecute") == "yes":
        PROT_WRITE, PROT_EXEC, SHM_EXEC = 0x2, 0x4, 0o100000
        f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        refuse = seccomp.ERRNO(errno.EPERM)
        f.add_rule(refuse, "mmap", seccomp.Arg(2, seccomp.MASKED_EQ, PROT_WRITE | PROT_EXEC,
                                               PROT_WRITE | PROT_EXEC))
        for name in ("mprotect", "pkey_mprotect"):
            f.add_rule(refuse, name, seccomp.Arg(2, seccomp.MASKED_EQ, PROT_EXEC, PROT_EXEC))
        f.add_rule(refuse, "shmat", seccomp.Arg(2, seccomp.MASKED_EQ, SHM_EXEC, SHM_EXEC))
        filters.append(f)
        print("seccomp-run: memory may not be writable and executable", file=sys.stderr)

    if dict(settings).get("LockPersonality") == "yes":
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        current = libc.personality(0xFFFFFFFF)
        f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        # As systemd: one rule, anything but the current personality fails.
        f.add_rule(seccomp.ERRNO(errno.EPERM), "personality", seccomp.Arg(0, seccomp.NE, current))
        filters.append(f)

    # libseccomp sets no_new_privs before loading (its default), as NoNewPrivileges=yes does.
    # The system call list goes last, as in systemd: it may refuse seccomp() itself, which
    # loading the other filters needs.
    for f in filters + [syscall_filter] * (syscall_filter is not None):
        f.load()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
