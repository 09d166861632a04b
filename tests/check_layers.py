#!/usr/bin/env python3
"""Fails where the frame or the OpenMP drivers reach into a codec past the codec interface.

  check_layers.py --includes ROOT CODEC...   no file of codec/frame/ or omp/ under ROOT includes
                                             a header of codec/CODEC/ (a name resolves to a file
                                             of the includer's folder first, then to the one
                                             file of that name under codec/ and omp/)
  check_layers.py --calls ROOT CODEC... -- DIR=ARCHIVE...
                                             no object file of the static libraries (nm, or
                                             $NM; each built from the files under ROOT/DIR)
                                             built from codec/frame/ or omp/ leaves undefined a
                                             symbol that an object file built from codec/CODEC/
                                             defines

The frame is what every codec shares and the drivers talk to codecs only through the table of
codecs (codec/frame/codecs.h), so a new codec is one folder and one table entry. Prints each
breach (the file and what it reaches) and exits 1 if there is one, else prints what it checked
and exits 0.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_cycles  # noqa: E402  (the nm reader both checks share)

INCLUDE, SOURCES = check_cycles.INCLUDE, check_cycles.SOURCES
# The table of codecs names every codec: it is where a codec registers, the one file of the frame
# that may name one.
REGISTRY = os.path.join("codec", "frame", "codec_table.c")


def sources(root, dirs):
    files = []
    for d in dirs:
        for base, _, names in os.walk(os.path.join(root, d)):
            files += [os.path.relpath(os.path.join(base, n), root) for n in names if n.endswith(SOURCES)]
    return sorted(files)


def folder_of(path, codecs):
    """'frame', 'omp', a codec's name or None, for a path relative to the root."""
    parts = path.split(os.sep)
    if parts[0] == "omp":
        return "omp"
    if len(parts) > 2 and parts[0] == "codec":
        if parts[1] == "frame":
            return "frame"
        if parts[1] in codecs:
            return parts[1]
    return None


def include_breaches(root, codecs):
    files = sources(root, ["codec", "omp"])
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    breaches = []
    for f in files:
        if folder_of(f, codecs) not in ("frame", "omp"):
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as h:
            text = h.read()
        for name in INCLUDE.findall(text):
            local = os.path.normpath(os.path.join(os.path.dirname(f), name))
            if os.path.exists(os.path.join(root, local)):
                target = local
            elif len(by_name.get(os.path.basename(name), [])) == 1:
                target = by_name[os.path.basename(name)][0]
            else:
                continue  # a header from outside these folders
            if folder_of(target, codecs) in codecs:
                breaches.append("%s includes %s" % (f, target))
    return len(files), breaches


def call_breaches(root, codecs, archives):
    """Object files are named after their sources (NAME.c.o); a name must be one file of the
    archive's folder."""
    defined, undefined = {}, {}
    for spec in archives:
        folder, _, a = spec.partition("=")
        if not a:
            raise SystemExit("%s: not DIR=ARCHIVE" % spec)
        by_name = {}
        for f in sources(root, [folder]):
            by_name.setdefault(os.path.basename(f), []).append(f)

        def owner(member, a=a, folder=folder, by_name=by_name):
            found = by_name.get(member, [])
            if len(found) > 1:  # a file of a codec not checked (nor in this archive) shares the name
                found = [f for f in found if folder_of(f, codecs) or os.path.dirname(f) == folder]
            if len(found) != 1:
                raise SystemExit("%s: object %s.o is not one source file under %s/ (%s)" %
                                 (a, member, folder, ", ".join(found) or "none"))
            return found[0]

        check_cycles.archive_symbols(a, owner, defined, undefined)
    breaches = []
    for src in sorted(undefined):
        if folder_of(src, codecs) not in ("frame", "omp") or src == REGISTRY:
            continue
        for sym in sorted(undefined[src]):
            for g in sorted(defined.get(sym, ())):
                if folder_of(g, codecs) in codecs:
                    breaches.append("%s calls %s (%s)" % (src, sym, g))
    return len(undefined), breaches


def main(argv):
    if len(argv) >= 4 and argv[1] == "--includes":
        root, codecs = argv[2], argv[3:]
        n, breaches = include_breaches(root, codecs)
    elif len(argv) >= 6 and argv[1] == "--calls" and "--" in argv:
        cut = argv.index("--")
        root, codecs, archives = argv[2], argv[3:cut], argv[cut + 1:]
        if not codecs or not archives:
            sys.stderr.write(__doc__)
            return 2
        n, breaches = call_breaches(root, codecs, archives)
    else:
        sys.stderr.write(__doc__)
        return 2
    for b in breaches:
        print("past the codec interface: " + b)
    if breaches:
        return 1
    print("the frame and omp/ reach %s only through codecs.h: %d files" % (", ".join(codecs), n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
