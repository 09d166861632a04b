#!/usr/bin/env python3
"""Fails on a cycle between files of the codec and its drivers.

  check_cycles.py --includes ROOT DIR...   the graph of #include "..." lines between the
                                           files under ROOT/DIR... (a name resolves to a file of
                                           the includer's folder first, then to the one file of
                                           that name under the DIRs)
  check_cycles.py --calls ARCHIVE...       the graph of calls between the object files of
                                           static libraries (nm, or $NM): an edge from the file
                                           that leaves a symbol undefined to the file defining it

Prints each cycle found (as a path of files) and exits 1 if there is one, else prints the
number of files and edges and exits 0.
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = (".c", ".h", ".cu", ".cuh", ".cpp")


def include_graph(root, dirs):
    files = []
    for d in dirs:
        for base, _, names in os.walk(os.path.join(root, d)):
            files += [os.path.join(base, n) for n in names if n.endswith(SOURCES)]
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    graph = {}
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as h:
            text = h.read()
        edges = set()
        for name in INCLUDE.findall(text):
            local = os.path.normpath(os.path.join(os.path.dirname(f), name))
            if os.path.exists(local):
                target = local
            elif len(by_name.get(os.path.basename(name), [])) == 1:
                target = by_name[os.path.basename(name)][0]
            else:
                continue  # a header from outside these folders
            if target != f:  # a header that includes itself once per width is no cycle
                edges.add(target)
        graph[os.path.relpath(f, root)] = {os.path.relpath(t, root) for t in edges}
    return graph


def archive_symbols(archive, owner, defined, undefined):
    """Adds the symbols of a static library's object files (nm, or $NM) to defined (symbol ->
    owners) and undefined (owner -> symbols); owner(member) names the file an object (NAME.o,
    member NAME) belongs to."""
    out = subprocess.run([os.environ.get("NM") or "nm", "-A", archive], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        where, _, rest = line.rpartition(".o:")
        if not where:
            continue
        key = owner(where.split(":")[-1])
        fields = rest.split()
        undefined.setdefault(key, set())
        if len(fields) == 2 and fields[0] == "U":
            undefined[key].add(fields[1])
        elif len(fields) == 3 and fields[1] in "TDBRVWG":
            defined.setdefault(fields[2], set()).add(key)


def call_graph(archives):
    defined, undefined = {}, {}
    for a in archives:
        archive_symbols(a, lambda member, a=a: os.path.basename(a) + ":" + member + ".o", defined, undefined)
    return {f: {g for s in syms for g in defined.get(s, ()) if g != f}
            for f, syms in undefined.items()}


def cycles(graph):
    """One cycle per strongly connected component of more than one file (Tarjan)."""
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    for comp in comps:  # a shortest way back to the component's first file
        start, members = comp[0], set(comp)
        prev, frontier, path = {start: None}, [start], None
        while frontier and path is None:
            nxt = []
            for v in frontier:
                for w in sorted(graph[v] & members):
                    if w == start and path is None:
                        path = [v]
                        while prev[path[-1]] is not None:
                            path.append(prev[path[-1]])
                        path = list(reversed(path)) + [start]
                    elif w not in prev:
                        prev[w] = v
                        nxt.append(w)
            frontier = nxt
        print("cycle among %d files (%s): %s" % (len(comp), ", ".join(comp), " -> ".join(path)))
    return comps


def main(argv):
    if len(argv) >= 3 and argv[1] == "--includes":
        graph = include_graph(argv[2], argv[3:])
    elif len(argv) >= 3 and argv[1] == "--calls":
        graph = call_graph(argv[2:])
    else:
        sys.stderr.write(__doc__)
        return 2
    comps = cycles(graph)
    if comps:
        return 1
    print("no cycles: %d files, %d edges" % (len(graph), sum(len(e) for e in graph.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
