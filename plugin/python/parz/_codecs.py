"""The codecs Parz(codec=...) and cd_values(codec=...) choose, and their modes: the table that the
loaded plugin module reports (parz_h5_codecs: each codec's entry in the codec table of its build,
codec/frame/codec_modes.h), or zfp's alone before any module is loaded."""
import collections
import ctypes

from . import _lib

DEFAULT = "zfp"     # the codec of a call that names none; its cd_values carry no codec id
CODEC_UNIT = 65536  # cd_values[0] = mode + CODEC_UNIT * codec id, for a codec other than zfp

Mode = collections.namedtuple("Mode", "codec codec_id name number values names lossless about")
Mode.__doc__ = """One mode of a codec: its number in cd_values[0], its name (the keyword), its
values' letters ('d' a number > 0 carried as two words, 'u' an unsigned and 'i' a signed 32-bit
integer; '' none: name=True), the names of several values, whether it is lossless, what it does."""

# zfp's modes as codec/zfp/zfp_modes.c lists them, in parz_h5_codecs' form, so that the settings
# work before a module is loaded; python_tests/test_codec_choice.py holds it to the module's.
_ZFP = """\
zfp 1 rate 1 d - 0 bits per value (fixed rate)
zfp 1 precision 2 u - 0 bit planes, 1..64
zfp 1 accuracy 3 d - 0 absolute error bound (floating-point data)
zfp 1 expert 4 uuui minbits,maxbits,maxprec,minexp 0 zfp's parameters
zfp 1 reversible 5 - - 1 lossless
"""

_parsed = {}  # the module's table text -> its codecs


def parse(text):
    """{codec name: [Mode, ...]} of a table in parz_h5_codecs' form."""
    codecs = collections.OrderedDict()
    for line in text.splitlines():
        codec, cid, name, number, values, names, lossless, about = line.split(" ", 7)
        codecs.setdefault(codec, []).append(Mode(
            codec, int(cid), name, int(number), "" if values == "-" else values,
            () if names == "-" else tuple(names.split(",")), lossless == "1", about))
    return codecs


def module_table(lib):
    """The module's table text, or None for a module that reports none (an older one)."""
    try:
        f = lib.parz_h5_codecs
    except AttributeError:
        return None
    f.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    f.restype = ctypes.c_size_t
    size = f(None, 0) + 1
    out = ctypes.create_string_buffer(size)
    f(out, size)
    return out.value.decode()


def table():
    """{codec name: [Mode, ...]} of the registered module, zfp's alone before there is one."""
    lib = _lib.current()
    text = (module_table(lib) if lib is not None else None) or _ZFP
    if text not in _parsed:
        _parsed[text] = parse(text)
    return _parsed[text]


def find(codec):
    """The modes of the codec named `codec` (None: the default). A name this build does not know
    raises ValueError naming it and the known ones."""
    codecs = table()
    name = DEFAULT if codec is None else codec
    if not isinstance(name, str):
        raise TypeError("parz: codec must be a codec's name (%s), got %r"
                        % (", ".join(codecs), codec))
    if name not in codecs:
        raise ValueError("parz: codec %r is unknown to this build of ParZ; it knows %s"
                         % (codec, ", ".join(codecs)))
    return codecs[name]


def first_word(mode):
    """cd_values[0] of the mode."""
    return mode.number + (0 if mode.codec == DEFAULT else CODEC_UNIT * mode.codec_id)


def check(cd, nvalues):
    """Refuses (ValueError, the plugin's message) a mode's values that the module's rules refuse;
    cd[:1 + nvalues] is the mode and its values. Nothing is checked before a module is loaded, or
    with one too old to say (the filter checks them when the dataset is created)."""
    lib = _lib.current()
    f = getattr(lib, "parz_h5_cd_check", None) if lib is not None else None
    if f is None:
        return
    f.argtypes = [ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint), ctypes.c_char_p,
                  ctypes.c_size_t]
    f.restype = ctypes.c_int
    words = (ctypes.c_uint * (1 + nvalues))(*cd[:1 + nvalues])
    why = ctypes.create_string_buffer(400)
    if f(len(words), words, why, len(why)) != 0:
        raise ValueError(why.value.decode(errors="replace"))
