#!/usr/bin/env python3
"""Fails where a library keeps mutable state of its own: a writable variable of static storage.

  check_state.py ARCHIVE...   no object file of the static libraries (objdump -t, or $OBJDUMP)
                              defines a variable in writable memory (.data, .bss, common or
                              thread-local: a variable at file scope or a function's static one)

The codec and its OpenMP drivers hold nothing between calls: what a caller reuses across calls
(a keep of blocks, codec/parz_chunk.h) is an object the caller creates, passes and frees, so
that two callers in one process never share or race on state they did not give. Constant tables
pass, those holding pointers too (.data.rel.ro: written once, by the loader). So do the few
variables of PROCESS below, which record facts of the process itself, the same for every caller.
Prints each variable found (the library, the object file and the symbol) and exits 1 if there
is one, else prints the number of object files and exits 0.
"""
import os
import subprocess
import sys

# Sections of writable variables: data, bss, common, thread-local.
WRITABLE = (".data", ".bss", "*COM*", ".tdata", ".tbss")
# Read-only once loaded: constant tables that hold pointers.
RELRO = ".data.rel.ro"
# What the process is, not what a caller did: whether it is a child forked after the OpenMP
# pool started (omp/team.c), the system's overcommit mode read at load (omp/thread_room.c),
# and the lock OpenMP makes for a named critical section (omp/team.c).
PROCESS = {"forked_child", "strict_overcommit", ".gomp_critical_user_parz_omp_first_error"}


def writable_variables(archive):
    """(object files, [(object, section, symbol)]) of one static library."""
    out = subprocess.run([os.environ.get("OBJDUMP") or "objdump", "-t", archive], check=True,
                         capture_output=True, text=True).stdout
    objects, found, member = set(), [], None
    for line in out.splitlines():
        if ":     file format " in line:  # a member's table begins
            member = line.split(":")[0]
            objects.add(member)
            continue
        left, tab, right = line.partition("\t")
        if not tab or member is None or len(left) < 17:
            continue
        flags, section = left[17:24], left[24:].strip()
        name = right.split()[-1] if right.split() else ""
        if "O" not in flags:
            continue
        if section.startswith(RELRO) or not section.startswith(WRITABLE) or name in PROCESS:
            continue
        found.append((member, section, name))
    return objects, found


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    nobjects, breaches = 0, []
    for a in argv[1:]:
        objects, found = writable_variables(a)
        nobjects += len(objects)
        breaches += ["%s: %s (%s) in %s" % (os.path.basename(a), s, t, o) for o, t, s in found]
    for b in breaches:
        print("mutable state of the library: " + b)
    if breaches:
        return 1
    print("no writable static variable in %d object files of %s" %
          (nobjects, ", ".join(os.path.basename(a) for a in argv[1:])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
