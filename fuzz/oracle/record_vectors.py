#!/usr/bin/env python3
"""Writes host/model/tests/vectors/go_cty.json: the cases where tfwasm's codecs once
disagreed with go-cty (found by `make fuzz-diff`), each with go-cty's own answer, recorded
from the oracle. host/model/tests/go_cty_vectors.rs holds tfwasm to them without Go.

    python3 fuzz/oracle/record_vectors.py "$(bash scripts/build-oracle.sh)"
"""

import base64
import json
import struct
import subprocess
import sys
from pathlib import Path

NIL = object()


class Unknown:
    def __init__(self, refinements=None):
        self.refinements = refinements or []  # [(key, value)]


class Text(str):
    """A number written as a msgpack string."""


class Dyn:
    def __init__(self, ty, value, as_str=False):
        self.ty, self.value, self.as_str = ty, value, as_str


def pack(v, out):
    if v is NIL or v is None:
        out.append(0xC0)
    elif v is True:
        out.append(0xC3)
    elif v is False:
        out.append(0xC2)
    elif isinstance(v, Unknown):
        if not v.refinements:
            out += b"\xd4\x00\x00"
            return
        body = bytearray()
        pack_map_header(len(v.refinements), body)
        for k, x in v.refinements:
            pack(k, body)
            pack(x, body)
        out += bytes([0xC7, len(body), 12]) + body
    elif isinstance(v, int):
        if 0 <= v < 128:
            out.append(v)
        elif -32 <= v < 0:
            out += struct.pack(">b", v)
        elif 0 <= v < 2**64:
            out += b"\xcf" + struct.pack(">Q", v)
        else:
            out += b"\xd3" + struct.pack(">q", v)
    elif isinstance(v, float):
        out += b"\xcb" + struct.pack(">d", v)
    elif isinstance(v, str):
        data = v.encode("utf-8")
        if len(data) < 32:
            out.append(0xA0 | len(data))
        else:
            out += bytes([0xD9, len(data)]) if len(data) < 256 else b"\xda" + struct.pack(">H", len(data))
        out += data
    elif isinstance(v, Dyn):
        out.append(0x92)
        ty = json.dumps(v.ty, separators=(",", ":")).encode()
        out += (bytes([0xA0 | len(ty)]) if v.as_str else bytes([0xC4, len(ty)])) + ty
        pack(v.value, out)
    elif isinstance(v, list):
        out.append(0x90 | len(v)) if len(v) < 16 else out.extend(b"\xdc" + struct.pack(">H", len(v)))
        for x in v:
            pack(x, out)
    elif isinstance(v, dict):
        pack_map_header(len(v), out)
        for k, x in v.items():
            pack(k, out)
            pack(x, out)
    else:
        raise TypeError(v)


def pack_map_header(n, out):
    out.append(0x80 | n)


def mp(v):
    out = bytearray()
    pack(v, out)
    return bytes(out)


# (what went wrong before the fix, type, value)
CASES = [
    ("a decimal from text is written as text, not float64", "number", Text("6.9")),
    ("a float64 stays a float64", "number", 0.1),
    ("an integer beyond int64 is written as text", "number", 2**63 + 1),
    ("go-cty's number syntax has no spaces", "number", Text(" 1")),
    ("a float64 integer is compared exactly but written shortest", "number", 1e23),
    ("-0 from a float64", "number", -0.0),
    ("-0 from text", "number", Text("-0")),
    ("a decimal longer than a 512-bit float can tell apart", "number", Text("1." + "0" * 170 + "1")),
    ("a subnormal float64 printed at 53 bits", "number", 5e-324),
    ("Inf is a number go-cty parses; tfwasm refuses infinities, which no state can hold", "number", Text("Inf")),
    ("strings are normalized to NFC", "string", "e\u0301"),
    ("map keys are normalized to NFC", ["map", "string"], {"A\u030a": "x"}),
    ("JSON escapes < > & as Go does", "string", "<a href=\"x\">&amp;</a>\u2028"),
    ("two unknowns in a set are two elements", ["set", "string"], [Unknown(), Unknown(), "a", "a"]),
    ("set elements holding unknowns are never merged", ["set", ["object", {"foo": "string"}]],
     [{"foo": Unknown()}, {"foo": Unknown()}]),
    ("0 and -0 are equal but hash apart, so a set keeps both", ["set", "number"], [0, Text("-0")]),
    ("set order: values, then unknowns, then null", ["set", "string"], ["b", None, Unknown(), "a"]),
    ("set of objects ordered by go-cty's hash text", ["set", ["object", {"s": "string", "n": "number"}]],
     [{"s": "\u00ad", "n": 1}, {"s": "a", "n": Text("1.00000000005")}, {"s": "\x00", "n": 0.5}, {"s": "a", "n": 1.00000000005}]),
    ("a refinement of null makes the value null", "string", Unknown([(1, True)])),
    ("number bounds that meet make the value known", "number", Unknown([(1, False), (3, [5, True]), (4, [5, True])])),
    ("a list of known length is a list of unknowns", ["list", "string"], Unknown([(1, False), (5, 2), (6, 2)])),
    ("a set of one element is a set of one unknown", ["set", "string"], Unknown([(1, False), (5, 1), (6, 1)])),
    ("an empty map is known", ["map", "string"], Unknown([(1, False), (5, 0), (6, 0)])),
    ("a length refinement on a string is an error", "string", Unknown([(5, 1)])),
    ("a prefix refinement on a number is an error", "number", Unknown([(2, "x")])),
    ("an unknown refinement key is left in place", "string", Unknown([(9, 1)])),
    ("a dynamic value of type dynamic is plain", "dynamic", Dyn("dynamic", None)),
    ("a dynamic value takes the type of what it holds", "dynamic",
     Dyn(["list", "dynamic"], [Dyn("string", "x"), None])),
    ("a null in a list(dynamic) of strings is a null string", ["list", "dynamic"], [Dyn("string", "x"), None]),
    ("an unknown in a set(dynamic) of bools is an unknown bool", ["set", "dynamic"], [Dyn("bool", True), Unknown(), Unknown()]),
    ("an empty map for an object type (go-cty: an object of another type)", ["object", {"a": "string"}], {}),
]


def main():
    oracle = sys.argv[1]
    requests = []
    for _, ty, value in CASES:
        requests.append({"op": "msgpack", "type": ty, "msgpack": base64.b64encode(mp(value)).decode()})
    run = subprocess.run([oracle], input="".join(json.dumps(r) + "\n" for r in requests),
                         capture_output=True, text=True, check=True)
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    vectors = []
    for (why, ty, value), answer in zip(CASES, answers):
        entry = {"why": why, "type": ty, "msgpack": mp(value).hex()}
        if why.startswith("Inf"):
            entry["tfwasm_refuses"] = True
        if "panic" in answer or "error" in answer:
            entry["go_cty"] = {"refuses": answer.get("error") or "panics: " + answer["panic"]}
        else:
            entry["go_cty"] = {
                "msgpack": base64.b64decode(answer["msgpack"]).hex(),
                "json": answer.get("json"),
            }
        vectors.append(entry)
    out = Path(__file__).resolve().parents[2] / "host/model/tests/vectors/go_cty.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"recorded_from": "go-cty v1.18.0 (OpenTofu v1.12.6) by fuzz/oracle/record_vectors.py",
                               "cases": vectors}, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(vectors)} vectors to {out}")


if __name__ == "__main__":
    main()
