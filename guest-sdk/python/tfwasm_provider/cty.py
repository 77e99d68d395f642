"""Terraform's value types (go-cty) and its msgpack wire encoding, in pure Python.

Values are plain Python: ``None`` is null, :data:`UNKNOWN` is a value not known until apply,
``str``/``bool``/``int``/``float``/``Decimal`` are primitives, lists (for list, set and
tuple types) and dicts (for map and object types) nest them. A value in a ``dynamic`` slot
decodes to :class:`Dynamic` (its type travels with it); when encoding, a plain ``str``,
``bool`` or number may stand in for it.
"""

from __future__ import annotations

import json
import struct
from decimal import Decimal
from typing import Any, Dict, List, Tuple as Tup


class CtyError(ValueError):
    """A value does not match its type; ``path`` says where (attribute names, keys, indexes)."""

    def __init__(self, path: List[Any], message: str):
        self.path = list(path)
        where = "".join(f".{p}" if isinstance(p, str) else f"[{p}]" for p in path).lstrip(".")
        super().__init__(f"{where}: {message}" if where else message)


# ---------------------------------------------------------------- types


class Type:
    """A cty type. Compare with ``==``; :meth:`json` is Terraform's JSON form."""

    def json(self) -> Any:
        raise NotImplementedError

    def json_text(self) -> str:
        return json.dumps(self.json(), separators=(",", ":"))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Type) and self.json() == other.json()

    def __hash__(self) -> int:
        return hash(self.json_text())

    def __repr__(self) -> str:
        return f"Type({self.json_text()})"


class _Primitive(Type):
    def __init__(self, name: str):
        self.name = name

    def json(self) -> Any:
        return self.name


STRING = _Primitive("string")
NUMBER = _Primitive("number")
BOOL = _Primitive("bool")
DYNAMIC = _Primitive("dynamic")


class _Collection(Type):
    kind = ""

    def __init__(self, element: Type):
        self.element = element

    def json(self) -> Any:
        return [self.kind, self.element.json()]


class List_(_Collection):
    kind = "list"


class Set_(_Collection):
    kind = "set"


class Map_(_Collection):
    kind = "map"


class Object_(Type):
    def __init__(self, attributes: Dict[str, Type]):
        self.attributes = dict(sorted(attributes.items()))

    def json(self) -> Any:
        return ["object", {k: v.json() for k, v in self.attributes.items()}]


class Tuple_(Type):
    def __init__(self, elements: List[Type]):
        self.elements = list(elements)

    def json(self) -> Any:
        return ["tuple", [e.json() for e in self.elements]]


def list_of(element: Type) -> Type:
    return List_(element)


def set_of(element: Type) -> Type:
    return Set_(element)


def map_of(element: Type) -> Type:
    return Map_(element)


def object_of(attributes: Dict[str, Type]) -> Type:
    return Object_(attributes)


def tuple_of(elements: List[Type]) -> Type:
    return Tuple_(elements)


def type_from_json(j: Any) -> Type:
    """The type Terraform writes as JSON ``j`` (``"string"``, ``["list","number"]``, ...)."""
    if isinstance(j, str):
        for t in (STRING, NUMBER, BOOL, DYNAMIC):
            if t.name == j:
                return t
    elif isinstance(j, list) and len(j) >= 2:
        kind, arg = j[0], j[1]
        if kind in ("list", "set", "map"):
            return {"list": List_, "set": Set_, "map": Map_}[kind](type_from_json(arg))
        if kind == "object" and isinstance(arg, dict):
            return Object_({k: type_from_json(v) for k, v in arg.items()})
        if kind == "tuple" and isinstance(arg, list):
            return Tuple_([type_from_json(v) for v in arg])
    raise CtyError([], f"not a type: {j!r}")


# ---------------------------------------------------------------- special values


class _Unknown:
    """A value that is not known until apply (refinements from Terraform are dropped)."""

    _instance = None

    def __new__(cls) -> "_Unknown":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        raise TypeError("an unknown value has no truth value; compare with `is UNKNOWN`")


UNKNOWN = _Unknown()


class Dynamic:
    """A value in a ``dynamic`` slot, with the type it was given."""

    def __init__(self, type: Type, value: Any):
        self.type = type
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dynamic) and (self.type, self.value) == (other.type, other.value)

    def __repr__(self) -> str:
        return f"Dynamic({self.type!r}, {self.value!r})"


def equal(a: Any, b: Any, ty: Type) -> bool:
    """Whether two values of type ``ty`` are the same value: sets compare regardless of order
    (as multisets, since elements holding unknowns may repeat), unknowns equal unknowns."""
    return _key(a, ty) == _key(b, ty)


def set_elements(items: List[Any], element: Type) -> List[Any]:
    """The elements of a set as go-cty keeps them: a wholly known element equal to an earlier
    one is dropped; an element holding an unknown is always kept, since an unknown equals
    nothing until it is known (two statements with unknown ids are two statements)."""
    seen = set()
    out = []
    for item in items:
        if is_wholly_known(item):
            key = _key(item, element)
            if key in seen:
                continue
            seen.add(key)
        out.append(item)
    return out


_UNKNOWN_KEY = ("unknown",)


def _key(value: Any, ty: Type) -> Any:
    """A hashable stand-in for ``value`` that is equal exactly when the values are."""
    if value is None:
        return None
    if value is UNKNOWN:
        return _UNKNOWN_KEY
    if isinstance(value, Dynamic):
        return ("dynamic", value.type.json_text(), _key(value.value, value.type))
    if ty == DYNAMIC:
        if isinstance(value, (str, bool, int, float, Decimal)):
            inner = _inferred(value, [])
            return ("dynamic", inner.json_text(), _key(value, inner))
        return ("dynamic", repr(value))
    if isinstance(ty, Set_):
        keys: Dict[Any, int] = {}
        for item in value:
            k = _key(item, ty.element)
            keys[k] = keys.get(k, 0) + 1
        return ("set", frozenset(keys.items()))
    if isinstance(ty, List_):
        return ("list", tuple(_key(v, ty.element) for v in value))
    if isinstance(ty, Tuple_):
        return ("tuple", tuple(_key(v, t) for v, t in zip(value, ty.elements)))
    if isinstance(ty, Map_):
        return ("map", frozenset((k, _key(v, ty.element)) for k, v in value.items()))
    if isinstance(ty, Object_):
        return ("object", tuple((k, _key(value.get(k), t)) for k, t in ty.attributes.items()))
    if ty == NUMBER and not isinstance(value, bool):
        # 1, 1.0 and Decimal("1.0") are one number.
        return ("number", Decimal(repr(value)) if isinstance(value, float) else value)
    return (ty.json_text(), value)


def is_wholly_known(value: Any) -> bool:
    if value is UNKNOWN:
        return False
    if isinstance(value, Dynamic):
        return is_wholly_known(value.value)
    if isinstance(value, list):
        return all(is_wholly_known(v) for v in value)
    if isinstance(value, dict):
        return all(is_wholly_known(v) for v in value.values())
    return True


def known_or_null(value: Any, ty: Type) -> Any:
    """``value`` with every unknown null, except an unknown set element, which is dropped (a
    set holds no nulls); set elements that became equal merge, as go-cty's would."""
    if value is UNKNOWN:
        return None
    if value is None:
        return None
    if isinstance(value, Dynamic):
        return Dynamic(value.type, known_or_null(value.value, value.type))
    if isinstance(ty, Set_):
        return set_elements([known_or_null(v, ty.element) for v in value if v is not UNKNOWN], ty.element)
    if isinstance(ty, List_):
        return [known_or_null(v, ty.element) for v in value]
    if isinstance(ty, Tuple_):
        return [known_or_null(v, t) for v, t in zip(value, ty.elements)]
    if isinstance(ty, Map_):
        return {k: known_or_null(v, ty.element) for k, v in value.items()}
    if isinstance(ty, Object_):
        return {k: known_or_null(value.get(k), t) for k, t in ty.attributes.items()}
    return value


# ---------------------------------------------------------------- msgpack encoding

_MAX_DEPTH = 128


def encode(value: Any, ty: Type) -> bytes:
    """``value`` in Terraform's msgpack encoding for type ``ty``."""
    out = bytearray()
    _write(out, value, ty, [])
    return bytes(out)


def _write(out: bytearray, value: Any, ty: Type, path: List[Any]) -> None:
    if len(path) > _MAX_DEPTH:
        raise CtyError(path, "nested too deeply")
    if value is None:
        out.append(0xC0)
        return
    if value is UNKNOWN:
        out += b"\xd4\x00\x00"
        return
    if ty == DYNAMIC:
        if isinstance(value, Dynamic):
            inner_ty, inner = value.type, value.value
        else:
            inner_ty, inner = _inferred(value, path), value
        _array_header(out, 2)
        _bin(out, inner_ty.json_text().encode())
        _write(out, inner, inner_ty, path)
        return
    if isinstance(value, Dynamic):
        value = value.value
    if ty == STRING:
        if not isinstance(value, str):
            raise CtyError(path, f"a string is required, not {type(value).__name__}")
        _str(out, value)
    elif ty == BOOL:
        if not isinstance(value, bool):
            raise CtyError(path, f"a bool is required, not {type(value).__name__}")
        out.append(0xC3 if value else 0xC2)
    elif ty == NUMBER:
        _number(out, value, path)
    elif isinstance(ty, (List_, Set_)):
        if not isinstance(value, (list, tuple, set, frozenset)):
            raise CtyError(path, f"a {ty.kind} is required, not {type(value).__name__}")
        items = list(value)
        _array_header(out, len(items))
        for i, item in enumerate(items):
            _write(out, item, ty.element, path + [i])
    elif isinstance(ty, Map_):
        if not isinstance(value, dict):
            raise CtyError(path, f"a map is required, not {type(value).__name__}")
        _map_header(out, len(value))
        for k in sorted(value):
            _str(out, k)
            _write(out, value[k], ty.element, path + [k])
    elif isinstance(ty, Object_):
        if not isinstance(value, dict):
            raise CtyError(path, f"an object is required, not {type(value).__name__}")
        extra = [k for k in value if k not in ty.attributes]
        if extra:
            raise CtyError(path, f"unsupported attribute {extra[0]!r}")
        _map_header(out, len(ty.attributes))
        for name, attr_ty in ty.attributes.items():
            _str(out, name)
            _write(out, value.get(name), attr_ty, path + [name])
    elif isinstance(ty, Tuple_):
        if not isinstance(value, (list, tuple)) or len(value) != len(ty.elements):
            raise CtyError(path, f"a tuple of {len(ty.elements)} elements is required")
        _array_header(out, len(ty.elements))
        for i, (item, item_ty) in enumerate(zip(value, ty.elements)):
            _write(out, item, item_ty, path + [i])
    else:
        raise CtyError(path, f"unsupported type {ty!r}")


def _inferred(value: Any, path: List[Any]) -> Type:
    if isinstance(value, str):
        return STRING
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, (int, float, Decimal)):
        return NUMBER
    raise CtyError(path, "a value in a dynamic slot needs its type: wrap it in Dynamic(type, value)")


def _number(out: bytearray, value: Any, path: List[Any]) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise CtyError(path, f"a number is required, not {type(value).__name__}")
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise CtyError(path, "a number must be finite")
        if value.is_integer() and abs(value) < 2**53:
            value = int(value)
        else:
            out.append(0xCB)
            out += struct.pack(">d", value)
            return
    if isinstance(value, Decimal):
        if value == value.to_integral_value():
            value = int(value)
        else:
            _str(out, str(value))
            return
    if 0 <= value < 2**64:
        if value < 0x80:
            out.append(value)
        elif value < 2**8:
            out += b"\xcc" + struct.pack(">B", value)
        elif value < 2**16:
            out += b"\xcd" + struct.pack(">H", value)
        elif value < 2**32:
            out += b"\xce" + struct.pack(">I", value)
        else:
            out += b"\xcf" + struct.pack(">Q", value)
    elif -(2**63) <= value < 0:
        if value >= -32:
            out += struct.pack(">b", value)
        else:
            out += b"\xd3" + struct.pack(">q", value)
    else:
        # Beyond 64 bits: go-cty writes the decimal text.
        _str(out, str(value))


def _length(out: bytearray, n: int, fixed: "Tup[int, int] | None", markers: List[Tup[int, int]]) -> None:
    """A length header: the fix form ``(base, limit)`` when ``n`` is below its limit, else
    the first ``(marker, width in bytes)`` whose width holds ``n``."""
    if fixed is not None and n < fixed[1]:
        out.append(fixed[0] | n)
        return
    for marker, width in markers:
        if n < 2 ** (8 * width):
            out.append(marker)
            out += n.to_bytes(width, "big")
            return
    raise CtyError([], f"{n} is too long for msgpack")


def _str(out: bytearray, text: str) -> None:
    data = text.encode("utf-8")
    _length(out, len(data), (0xA0, 32), [(0xD9, 1), (0xDA, 2), (0xDB, 4)])
    out += data


def _bin(out: bytearray, data: bytes) -> None:
    _length(out, len(data), None, [(0xC4, 1), (0xC5, 2), (0xC6, 4)])
    out += data


def _array_header(out: bytearray, n: int) -> None:
    _length(out, n, (0x90, 16), [(0xDC, 2), (0xDD, 4)])


def _map_header(out: bytearray, n: int) -> None:
    _length(out, n, (0x80, 16), [(0xDE, 2), (0xDF, 4)])


# ---------------------------------------------------------------- msgpack decoding


def decode(data: bytes, ty: Type) -> Any:
    """The value of type ``ty`` that ``data`` (Terraform's msgpack) holds."""
    reader = _Reader(data)
    value = reader.value(ty, [])
    if reader.pos != len(data):
        raise CtyError([], f"{len(data) - reader.pos} bytes after the value")
    return value


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def take(self, n: int, path: List[Any]) -> bytes:
        if self.pos + n > len(self.data):
            raise CtyError(path, "the value ends too early")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def peek(self, path: List[Any]) -> int:
        if self.pos >= len(self.data):
            raise CtyError(path, "the value ends too early")
        return self.data[self.pos]

    def uint(self, n: int, path: List[Any]) -> int:
        return int.from_bytes(self.take(n, path), "big")

    def value(self, ty: Type, path: List[Any]) -> Any:
        if len(path) > _MAX_DEPTH:
            raise CtyError(path, "nested too deeply")
        b = self.peek(path)
        if b == 0xC0:
            self.pos += 1
            return None
        if b in (0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xC7, 0xC8, 0xC9):
            self.skip_ext(path)
            return UNKNOWN
        if ty == DYNAMIC:
            if self.array_len(path) != 2:
                raise CtyError(path, "a dynamic value must be a [type, value] pair")
            inner_ty = type_from_json(json.loads(self.raw_bytes(path)))
            return Dynamic(inner_ty, self.value(inner_ty, path))
        if ty == STRING:
            return self.string(path)
        if ty == BOOL:
            self.pos += 1
            if b in (0xC2, 0xC3):
                return b == 0xC3
            raise CtyError(path, "a bool is required")
        if ty == NUMBER:
            return self.number(path)
        if isinstance(ty, (List_, Set_)):
            items = [self.value(ty.element, path + [i]) for i in range(self.array_len(path))]
            return set_elements(items, ty.element) if isinstance(ty, Set_) else items
        if isinstance(ty, Map_):
            n = self.map_len(path)
            out = {}
            for _ in range(n):
                k = self.string(path)
                out[k] = self.value(ty.element, path + [k])
            return out
        if isinstance(ty, Object_):
            n = self.map_len(path)
            out = {name: None for name in ty.attributes}
            for _ in range(n):
                k = self.string(path)
                if k not in ty.attributes:
                    raise CtyError(path, f"unsupported attribute {k!r}")
                out[k] = self.value(ty.attributes[k], path + [k])
            return out
        if isinstance(ty, Tuple_):
            n = self.array_len(path)
            if n != len(ty.elements):
                raise CtyError(path, f"a tuple of {len(ty.elements)} elements is required ({n} given)")
            return [self.value(t, path + [i]) for i, t in enumerate(ty.elements)]
        raise CtyError(path, f"unsupported type {ty!r}")

    def skip_ext(self, path: List[Any]) -> None:
        b = self.data[self.pos]
        self.pos += 1
        fixed = {0xD4: 1, 0xD5: 2, 0xD6: 4, 0xD7: 8, 0xD8: 16}
        n = fixed[b] if b in fixed else self.uint({0xC7: 1, 0xC8: 2, 0xC9: 4}[b], path)
        self.take(1 + n, path)

    def string(self, path: List[Any]) -> str:
        b = self.data[self.pos] if self.pos < len(self.data) else None
        self.pos += 1
        if b is not None and 0xA0 <= b <= 0xBF:
            n = b & 0x1F
        elif b in (0xD9, 0xDA, 0xDB):
            n = self.uint({0xD9: 1, 0xDA: 2, 0xDB: 4}[b], path)
        else:
            raise CtyError(path, "a string is required")
        try:
            return self.take(n, path).decode("utf-8")
        except UnicodeDecodeError:
            raise CtyError(path, "string is not valid UTF-8") from None

    def raw_bytes(self, path: List[Any]) -> bytes:
        b = self.peek(path)
        if b in (0xC4, 0xC5, 0xC6):
            self.pos += 1
            return self.take(self.uint({0xC4: 1, 0xC5: 2, 0xC6: 4}[b], path), path)
        return self.string(path).encode()

    def number(self, path: List[Any]) -> Any:
        b = self.data[self.pos]
        self.pos += 1
        if b <= 0x7F:
            return b
        if b >= 0xE0:
            return b - 0x100
        ints = {0xCC: (1, False), 0xCD: (2, False), 0xCE: (4, False), 0xCF: (8, False),
                0xD0: (1, True), 0xD1: (2, True), 0xD2: (4, True), 0xD3: (8, True)}
        if b in ints:
            n, signed = ints[b]
            return int.from_bytes(self.take(n, path), "big", signed=signed)
        if b == 0xCA:
            return _float(struct.unpack(">f", self.take(4, path))[0])
        if b == 0xCB:
            return _float(struct.unpack(">d", self.take(8, path))[0])
        self.pos -= 1
        text = self.string(path)
        try:
            d = Decimal(text)
        except ArithmeticError:
            raise CtyError(path, f"{text!r} is not a number") from None
        return int(d) if d == d.to_integral_value() else d

    def array_len(self, path: List[Any]) -> int:
        b = self.data[self.pos] if self.pos < len(self.data) else None
        self.pos += 1
        if b is not None and 0x90 <= b <= 0x9F:
            return b & 0x0F
        if b in (0xDC, 0xDD):
            return self.uint(2 if b == 0xDC else 4, path)
        raise CtyError(path, "a list is required")

    def map_len(self, path: List[Any]) -> int:
        b = self.data[self.pos] if self.pos < len(self.data) else None
        self.pos += 1
        if b is not None and 0x80 <= b <= 0x8F:
            return b & 0x0F
        if b in (0xDE, 0xDF):
            return self.uint(2 if b == 0xDE else 4, path)
        raise CtyError(path, "a map or object is required")


def _float(f: float) -> Any:
    return int(f) if f.is_integer() and abs(f) < 2**53 else f


# ---------------------------------------------------------------- JSON (stored state)


def from_json(j: Any, ty: Type, path: Tup[Any, ...] = ()) -> Any:
    """A value of ``ty`` from Terraform's JSON form (state files, UpgradeResourceState)."""
    p = list(path)
    if j is None:
        return None
    if ty == DYNAMIC:
        if not isinstance(j, dict) or "type" not in j or "value" not in j:
            raise CtyError(p, "a dynamic value must be {\"type\": ..., \"value\": ...}")
        inner = type_from_json(j["type"])
        return Dynamic(inner, from_json(j["value"], inner, path))
    if ty == STRING:
        if isinstance(j, (str, int, float)) and not isinstance(j, bool):
            return str(j)
        raise CtyError(p, "a string is required")
    if ty == BOOL:
        if isinstance(j, bool):
            return j
        raise CtyError(p, "a bool is required")
    if ty == NUMBER:
        if isinstance(j, bool):
            raise CtyError(p, "a number is required")
        if isinstance(j, (int, float)):
            return _float(j) if isinstance(j, float) else j
        if isinstance(j, str):
            d = Decimal(j)
            return int(d) if d == d.to_integral_value() else d
        raise CtyError(p, "a number is required")
    if isinstance(ty, (List_, Set_)):
        if not isinstance(j, list):
            raise CtyError(p, f"a {ty.kind} is required")
        items = [from_json(v, ty.element, path + (i,)) for i, v in enumerate(j)]
        return set_elements(items, ty.element) if isinstance(ty, Set_) else items
    if isinstance(ty, Map_):
        if not isinstance(j, dict):
            raise CtyError(p, "a map is required")
        return {k: from_json(v, ty.element, path + (k,)) for k, v in j.items()}
    if isinstance(ty, Object_):
        if not isinstance(j, dict):
            raise CtyError(p, "an object is required")
        out = {name: None for name in ty.attributes}
        for k, v in j.items():
            if k not in ty.attributes:
                raise CtyError(p, f"unsupported attribute {k!r}")
            out[k] = from_json(v, ty.attributes[k], path + (k,))
        return out
    if isinstance(ty, Tuple_):
        if not isinstance(j, list) or len(j) != len(ty.elements):
            raise CtyError(p, f"a tuple of {len(ty.elements)} elements is required")
        return [from_json(v, t, path + (i,)) for i, (v, t) in enumerate(zip(j, ty.elements))]
    raise CtyError(p, f"unsupported type {ty!r}")
