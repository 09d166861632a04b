"""The Parz compression settings object and its cd_values (see parz.__doc__)."""
import functools
import inspect
import math
import numbers
import struct
import sys

import numpy as np

from . import _codecs


def _filter_ref_base():
    """The FilterRefBase class that h5py's create_dataset tests compression= against (h5py 3.0
    and later; h5py._hl.filters). Reached through the module that creates datasets rather than
    imported by name: h5py.filters is an attribute, not an importable module, in pip's h5py, and
    Debian's h5py lives in another package, where importing h5py._hl.filters by name loads a
    second copy whose class h5py does not test against. Without it (h5py 2) the Mapping form
    remains: create_dataset(..., **Parz(...))."""
    try:
        import h5py
        return sys.modules[h5py.Dataset.__module__].filters.FilterRefBase
    except (ImportError, AttributeError, KeyError):
        from collections.abc import Mapping
        return Mapping


_Base = _filter_ref_base()

FILTER_ID = 37050

MODE_RATE = 1
MODE_PRECISION = 2
MODE_ACCURACY = 3
MODE_EXPERT = 4
MODE_REVERSIBLE = 5

_CHECKSUM_ON = 1   # cd_values' payload checksum setting (0 = default, on)
_CHECKSUM_OFF = 2

_MASK_ON = 1       # cd_values' mask setting (0 = default, on)
_MASK_OFF = 2
_MASK_FILL = 3     # on, with the fill value in the next two values

TABLE_AUTO = 0
TABLE_NONE = 1
TABLE_OFFSETS = 2
TABLE_LENGTHS = 3
TABLE_HYBRID = 4

_TABLE_NAMES = {"auto": TABLE_AUTO, "none": TABLE_NONE, "offsets": TABLE_OFFSETS,
                "lengths": TABLE_LENGTHS, "hybrid": TABLE_HYBRID}

_U32 = 0xFFFFFFFF


def _is_number(x):
    """Whether x is a real number (a NumPy one too); True and False are not."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _is_bool(x):
    """Whether x is True or False (NumPy's too)."""
    return isinstance(x, (bool, np.bool_))


def double_words(x):
    """(high, low) 32-bit words of the IEEE-754 binary64 bit pattern of x, a real number."""
    if not _is_number(x):
        raise TypeError("parz: double_words takes a real number, got %r" % (x,))
    try:
        (bits,) = struct.unpack("<Q", struct.pack("<d", float(x)))
    except OverflowError:
        raise ValueError("parz: %r is beyond the range of a double" % (x,)) from None
    return bits >> 32, bits & _U32


def _check_u32(name, v):
    """v, an integer in 0..2**32-1 (a float of such a value too), as an int."""
    message = "parz: %s must be an integer in 0..2**32-1, got %r" % (name, v)
    if not _is_number(v):
        raise TypeError(message)
    try:
        ok = int(v) == v and 0 <= int(v) <= _U32
    except (ValueError, OverflowError):  # NaN, infinities
        ok = False
    if not ok:
        raise ValueError(message)
    return int(v)


def _table_kind(v):
    """A TABLE_* number, or its name ("auto", "none", "offsets", "lengths", "hybrid")."""
    if isinstance(v, str):
        try:
            return _TABLE_NAMES[v.strip().lower()]
        except KeyError:
            raise ValueError("parz: table must be one of %s (or parz.TABLE_*), got %r"
                             % (", ".join(repr(k) for k in _TABLE_NAMES), v))
    return _check_u32("table", v)


def _keywords_only(func):
    """func called with keyword arguments only; a positional value or an unknown name raises
    TypeError("parz: ...") naming the accepted keywords (Python's own message would not)."""
    params = inspect.signature(func).parameters.values()
    names = [p.name for p in params if p.kind == p.KEYWORD_ONLY]
    fixed = len([p for p in params if p.kind == p.POSITIONAL_OR_KEYWORD])  # self
    more = any(p.kind == p.VAR_KEYWORD for p in params)  # a codec's modes: func checks them
    title = func.__qualname__.replace(".__init__", "")

    @functools.wraps(func)
    def call(*args, **kwargs):
        if len(args) > fixed:
            raise TypeError("parz: %s takes keyword arguments only (e.g. accuracy=1e-3), got %d "
                            "positional" % (title, len(args) - fixed))
        unknown = sorted(set(kwargs) - set(names))
        if unknown and not more:
            raise TypeError("parz: %s got unknown argument%s %s; it takes %s"
                            % (title, "s" if len(unknown) > 1 else "", ", ".join(unknown),
                               ", ".join(names)))
        return func(*args, **kwargs)
    return call


def _positive_double(name, meaning, x):
    """The two words of a finite x > 0 (rate and tolerance), else an error naming it."""
    message = "parz: %s must be a finite number > 0 (%s), got %r" % (name, meaning, x)
    if not _is_number(x):
        raise TypeError(message)
    try:
        ok = math.isfinite(x) and x > 0
    except OverflowError:  # an int beyond a double's range
        ok = False
    if not ok:
        raise ValueError(message)
    return double_words(x)


def _fill_words(fill_value):
    """The two words of a fill value given as a number (a NumPy scalar too)."""
    if not _is_number(fill_value):
        raise TypeError("parz: fill_value must be a number, got %r" % (fill_value,))
    try:
        x = float(fill_value)
    except OverflowError:
        raise ValueError("parz: fill_value %r is beyond the range of a double" % (fill_value,))
    if isinstance(fill_value, int) and int(x) != fill_value:
        raise ValueError("parz: fill_value %r is not exactly a double (cd_values carry the fill "
                         "value as one)" % (fill_value,))
    return double_words(x)


def _mode_words(mode, x):
    """The cd_values words of x, the value(s) of `mode` (a _codecs.Mode with values)."""
    if len(mode.values) == 1:
        letter, names, xs = mode.values, (mode.name,), (x,)
    else:
        letter, names = mode.values, mode.names
        form = "parz: %s=(%s), got %r" % (mode.name, ", ".join(names), x)
        if isinstance(x, (str, bytes)):
            raise TypeError(form)
        try:
            xs = tuple(x)
        except TypeError:  # not a sequence
            raise TypeError(form) from None
        if len(xs) != len(letter):
            raise ValueError(form)
    words = ()
    for kind, name, v in zip(letter, names, xs):
        if kind == "d":
            words += _positive_double(name, mode.about, v)
        elif kind == "u":
            words += (_check_u32(name, v),)
        else:
            label = name if len(letter) == 1 else "%s %s" % (mode.name, name)
            if not _is_number(v):
                raise TypeError("parz: %s must be an integer, got %r" % (label, v))
            try:
                ok = int(v) == v
            except (ValueError, OverflowError):
                ok = False
            if not ok:
                raise ValueError("parz: %s must be an integer, got %r" % (label, v))
            if not -2**31 <= int(v) < 2**31:
                raise ValueError("parz: %s must fit in 32 bits, got %r" % (label, v))
            words += (int(v) & _U32,)
    return words


def _mode_cd(codec, given):
    """cd_values[0] and the mode's values for exactly one mode of `codec` among `given`
    ({keyword: value}; None, and False for a mode without values, mean not given)."""
    modes = _codecs.find(codec)
    by_name = {m.name: m for m in modes}
    for name, v in given.items():
        m = by_name.get(name)
        if m is not None and not m.values and v is not None and not _is_bool(v):
            raise TypeError("parz: %s must be True or False, got %r" % (name, v))
    chosen = [n for n, v in given.items() if v is not None and v is not False]
    if not chosen and not modes[0].values:  # a codec whose first mode takes no value has it
        chosen = [modes[0].name]            # as its default (lossless: lorenzo)
        given = dict(given, **{modes[0].name: True})
    other = [n for n in chosen if n not in by_name]
    if other:
        raise ValueError("parz: codec %s has no mode %s; its modes: %s"
                         % (modes[0].codec, ", ".join(other), ", ".join(by_name)))
    if len(chosen) != 1:
        raise ValueError("parz: give exactly one of %s (got %s)"
                         % (", ".join(m.name + ("=" if m.values else "=True") for m in modes),
                            ", ".join(chosen) or "none"))
    mode = by_name[chosen[0]]
    cd = (_codecs.first_word(mode),) + (_mode_words(mode, given[mode.name]) if mode.values
                                          else ())
    _codecs.check(cd, len(cd) - 1)
    return cd


@_keywords_only
def cd_values(*, codec=None, rate=None, precision=None, accuracy=None, reversible=False,
              expert=None, segment_blocks=None, partition_segments=None, table=None,
              checksum=None, mask=None, fill_value=None, **modes):
    """The user cd_values tuple for exactly one mode of the codec (keyword names as for Parz)."""
    given = dict(rate=rate, precision=precision, accuracy=accuracy, expert=expert,
                 reversible=reversible)
    known = set(m.name for m in _codecs.find(codec))
    unknown = sorted(n for n in modes if n not in known)
    if unknown:
        raise TypeError("parz: cd_values got unknown argument%s %s; it takes codec, the modes of "
                        "codec %s (%s), segment_blocks, partition_segments, table, checksum, "
                        "mask, fill_value" % ("s" if len(unknown) > 1 else "", ", ".join(unknown),
                                              codec or _codecs.DEFAULT, ", ".join(sorted(known))))
    given.update(modes)
    cd = _mode_cd(codec, given)
    if checksum is not None and not _is_bool(checksum):
        raise TypeError("parz: checksum must be True or False, got %r" % (checksum,))
    checksum = None if checksum is None else _CHECKSUM_ON if checksum else _CHECKSUM_OFF
    if mask is not None and not _is_bool(mask):
        raise TypeError("parz: mask must be True or False, got %r" % (mask,))
    if mask is False and fill_value is not None:
        raise ValueError("parz: fill_value needs the mask (mask=False masks nothing)")
    fill = None if fill_value is None else _fill_words(fill_value)
    mask = (_MASK_FILL if fill is not None else None if mask is None
            else _MASK_ON if mask else _MASK_OFF)
    table_values = [segment_blocks, partition_segments,
                    None if table is None else _table_kind(table), checksum, mask]
    names = ["segment_blocks", "partition_segments", "table", "checksum", "mask"]
    while table_values and table_values[-1] is None:
        table_values.pop()
    cd += tuple(_check_u32(n, 0 if v is None else v) for n, v in zip(names, table_values))
    return cd + (fill if fill is not None else ())


class Parz(_Base):
    """ParZ compression for h5py's ``create_dataset(compression=...)``.

    codec= names the codec (default "zfp"; parz.codecs() lists this build's codecs and their
    modes) and exactly one of its modes follows, e.g. Parz(codec="zfp", accuracy=1e-3); zfp's:
      Parz(accuracy=1e-3)        absolute error bound (floating-point data)
      Parz(rate=8)               fixed bits per value (every block the same size)
      Parz(precision=20)         bit planes kept per block
      Parz(reversible=True)      lossless
      Parz(expert=(minbits, maxbits, maxprec, minexp))
    Optional offset-table settings: segment_blocks (C, blocks per segment),
    partition_segments (P, segments per partition), table (a TABLE_* kind or its name:
    "auto", "none", "offsets", "lengths", "hybrid"); 0 = default. Arguments are keywords only;
    invalid ones raise ValueError("parz: ...").
    checksum=False writes no payload checksums (on by default: every read verifies each
    partition of the payload, and a corrupt chunk fails its read).
    Missing values come back bit for bit and cost the payload next to nothing: NaN (any bit
    pattern) and values equal to the dataset's fill value (h5py's fillvalue=, netCDF-4's
    _FillValue), or to fill_value= when given (the nearest value of the dataset's type;
    integer datasets need an integer). The error bound holds on every other value. mask=False
    turns this off (NaN are then stored exactly one by one, fill values compressed as values).
    The default C is chosen per chunk: the smallest power of two up to 32 whose table is at
    most 2% of the chunk's payload (fastest GPU decode within that); segment_blocks=32 or more
    gives the smallest files.
    """
    filter_id = FILTER_ID

    @_keywords_only
    def __init__(self, *, codec=None, accuracy=None, rate=None, precision=None, reversible=False,
                 expert=None, segment_blocks=None, partition_segments=None, table=None,
                 checksum=None, mask=None, fill_value=None, **modes):
        self.filter_options = cd_values(codec=codec, rate=rate, precision=precision,
                                        accuracy=accuracy, reversible=reversible, expert=expert,
                                        segment_blocks=segment_blocks,
                                        partition_segments=partition_segments, table=table,
                                        checksum=checksum, mask=mask, fill_value=fill_value,
                                        **modes)

    # Mapping interface (h5py < 3 and **Parz(...) in create_dataset)
    @property
    def _kwargs(self):
        return {"compression": self.filter_id, "compression_opts": self.filter_options}

    def __len__(self):
        return len(self._kwargs)

    def __iter__(self):
        return iter(self._kwargs)

    def __getitem__(self, item):
        return self._kwargs[item]

    def __hash__(self):
        return hash((self.filter_id, self.filter_options))

    def __eq__(self, other):
        return (getattr(other, "filter_id", None) == self.filter_id
                and tuple(getattr(other, "filter_options", ())) == self.filter_options)

    def __repr__(self):
        return "parz.Parz(filter_options=%r)" % (self.filter_options,)
